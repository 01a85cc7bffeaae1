import { PlatformError } from '../errors.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Strict UTF-8: invalid bytes are a 400, never silently replaced. */
export function decodeUtf8(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new PlatformError('BAD_REQUEST', 'Request body is not valid UTF-8');
  }
}

export function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    // Very deep nesting surfaces as a RangeError from the parser: still the client's input.
    const reason = error instanceof SyntaxError ? error.message : 'nesting too deep';
    throw new PlatformError('BAD_REQUEST', `Request body is not valid JSON: ${reason}`);
  }
}
