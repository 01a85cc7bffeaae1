/**
 * UTF-8 decoding of one output stream, capped at a number of bytes.
 * @module
 */
import { StringDecoder } from 'node:string_decoder';

/**
 * Decodes chunks as they come: a multi-byte character split across chunks is held back until it
 * is complete. Bytes beyond `maxBytes` are dropped and {@link truncated} turns true; a character
 * cut by the limit is dropped whole, so the text never ends in a replacement character that the
 * command did not write.
 */
export class BoundedDecoder {
  private readonly decoder = new StringDecoder('utf8');
  private remaining: number;
  truncated = false;

  constructor(maxBytes: number) {
    this.remaining = maxBytes;
  }

  /** The text `chunk` completes; `''` when it completes nothing or is past the limit. */
  write(chunk: Buffer): string {
    if (chunk.length === 0) return '';
    if (this.remaining <= 0) {
      this.truncated = true;
      return '';
    }
    let accepted = chunk;
    if (chunk.length > this.remaining) {
      this.truncated = true;
      accepted = chunk.subarray(0, this.remaining);
    }
    this.remaining -= accepted.length;
    return this.decoder.write(accepted);
  }

  /** Whatever is held back at the end of the stream (an incomplete character decodes as U+FFFD). */
  end(): string {
    const rest = this.decoder.end();
    return this.truncated ? '' : rest;
  }
}
