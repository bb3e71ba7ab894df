/**
 * The addresses YooKassa sends notifications from (yookassa.ru/developers/using-api/webhooks, "IP authentication";
 * research/payments.md 3). Checking them is optional: the re-fetch of the named object is what proves a
 * notification (issue 27). The check only spares the API calls a stranger's posts would otherwise cost, so a
 * flood of forged notifications cannot spend the shop's request quota.
 */
import ipaddr from 'ipaddr.js';

/** As published; the official Python SDK lists narrower IPv6 /64s, so an operator may configure those instead. */
export const YOOKASSA_SENDER_RANGES: readonly string[] = [
  '185.71.76.0/27',
  '185.71.77.0/27',
  '77.75.153.0/25',
  '77.75.154.128/25',
  '77.75.156.11',
  '77.75.156.35',
  '2a02:5180::/32',
];

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

export class SenderRanges {
  private constructor(private readonly ranges: readonly Range[]) {}

  /** CIDR ranges or single addresses; throws on one that does not parse, so a bad list fails at start. */
  static parse(entries: readonly string[]): SenderRanges {
    return new SenderRanges(
      entries.map((entry): Range => {
        if (entry.includes('/')) return ipaddr.parseCIDR(entry);
        const address = ipaddr.parse(entry);
        return [address, address.kind() === 'ipv4' ? 32 : 128];
      }),
    );
  }

  /** Whether `address` (as a socket reports it; an IPv4-mapped IPv6 address counts as its IPv4) is in a range. */
  includes(address: string): boolean {
    if (!ipaddr.isValid(address)) return false;
    let parsed = ipaddr.parse(address);
    if (parsed instanceof ipaddr.IPv6 && parsed.isIPv4MappedAddress()) parsed = parsed.toIPv4Address();
    const kind = parsed.kind();
    return this.ranges.some(([range, bits]) => range.kind() === kind && parsed.match(range, bits));
  }
}
