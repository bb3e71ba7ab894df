import ipaddr from 'ipaddr.js';

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** `::/96`, the deprecated IPv4-compatible IPv6 addresses. */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96') as [ipaddr.IPv6, number];

/**
 * Which addresses a media fetch may connect to: public unicast ones, plus configured ranges (MEDIA_FETCH_ALLOW, for
 * a private asset server or the tests' loopback). Loopback, private, link-local (cloud metadata), carrier NAT,
 * unique-local, multicast and reserved addresses are refused, an IPv4-mapped IPv6 address (::ffff:127.0.0.1) is
 * judged as the IPv4 address it carries, and an IPv4-compatible one (::7f00:1) is refused.
 */
export class AddressPolicy {
  private constructor(private readonly allowed: readonly Range[]) {}

  /** A comma-separated list of CIDR ranges or single addresses; empty allows nothing extra. */
  static parse(list: string): AddressPolicy {
    const entries = list
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry.length > 0);
    return new AddressPolicy(entries.map((entry) => (entry.includes('/') ? ipaddr.parseCIDR(entry) : single(entry))));
  }

  permits(ip: string): boolean {
    const host = ip.replace(/^\[|\]$/g, '');
    if (!ipaddr.isValid(host)) return false;
    let address = ipaddr.parse(host);
    if (address instanceof ipaddr.IPv6 && address.isIPv4MappedAddress()) address = address.toIPv4Address();
    if (this.allowed.some(([range, bits]) => range.kind() === address.kind() && address.match(range, bits)))
      return true;
    // IPv4-compatible IPv6 (::7f00:1) is classed unicast by ipaddr.js but carries an IPv4 address: never public.
    if (address instanceof ipaddr.IPv6 && address.match(IPV4_COMPATIBLE)) return false;
    return address.range() === 'unicast';
  }

  /** Whether `host` (a URL's hostname) is an IP literal at all, as opposed to a name to resolve. */
  static isLiteral(host: string): boolean {
    return ipaddr.isValid(host.replace(/^\[|\]$/g, ''));
  }
}

function single(address: string): Range {
  const parsed = ipaddr.parse(address);
  return [parsed, parsed.kind() === 'ipv4' ? 32 : 128];
}
