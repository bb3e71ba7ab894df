import ipaddr from 'ipaddr.js';

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];
type Address = ipaddr.IPv4 | ipaddr.IPv6;

/**
 * An IP address as text (a socket's, a URL's hostname with or without its brackets), parsed; an IPv4-mapped IPv6
 * address (::ffff:127.0.0.1) is the IPv4 address it carries. Null for anything that is not an address.
 */
export function parseAddress(text: string): Address | null {
  const host = text.replace(/^\[|\]$/g, '');
  if (!ipaddr.isValid(host)) return null;
  const address = ipaddr.parse(host);
  return address instanceof ipaddr.IPv6 && address.isIPv4MappedAddress() ? address.toIPv4Address() : address;
}

/** A set of CIDR ranges and single addresses, as operators configure them (MEDIA_FETCH_ALLOW, a processor's senders). */
export class AddressRanges {
  private constructor(private readonly ranges: readonly Range[]) {}

  /** Each entry a CIDR range or one address; throws on one that does not parse, so a bad setting fails at start. */
  static parse(entries: readonly string[]): AddressRanges {
    return new AddressRanges(entries.map((entry) => (entry.includes('/') ? ipaddr.parseCIDR(entry) : single(entry))));
  }

  /** A comma-separated list of them; empty: none. */
  static parseList(list: string): AddressRanges {
    return AddressRanges.parse(
      list
        .split(',')
        .map((entry) => entry.trim())
        .filter((entry) => entry.length > 0),
    );
  }

  includes(address: Address | string): boolean {
    const parsed = typeof address === 'string' ? parseAddress(address) : address;
    if (parsed === null) return false;
    return this.ranges.some(([range, bits]) => range.kind() === parsed.kind() && parsed.match(range, bits));
  }
}

function single(address: string): Range {
  const parsed = ipaddr.parse(address);
  return [parsed, parsed.kind() === 'ipv4' ? 32 : 128];
}
