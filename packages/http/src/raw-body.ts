/**
 * A route's answer that is not JSON: text or bytes sent as they are, with their media type (a
 * conversation's zip, a workspace file's text). A route returns one as its result's `body`, and
 * {@link jsonResponse} sends it untouched instead of serializing it.
 * @module
 */

export class RawBody {
  /**
   * @param content - The body: text (sent as UTF-8) or bytes.
   * @param contentType - Its `content-type`, e.g. `application/zip`.
   * @param headers - More headers (`content-disposition`, ...), names in lower case.
   */
  constructor(
    readonly content: string | Uint8Array,
    readonly contentType: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {}
}

/** `content-disposition: attachment` with `filename` (kept to safe characters). */
export function attachment(filename: string): string {
  return `attachment; filename="${filename.replace(/[^A-Za-z0-9_.-]/g, '_')}"`;
}
