/**
 * A DNS lookup for outbound requests that refuses names resolving to addresses the platform may
 * not reach (see `address-policy.ts`). It is handed to the socket as its `lookup`, so the
 * address checked is the address connected to: a name cannot pass the check with one answer and
 * then connect to another (DNS rebinding).
 * @module
 */
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { blockedAddressReason } from './address-policy.js';

/** Raised (as the connection's error) when a name resolves to an address that may not be reached. */
export class BlockedAddressError extends Error {
  override readonly name = 'BlockedAddressError';
}

/** `lookup` for `http.request`: every address a name resolves to must be public. */
export const guardedLookup: LookupFunction = (hostname, options, callback) => {
  const all: LookupAllOptions = { ...(typeof options === 'object' ? options : {}), all: true };
  dnsLookup(hostname, all, (error, addresses: LookupAddress[]) => {
    if (error) {
      callback(error, '', 0);
      return;
    }
    // All of them: a name that resolves to one public and one private address is refused.
    for (const entry of addresses) {
      const reason = blockedAddressReason(entry.address);
      if (reason !== null) {
        callback(new BlockedAddressError(`${hostname} resolves to ${reason}`), '', 0);
        return;
      }
    }
    const first = addresses[0];
    if (!first) {
      callback(new Error(`${hostname} has no address`), '', 0);
      return;
    }
    if (typeof options === 'object' && options.all) (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
    else callback(null, first.address, first.family);
  });
};
