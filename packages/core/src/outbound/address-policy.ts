/**
 * Which network addresses the platform may send outbound events to (server-side request
 * forgery): only public unicast ones, unless the host lets subscribers reach private
 * networks (`outbound.allowPrivateAddresses`, e.g. for a subscriber on the same machine in
 * development). Loopback, link-local (cloud metadata at 169.254.169.254), private, carrier-grade
 * NAT, multicast, unspecified and reserved ranges are refused, for IPv4 and IPv6 alike, an IPv4
 * address written as IPv6 (`::ffff:127.0.0.1`) included.
 * @module
 */
import ipaddr from 'ipaddr.js';

/** Why `address` (an IP literal) may not be reached, or `null` when it may. */
export function blockedAddressReason(address: string): string | null {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // `process` turns an IPv4-mapped IPv6 address into the IPv4 address it carries.
    parsed = ipaddr.process(address);
  } catch {
    return `"${address}" is not an IP address`;
  }
  const range = parsed.range();
  return range === 'unicast' ? null : `${parsed.toString()} is a ${describe(range)} address`;
}

function describe(range: string): string {
  switch (range) {
    case 'loopback':
      return 'loopback';
    case 'private':
    case 'uniqueLocal':
      return 'private';
    case 'linkLocal':
      return 'link-local';
    case 'carrierGradeNat':
      return 'shared (carrier-grade NAT)';
    default:
      return `non-public (${range})`;
  }
}

/** Whether `hostname` names this machine without being an address (`localhost`, `*.localhost`). */
export function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/** The IP literal a URL's hostname holds (IPv6 without its brackets), or `null` for a name. */
export function ipLiteralOf(hostname: string): string | null {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return ipaddr.isValid(bare) ? bare : null;
}

/**
 * Why a subscriber URL may not be used, judged from the URL alone (at save): a `localhost` name
 * or a literal address that is not public. Names are checked again when each message is sent,
 * against every address they resolve to.
 */
export function subscriberUrlRefusal(url: string, allowPrivate: boolean): string | null {
  if (allowPrivate) return null;
  const { hostname } = new URL(url);
  if (isLocalhostName(hostname)) return `${hostname} is this machine (loopback)`;
  const literal = ipLiteralOf(hostname);
  return literal === null ? null : blockedAddressReason(literal);
}
