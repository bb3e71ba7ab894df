import addressparser from 'nodemailer/lib/addressparser';

/** One mailbox, with or without a display name: `a@example.com`, `Name <a@example.com>` (RFC 5322 3.4). */
export function isOneMailbox(value: string): boolean {
  const parsed = addressparser(value, { flatten: true });
  return parsed.length === 1 && /^[^@\s]+@[^@\s]+$/.test(parsed[0]!.address);
}
