/**
 * Reading the Docker Engine's error answers.
 * @module
 */

/** The HTTP status of a Docker Engine API error (dockerode puts it on `statusCode`). */
export function dockerStatus(error: unknown): number | undefined {
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === 'number' ? status : undefined;
}

/** The engine's own message (`{"message": ...}`), or the error's. */
export function dockerMessage(error: unknown): string {
  const json = (error as { json?: { message?: unknown } } | null)?.json;
  if (json && typeof json.message === 'string') return json.message;
  return error instanceof Error ? error.message : String(error);
}

export const isNotFound = (error: unknown): boolean => dockerStatus(error) === 404;
export const isConflict = (error: unknown): boolean => dockerStatus(error) === 409;
