/**
 * Hostile building blocks: strings with NUL, control characters, lone surrogates and huge
 * lengths; path segments and query values encoded every wrong way (invalid percent-encodings,
 * percent-encoded surrogates, raw bytes); JSON number tokens JavaScript cannot hold.
 *
 * Every arbitrary lists its benign choice first and is built with `withCrossShrink`, so that
 * fast-check shrinks a failing request towards the ordinary one and keeps only the mutation
 * that matters.
 * @module
 */
import fc from 'fast-check';

export interface Tagged<T> {
  value: T;
  /** What kind of mutation this is, for statistics and for grouping findings. */
  tag: string;
}

export const tagged = <T>(tag: string, arbitrary: fc.Arbitrary<T>): fc.Arbitrary<Tagged<T>> => arbitrary.map((value) => ({ value, tag }));

/** `fc.oneof` that shrinks towards its first choice. */
export const choice = <T>(...arbitraries: Array<fc.Arbitrary<T> | fc.WeightedArbitrary<T>>): fc.Arbitrary<T> =>
  fc.oneof({ withCrossShrink: true }, ...arbitraries);

/** UTF-8, except that a lone surrogate is written as its own 3-byte sequence (WTF-8), as a careless client would. */
export function wtf8(text: string): Buffer {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    const next = text.charCodeAt(i + 1);
    if (unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      const point = 0x10000 + ((unit - 0xd800) << 10) + (next - 0xdc00);
      bytes.push(0xf0 | (point >> 18), 0x80 | ((point >> 12) & 63), 0x80 | ((point >> 6) & 63), 0x80 | (point & 63));
      i++;
    } else if (unit < 0x80) bytes.push(unit);
    else if (unit < 0x800) bytes.push(0xc0 | (unit >> 6), 0x80 | (unit & 63));
    else bytes.push(0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 63), 0x80 | (unit & 63));
  }
  return Buffer.from(bytes);
}

