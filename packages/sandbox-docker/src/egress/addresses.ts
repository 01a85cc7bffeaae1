/**
 * Where the egress proxy connects: it resolves names itself (the sandbox has no resolver) and
 * keeps away from the host's own networks — loopback, private, link-local, carrier-grade NAT,
 * unspecified and multicast addresses — unless the allowlist names that exact host (an IP or a
 * name, never a wildcard): a sandbox allowed `*.example.com` must not reach the host's
 * metadata service through a name that resolves to 169.254.169.254.
 * @module
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

const internal = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['224.0.0.0', 3],
] as const) {
  internal.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  internal.addSubnet(network, prefix, 'ipv6');
}

/** Whether an address is one of the host's own networks' (IPv4-mapped IPv6 addresses included). */
export function isInternalAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return internal.check(mapped[1], 'ipv4');
  const family = isIP(address);
  if (family === 0) return true;
  return internal.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** The addresses to try for `host`, the first allowed first; `[]` with the reason when none may be reached. */
export async function addressesFor(host: string, mayBeInternal: boolean): Promise<{ addresses: string[]; reason: string | null }> {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  let all: string[];
  if (isIP(bare)) all = [bare];
  else {
    try {
      all = (await lookup(bare, { all: true, verbatim: true })).map((entry) => entry.address);
    } catch {
      return { addresses: [], reason: `${host} could not be resolved` };
    }
  }
  const addresses = mayBeInternal ? all : all.filter((address) => !isInternalAddress(address));
  if (addresses.length === 0) return { addresses, reason: `${host} resolves to an internal address, reachable only when listed exactly` };
  return { addresses, reason: null };
}
