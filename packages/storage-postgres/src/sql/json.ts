/**
 * Records are stored whole, as `jsonb`, and read back as JSON text parsed here — so every record
 * returned is a fresh object, and nothing a caller holds aliases what is stored.
 *
 * JSON strings may hold characters PostgreSQL cannot: `jsonb` refuses U+0000 and lone surrogates
 * (the escapes `\u0000`, `\ud800`: "unsupported Unicode escape sequence"), and a `text` value
 * cannot hold them at all (they are not valid UTF-8). Yet agent output, webhook payloads and
 * names typed by users may carry them. So every string stored is escaped, reversibly, with the
 * noncharacter U+FFFF (next to never seen) as the mark:
 *
 * | in the string                       | stored as                        |
 * | ----------------------------------- | -------------------------------- |
 * | U+FFFF                              | U+FFFF U+FFFF                    |
 * | U+0000                              | U+FFFF "0"                       |
 * | a lone surrogate U+D800 ... U+DFFF  | U+FFFF and its four lower-case hex digits, e.g. U+FFFF "d800" |
 *
 * A mark is always followed by another mark, "0", "d" or "j" (below), so reading back is one
 * left-to-right pass with no ambiguity: a string that itself contains U+FFFF followed by "0" is
 * stored as U+FFFF U+FFFF "0". A lone surrogate is a high one (U+D800-U+DBFF) not followed by a
 * low one (U+DC00-U+DFFF), or a low one not preceded by a high one; a proper pair is stored as
 * it is. Strings without any of these characters — nearly all of them — are stored unchanged,
 * and `JSON.stringify`'s text as it is.
 *
 * The same escaping applies to the `text` columns (ids, org and user ids, sources, keys) and to
 * every parameter compared with them ({@link toText}): it is exactly what `data->>'field'` yields
 * for a string stored in `data`, so a column derived from `data` in SQL matches a parameter
 * escaped here, a lookup by a key with U+0000 or a lone surrogate finds the record stored under
 * that key (and nothing else) instead of failing, and values read from a column are restored with
 * {@link fromText}.
 *
 * Nesting: PostgreSQL parses `jsonb` recursively (PGlite, on a small WASM stack, breaks at a few
 * thousand levels), and `JSON.stringify` overflows the stack at a few thousand too. So an array or
 * object nested deeper than {@link MAX_JSONB_DEPTH} is kept as a string: U+FFFF "j" followed by its
 * JSON text, restored in place when read. Such text is written without recursion, and
 * `JSON.parse` reads any depth, so whatever was stored reads back.
 * @module
 */

const MARK = '\uffff';

/**
 * Arrays and objects deeper than this (the value given to {@link toJsonb} being level 1) are
 * kept in `jsonb` as strings of their JSON text. Deeper than any record needs, far below what
 * PostgreSQL and PGlite parse.
 */
export const MAX_JSONB_DEPTH = 512;

/** Characters a string cannot be stored with as they are. */
const UNSAFE_CHARACTER = /[\u0000\ud800-\udfff\uffff]/;
/** The characters that are escaped: the mark, U+0000 and lone surrogates (proper pairs stay). */
const UNSAFE_CHARACTERS = /\uffff|\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
/** An escape in a stored string. */
const STORED_ESCAPES = /\uffff(\uffff|0|d[89a-f][0-9a-f]{2})/g;

/**
 * `value` as it is stored in a `text` column or passed as a parameter compared with one: what
 * `data->>'field'` gives for the string stored in `data`. Unchanged for ordinary strings.
 */
export function toText(value: string): string {
  if (!UNSAFE_CHARACTER.test(value)) return value;
  return value.replace(UNSAFE_CHARACTERS, escapeCharacter);
}

/** The string a `text` column (or `data->>'field'`) holds, restored. */
export function fromText(stored: string): string {
  if (!stored.includes(MARK)) return stored;
  return stored.replace(STORED_ESCAPES, (_, code: string) => (code === MARK ? MARK : code === '0' ? '\u0000' : String.fromCharCode(Number.parseInt(code, 16))));
}

function escapeCharacter(character: string): string {
  if (character === MARK) return MARK + MARK;
  if (character === '\u0000') return `${MARK}0`;
  return MARK + character.charCodeAt(0).toString(16);
}

