import { PlatformError } from '../kernel/errors.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The deepest nesting of arrays and objects a JSON body may have. GitHub payloads nest about
 * ten levels; anything past this is refused (400) before parsing, because deeper values cannot
 * be serialized again (`JSON.stringify` recurses) and would fail every later read.
 */
export const MAX_JSON_DEPTH = 128;

/** Strict UTF-8: invalid bytes are a 400, never silently replaced. */
export function decodeUtf8(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new PlatformError('BAD_REQUEST', 'Request body is not valid UTF-8');
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/**
 * Whether `text` opens more than `maxDepth` nested arrays or objects. One pass, no recursion:
 * brackets inside strings are skipped (string bodies are jumped over with `indexOf`). Malformed
 * text is left for `JSON.parse` to report.
 */
export function jsonNestingExceeds(text: string, maxDepth: number): boolean {
  let depth = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      // Jump to the closing quote: one not preceded by an odd run of backslashes.
      let from = i + 1;
      for (;;) {
        const quote = text.indexOf('"', from);
        if (quote < 0) return false;
        let backslash = quote - 1;
        while (backslash >= from && text.charCodeAt(backslash) === BACKSLASH) backslash--;
        if ((quote - 1 - backslash) % 2 === 0) {
          i = quote;
          break;
        }
        from = quote + 1;
      }
    } else if (code === OPEN_ARRAY || code === OPEN_OBJECT) {
      if (++depth > maxDepth) return true;
    } else if (code === CLOSE_ARRAY || code === CLOSE_OBJECT) {
      depth--;
    }
  }
  return false;
}

/**
 * Parses a JSON body: 400 for malformed JSON, and for nesting deeper than `maxDepth` (default
 * {@link MAX_JSON_DEPTH}), checked before parsing. Lone surrogates written as `\uD800` escapes
 * are kept as they are.
 */
export function parseJsonText(text: string, maxDepth: number = MAX_JSON_DEPTH): unknown {
  if (jsonNestingExceeds(text, maxDepth)) {
    throw new PlatformError('BAD_REQUEST', `Request body JSON is nested deeper than ${maxDepth} levels`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    // Very deep nesting surfaces as a RangeError from the parser: still the client's input.
    const reason = error instanceof SyntaxError ? error.message : 'nesting too deep';
    throw new PlatformError('BAD_REQUEST', `Request body is not valid JSON: ${reason}`);
  }
}
