/**
 * The egress allowlist: which hosts a sandbox's proxy connects to. Entries are exact host names
 * (`github.com`), wildcards for the subdomains of a name (`*.example.com`: `a.example.com` and
 * `b.a.example.com`, not `example.com` itself), or IP addresses (`127.0.0.1`, `[::1]`), each with
 * an optional `:port` (without one, any port). Names match case-insensitively, without a trailing
 * dot.
 * @module
 */
import { isIP } from 'node:net';
import { validationError } from '@agent-platform/core';

export interface AllowEntry {
  /** Lowercase; for a wildcard, the suffix without `*.`; an IPv6 address without brackets. */
  host: string;
  wildcard: boolean;
  /** `null`: any port. */
  port: number | null;
}

const LABEL = /^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$/;

function normalizeHost(host: string): string {
  return host.trim().toLowerCase().replace(/\.$/, '');
}

function isHostName(host: string): boolean {
  return host.length > 0 && host.length <= 253 && host.split('.').every((label) => LABEL.test(label));
}

/** One entry, parsed; a malformed one is VALIDATION_FAILED at `loc`. */
export function parseAllowEntry(text: string, loc: (string | number)[]): AllowEntry {
  const bad = () => validationError(loc, `"${text.slice(0, 100)}" is not a host: use a name (github.com), *.name, or an IP address, with an optional :port`);
  let rest = text.trim().toLowerCase();
  let port: number | null = null;
  const bracketed = /^\[([0-9a-f:.]+)\](?::(\d{1,5}))?$/.exec(rest);
  if (bracketed) {
    rest = bracketed[1] ?? '';
    if (bracketed[2]) port = Number(bracketed[2]);
    if (isIP(rest) !== 6) throw bad();
  } else if (isIP(rest) === 6) {
    // A bare IPv6 address: no port (its colons would be ambiguous).
  } else {
    const withPort = /^(.*):(\d{1,5})$/.exec(rest);
    if (withPort) {
      rest = withPort[1] ?? '';
      port = Number(withPort[2]);
    }
  }
  if (port !== null && (port < 1 || port > 65535)) throw bad();
  const wildcard = rest.startsWith('*.');
  const host = normalizeHost(wildcard ? rest.slice(2) : rest);
  if (!isIP(host) && !isHostName(host)) throw bad();
  if (wildcard && isIP(host)) throw bad();
  return { host, wildcard, port };
}

/** Several entries; `loc` names the list (each entry is `[...loc, index]`). */
export function parseAllowlist(entries: readonly string[], loc: (string | number)[]): AllowEntry[] {
  return entries.map((entry, index) => parseAllowEntry(entry, [...loc, index]));
}

/**
 * The entry that lets a connection to `host:port` through, or null. An exact entry is preferred
 * to a wildcard: only an exact one may lead to a private address (see `egress-proxy.ts`).
 */
export function matchAllowlist(list: readonly AllowEntry[], host: string, port: number): AllowEntry | null {
  const name = normalizeHost(host.replace(/^\[(.*)\]$/, '$1'));
  let found: AllowEntry | null = null;
  for (const entry of list) {
    if (entry.port !== null && entry.port !== port) continue;
    if (!entry.wildcard && entry.host === name) return entry;
    if (entry.wildcard && name.endsWith(`.${entry.host}`)) found ??= entry;
  }
  return found;
}

/** The entries in their written form, for a label and for messages. */
export function formatAllowlist(list: readonly AllowEntry[]): string[] {
  return list.map(({ host, wildcard, port }) => {
    const name = `${wildcard ? '*.' : ''}${isIP(host) === 6 && port !== null ? `[${host}]` : host}`;
    return port === null ? name : `${name}:${port}`;
  });
}