/**
 * In JSON text, the escape of U+0000 or of a surrogate: `JSON.stringify` writes U+0000 and lone
 * surrogates (never proper pairs) that way, in lower case. Only an odd run of backslashes before
 * "u" makes an escape; an even run is escaped backslashes followed by plain text.
 */
const JSON_ESCAPES = /(\\+)u(0000|d[89a-f][0-9a-f]{2})/g;

/** JSON text as stored: its strings escaped. Unchanged unless it has the mark or a `\u` escape. */
function escapeJsonText(text: string): string {
  const marked = text.includes(MARK);
  if (!marked && !text.includes('\\u')) return text;
  return (marked ? text.replace(/\uffff/g, MARK + MARK) : text).replace(JSON_ESCAPES, (match, slashes: string, code: string) =>
    slashes.length % 2 === 1 ? `${slashes.slice(0, -1)}${MARK}${code === '0000' ? '0' : code}` : match,
  );
}

/** JSON text of `value`, ready to be cast to `jsonb`. */
export function toJsonb(value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value) as string | undefined;
  } catch (error) {
    // Nested too deep for `JSON.stringify`'s recursion (a cycle or a BigInt is a TypeError).
    if (!(error instanceof RangeError)) throw error;
    return serialize(value, MAX_JSONB_DEPTH, true);
  }
  if (text === undefined) throw new TypeError('The value has no JSON representation');
  // Cheap necessary conditions first: each level takes two characters and an opening bracket.
  if (text.length > 2 * MAX_JSONB_DEPTH && openingBracketsExceed(text, MAX_JSONB_DEPTH) && deeperThan(text, MAX_JSONB_DEPTH)) {
    return serialize(value, MAX_JSONB_DEPTH, true);
  }
  return escapeJsonText(text);
}

/** Whether `text` has more than `limit` of "[" and "{" in all, inside strings or not. */
function openingBracketsExceed(text: string, limit: number): boolean {
  let count = 0;
  for (let at = text.indexOf('{'); at !== -1; at = text.indexOf('{', at + 1)) if (++count > limit) return true;
  for (let at = text.indexOf('['); at !== -1; at = text.indexOf('[', at + 1)) if (++count > limit) return true;
  return false;
}

/** An escape in stored JSON text: the mark and what follows it. */
const JSONB_ESCAPES = /\uffff(\uffff|0|j|d[89a-f][0-9a-f]{2})/g;

/** The value of JSON text read back from a `jsonb` column (cast to text). */
export function fromJsonb<T>(text: string): T {
  if (!text.includes(MARK)) return JSON.parse(text) as T;
  return JSON.parse(restoreJsonText(text)) as T;
}

/** Stored JSON text back to standard JSON text, in one pass. */
function restoreJsonText(text: string): string {
  let out = '';
  let from = 0;
  const escapes = new RegExp(JSONB_ESCAPES);
  for (let match = escapes.exec(text); match !== null; match = escapes.exec(text)) {
    const at = match.index;
    const code = match[1] as string;
    if (code === 'j') {
      // `"` mark "j" <the subtree's JSON text, as a string's content> `"`: the subtree in place of the string.
      const end = closingQuote(text, at + 2);
      out += text.slice(from, at - 1) + (JSON.parse(`"${fromText(text.slice(at + 2, end))}"`) as string);
      from = end + 1;
      escapes.lastIndex = from;
    } else {
      out += text.slice(from, at) + (code === MARK ? MARK : code === '0' ? '\\u0000' : `\\u${code}`);
      from = at + 1 + code.length;
    }
  }
  return out + text.slice(from);
}

/** The index of the `"` that ends the JSON string whose content starts at `start`. */
function closingQuote(text: string, start: number): number {
  let quote = text.indexOf('"', start);
  while (quote !== -1 && escapedAt(text, quote)) quote = text.indexOf('"', quote + 1);
  if (quote === -1) throw new SyntaxError('Unterminated string in stored JSON');
  return quote;
}

