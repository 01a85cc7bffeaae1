/**
 * Records are stored whole, as `jsonb`, and read back as JSON text parsed here — so every record
 * returned is a fresh object, and nothing a caller holds aliases what is stored.
 *
 * `jsonb` refuses U+0000 inside strings ("unsupported Unicode escape sequence"), yet agent output
 * and webhook payloads may carry it. So the text stored escapes it, reversibly: U+0000 becomes
 * U+FFFF followed by "0", and U+FFFF itself (a noncharacter, next to never seen) becomes U+FFFF
 * twice. Text without either character — nearly all of it — is stored exactly as
 * `JSON.stringify` wrote it.
 * @module
 */

const MARK = '\uffff';

/** JSON text of `value`, ready to be cast to `jsonb`. */
export function toJsonb(value: unknown): string {
  const text = JSON.stringify(value);
  if (!text.includes('\\u0000') && !text.includes(MARK)) return text;
  return (
    text
      .replace(/\uffff/g, MARK + MARK)
      // `JSON.stringify` writes U+0000 as the escape \u0000; an even run of backslashes before
      // "u0000" is escaped backslashes followed by plain text, and stays.
      .replace(/(\\+)u0000/g, (match, slashes: string) =>
        slashes.length % 2 === 1 ? `${slashes.slice(0, -1)}${MARK}0` : match,
      )
  );
}

/** The value of JSON text read back from a `jsonb` column (cast to text). */
export function fromJsonb<T>(text: string): T {
  if (!text.includes(MARK)) return JSON.parse(text) as T;
  return JSON.parse(text.replace(/\uffff([\uffff0])/g, (_, next: string) => (next === MARK ? MARK : '\\u0000'))) as T;
}
