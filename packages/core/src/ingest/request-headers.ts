/** Request headers as Node gives them: names lower-cased, repeated headers as arrays. */
export type RequestHeaders = Record<string, string | string[] | undefined>;

/** The first value of a header (names compared lower-cased), or undefined. */
export function header(headers: RequestHeaders, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}
