/**
 * The behavioural contract of the mailer port (src/adapters/mailer/index.ts), run against the memory twin and the
 * SMTP adapter (against a real local SMTP server, test/setup/smtp-server.ts): each message reaches its address
 * with its subject and bodies exactly as given, a long link intact; a failure is a MailerError whose kind says
 * why (recipient refused, server down, credentials refused) and nothing is delivered.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Mailer, MailerError, type MailerFailure, type MailMessage } from '../../src/adapters/mailer/index.js';

/** Ways to make the next send fail as a mail server would. */
export interface MailMisbehaviour {
  refuseRecipient(address: string): void;
  down(): Promise<void>;
  refuseLogins(): void;
}

export interface MailerUnderTest {
  mailer: Mailer;
  /** What reached the mailboxes, in the order it arrived, as a reader sees it. */
  delivered(): Promise<MailMessage[]>;
  misbehave: MailMisbehaviour;
  cleanup(): Promise<void>;
}

/** A confirmation link far longer than a mail line (76), with the characters quoted-printable must escape. */
export const LONG_LINK = `https://gateway.example.com/v1/auth/confirm?token=${'Ab9_-'.repeat(40)}&next=%2Fdashboard%3Ftab%3Dkeys&x=1`;

const failureOf = async (send: Promise<string>, kind: MailerFailure): Promise<MailerError> => {
  const err = await send.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(MailerError);
  expect((err as MailerError).kind).toBe(kind);
  return err as MailerError;
};

export function mailerConformance(name: string, make: () => Promise<MailerUnderTest>): void {
  describe(`Mailer conformance: ${name}`, () => {
    let subject: MailerUnderTest;
    beforeEach(async () => {
      subject = await make();
    });
    afterEach(async () => {
      await subject.mailer.close();
      await subject.cleanup();
    });

    it('delivers each message to its address with its subject and text; a long link arrives whole', async () => {
      const messages: MailMessage[] = [
        {
          to: 'new.person@example.com',
          subject: 'Confirm your address',
          text: `Open this link:\n${LONG_LINK}\n\nThanks.`,
        },
        { to: 'other@example.org', subject: 'Подтвердите адрес ✅', text: 'Ссылка: https://gateway.example.com/c?t=1' },
      ];
      const ids = [await subject.mailer.send(messages[0]!), await subject.mailer.send(messages[1]!)];
      expect(ids[0]).toEqual(expect.any(String));
      expect(ids[0]).not.toBe(ids[1]);
      const delivered = await subject.delivered();
      expect(delivered).toEqual(messages);
      expect(delivered[0]!.text).toContain(LONG_LINK);
    });

    it('an HTML alternative arrives beside the text', async () => {
      const message = {
        to: 'html@example.com',
        subject: 'Reset your password',
        text: `Reset: ${LONG_LINK}`,
        html: `<p>Reset: <a href="${LONG_LINK.replace(/&/g, '&amp;')}">your link</a></p>`,
      };
      await subject.mailer.send(message);
      expect(await subject.delivered()).toEqual([message]);
    });

    it('a recipient the server refuses: rejected, nothing delivered; the next message goes through', async () => {
      subject.misbehave.refuseRecipient('gone@example.com');
      await failureOf(subject.mailer.send({ to: 'gone@example.com', subject: 's', text: 't' }), 'rejected');
      const next = { to: 'here@example.com', subject: 'still working', text: 'yes' };
      await subject.mailer.send(next);
      expect(await subject.delivered()).toEqual([next]);
    });

    it('the server down: unreachable, nothing delivered', async () => {
      await subject.misbehave.down();
      await failureOf(subject.mailer.send({ to: 'a@example.com', subject: 's', text: 't' }), 'unreachable');
    });

    it('credentials refused: auth, nothing delivered', async () => {
      subject.misbehave.refuseLogins();
      await failureOf(subject.mailer.send({ to: 'a@example.com', subject: 's', text: 't' }), 'auth');
      expect(await subject.delivered()).toEqual([]);
    });
  });
}
