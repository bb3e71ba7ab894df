import ipaddr from 'ipaddr.js';
import { AddressRanges, parseAddress } from './address-ranges.js';

/** `::/96`, the deprecated IPv4-compatible IPv6 addresses. */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96') as [ipaddr.IPv6, number];

/**
 * Which addresses a media fetch may connect to: public unicast ones, plus configured ranges (MEDIA_FETCH_ALLOW, for
 * a private asset server or the tests' loopback). Loopback, private, link-local (cloud metadata), carrier NAT,
 * unique-local, multicast and reserved addresses are refused, an IPv4-mapped IPv6 address (::ffff:127.0.0.1) is
 * judged as the IPv4 address it carries, and an IPv4-compatible one (::7f00:1) is refused.
 */
export class AddressPolicy {
  private constructor(private readonly allowed: AddressRanges) {}

  /** A comma-separated list of CIDR ranges or single addresses; empty allows nothing extra. */
  static parse(list: string): AddressPolicy {
    return new AddressPolicy(AddressRanges.parseList(list));
  }

  permits(ip: string): boolean {
    const address = parseAddress(ip);
    if (address === null) return false;
    if (this.allowed.includes(address)) return true;
    // IPv4-compatible IPv6 (::7f00:1) is classed unicast by ipaddr.js but carries an IPv4 address: never public.
    if (address instanceof ipaddr.IPv6 && address.match(IPV4_COMPATIBLE)) return false;
    return address.range() === 'unicast';
  }

  /** Whether `host` (a URL's hostname) is an IP literal at all, as opposed to a name to resolve. */
  static isLiteral(host: string): boolean {
    return parseAddress(host) !== null;
  }
}