/** Whether the character at `index` follows an odd run of backslashes. */
function escapedAt(text: string, index: number): boolean {
  let slash = index - 1;
  while (slash >= 0 && text.charCodeAt(slash) === 0x5c) slash -= 1;
  return (index - 1 - slash) % 2 === 1;
}

/** Whether JSON text (as `JSON.stringify` writes it: no white space) nests deeper than `limit`. */
export function deeperThan(text: string, limit: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code === 0x22) {
      // Over the string at once.
      i = closingQuote(text, i + 1);
    } else if (code === 0x5b || code === 0x7b) {
      depth += 1;
      if (depth > limit) return true;
    } else if (code === 0x5d || code === 0x7d) {
      depth -= 1;
    }
  }
  return false;
}

interface Frame {
  readonly value: object;
  /** An object's keys; `undefined` for an array. */
  readonly keys: readonly string[] | undefined;
  /** The index of the next element or key. */
  next: number;
  /** Whether a member was written yet (a comma goes before the next). */
  wrote: boolean;
}

/** Objects `JSON.stringify` writes as primitives. */
function isBoxed(value: object): boolean {
  return value instanceof Number || value instanceof String || value instanceof Boolean || value instanceof BigInt;
}

/**
 * `JSON.stringify(value)` without recursion, so any depth is written: the same text, except that
 * arrays and objects deeper than `wrapBelow` levels become strings of their JSON text after the
 * mark and "j", and — when `escapeStrings` is set — strings are escaped as stored.
 */
function serialize(root: unknown, wrapBelow: number, escapeStrings: boolean): string {
  const out: string[] = [];
  const stack: Frame[] = [];
  const ancestors = new Set<object>();
  const string = (text: string): string => (escapeStrings ? escapeJsonText(JSON.stringify(text)) : JSON.stringify(text));

  /** Writes `value` (of `key`); opens a frame for an array or object. False when nothing was written. */
  const write = (key: string, raw: unknown): boolean => {
    let value = raw;
    if ((typeof value === 'object' && value !== null) || typeof value === 'bigint') {
      const toJSON = (value as { toJSON?: unknown }).toJSON;
      if (typeof toJSON === 'function') value = toJSON.call(value, key) as unknown;
    }
    if (typeof value === 'string') {
      out.push(string(value));
      return true;
    }
    if (typeof value !== 'object' || value === null || isBoxed(value)) {
      // Numbers, booleans, null, boxed primitives (a BigInt throws, as with `JSON.stringify`);
      // nothing for functions, symbols and undefined.
      const text = JSON.stringify(value) as string | undefined;
      if (text === undefined) return false;
      out.push(escapeStrings ? escapeJsonText(text) : text);
      return true;
    }
    if (stack.length >= wrapBelow) {
      out.push(`"${MARK}j${escapeJsonText(JSON.stringify(serialize(value, Number.POSITIVE_INFINITY, false))).slice(1)}`);
      return true;
    }
    if (ancestors.has(value)) throw new TypeError('Converting circular structure to JSON');
    ancestors.add(value);
    const keys = Array.isArray(value) ? undefined : Object.keys(value);
    out.push(keys === undefined ? '[' : '{');
    stack.push({ value, keys, next: 0, wrote: false });
    return true;
  };

  if (!write('', root)) throw new TypeError('The value has no JSON representation');
  while (stack.length > 0) {
    const frame = stack[stack.length - 1] as Frame;
    const { value, keys } = frame;
    if (keys === undefined) {
      const array = value as unknown[];
      if (frame.next >= array.length) {
        out.push(']');
        ancestors.delete(value);
        stack.pop();
        continue;
      }
      const index = frame.next;
      frame.next += 1;
      if (frame.wrote) out.push(',');
      frame.wrote = true;
      if (!write(String(index), array[index])) out.push('null');
    } else {
      if (frame.next >= keys.length) {
        out.push('}');
        ancestors.delete(value);
        stack.pop();
        continue;
      }
      const key = keys[frame.next] as string;
      frame.next += 1;
      const member = (value as Record<string, unknown>)[key];
      const mark = out.length;
      if (frame.wrote) out.push(',');
      out.push(`${string(key)}:`);
      if (write(key, member)) frame.wrote = true;
      else out.length = mark;
    }
  }
  return out.join('');
}