/** Percent-encodes every byte outside the unreserved set. */
export function percentEncode(bytes: Buffer): string {
  let out = '';
  for (const byte of bytes) {
    out += /[A-Za-z0-9\-._~]/.test(String.fromCharCode(byte)) ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

const SPECIAL = [
  '',
  ' ',
  '.',
  '..',
  '../../etc/passwd',
  '__proto__',
  'constructor',
  'prototype',
  "' OR '1'='1",
  '"; DROP TABLE x; --',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal `${…}` on purpose: the Log4Shell-style lookup string is one of the hostile inputs
  '${jndi:ldap://x}',
  '{{7*7}}',
  '\\',
  '/',
  'null',
  'undefined',
  'NaN',
  '-1',
  '0',
  '1e400',
  '0x10',
  '\u202e\u2066rtl',
  '\ufeffbom',
  '\u200b',
  '\r\n',
  'a\r\nX-Injected: 1',
  '💥',
  'ＡＢＣ',
  '\u{10ffff}',
  '\uffff',
];

// fast-check indexes every code point when a `binary` string arbitrary is built (about 0.1 s
// each): build them once.
const binary1to20 = fc.string({ minLength: 1, maxLength: 20, unit: 'binary' });
const binary1to8 = fc.string({ minLength: 1, maxLength: 8, unit: 'binary' });
const memo = new Map<string, fc.Arbitrary<unknown>>();
const memoized = <T>(key: string, build: () => fc.Arbitrary<T>): fc.Arbitrary<T> => {
  if (!memo.has(key)) memo.set(key, build());
  return memo.get(key) as fc.Arbitrary<T>;
};

/** A string to put where a name, an id or a value is expected. */
export function hostileString(long = 10_000): fc.Arbitrary<Tagged<string>> {
  return memoized(`hostile:${long}`, () =>
    choice(
      tagged('plain', fc.string({ minLength: 1, maxLength: 12, unit: 'grapheme-ascii' })),
      tagged('special', fc.constantFrom(...SPECIAL)),
      tagged('nul', fc.constantFrom('\u0000', 'a\u0000b', `${'x'.repeat(5)}\u0000`, '\u0000'.repeat(8))),
      tagged('control', fc.string({ minLength: 1, maxLength: 8, unit: fc.integer({ min: 0, max: 31 }).map((code) => String.fromCharCode(code)) })),
      tagged('lone-surrogate', fc.constantFrom('\ud800', 'a\udfffb', '\udc00\ud800', '\ud83d', 'x\udbff')),
      tagged('unicode', binary1to20),
      tagged('long', fc.constantFrom('a'.repeat(long), 'é'.repeat(long >> 1), '💥'.repeat(long >> 2), '\u0000'.repeat(long))),
    ),
  );
}

export interface Segment {
  /** The bytes as written in the request-target. */
  wire: Buffer;
  tag: string;
}

const BAD_PERCENT = ['%FF', '%E0%A4%A', '%ED%A0%80', '%', '%G1', '%C0%AF', '%F4%90%80%80', 'abc%FFdef', '%00', '%2F', '%2e%2e', '%25', '%u0041', '%ff%fe'];

/** Stands for the n-th id (with this prefix) seen in the server's answers so far; resolved when sent. */
export const harvestMarker = (prefix: string, n: number) => `{{harvest:${prefix}:${n}}}`;
export const HARVEST_MARKER = /\{\{harvest:([a-z]+):(\d+)\}\}/g;

/**
 * A path segment (or query value): a real id (a fixture's, or with `harvestPrefix` one the
 * server handed out during the run), a plausible one, or hostile in encoding or content.
 */
export function segment(known: string[], long = 10_000, harvestPrefix?: string): fc.Arbitrary<Segment> {
  const ascii = (tag: string, arbitrary: fc.Arbitrary<string>) => arbitrary.map((text) => ({ wire: Buffer.from(text, 'latin1'), tag }));
  return memoized(`segment:${long}:${known.join(',')}:${harvestPrefix ?? ''}`, () =>
    choice(
      ...(known.length > 0 ? [{ weight: 8, arbitrary: ascii('id:known', fc.constantFrom(...known)) }] : []),
      ...(harvestPrefix
        ? [
            {
              weight: 8,
              arbitrary: ascii(
                'id:harvested',
                fc.nat(10_000).map((n) => harvestMarker(harvestPrefix, n)),
              ),
            },
          ]
        : []),
      { weight: 2, arbitrary: ascii('id:plausible', fc.stringMatching(/^[a-z]{2,5}_[0-9a-f]{32}$/)) },
      {
        weight: 4,
        arbitrary: hostileString(long).map(({ value, tag }) => ({ wire: Buffer.from(percentEncode(wtf8(value)), 'latin1'), tag: `id:encoded-${tag}` })),
      },
      { weight: 3, arbitrary: ascii('id:bad-percent', fc.constantFrom(...BAD_PERCENT)) },
      { weight: 1, arbitrary: binary1to8.map((text) => ({ wire: wtf8(text), tag: 'id:raw-utf8' })) },
      {
        weight: 1,
        arbitrary: fc.uint8Array({ minLength: 1, maxLength: 6, min: 0x80, max: 0xff }).map((bytes) => ({ wire: Buffer.from(bytes), tag: 'id:raw-high-bytes' })),
      },
      {
        weight: 1,
        arbitrary: fc
          .constantFrom('a\u0000b', 'a b', 'a\tb', 'a\u007fb', 'a"b', 'a<b>', 'a#b', 'a\\b')
          .map((text) => ({ wire: Buffer.from(text, 'latin1'), tag: 'id:raw-control' })),
      },
      { weight: 1, arbitrary: ascii('id:long', fc.constantFrom('a'.repeat(long), '%C3%A9'.repeat(long >> 1), `auto_${'0'.repeat(long)}`)) },
    ),
  );
}

/** JSON number tokens outside what a double holds, or at its edges. */
export const NUMBER_TOKENS = [
  '1e400',
  '-1e400',
  '1e-400',
  '-0',
  '9007199254740993',
  '123456789012345678901234567890',
  `1${'0'.repeat(10_000)}`,
  `0.${'0'.repeat(10_000)}1`,
  '1E+2',
  '0.1e1',
];

/** Raw JSON fragments that are not JSON at all. */
export const NOT_JSON_TOKENS = ['NaN', 'Infinity', 'undefined', "'single'", '0x1F', '01', '.5', '+1', '[1,]', '{"a":1,}', '/* c */1', 'tru', '"\u0001"'];
