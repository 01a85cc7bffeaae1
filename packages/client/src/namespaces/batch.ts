/** The server takes at most this many ids per batch get. */
export const MAX_BATCH_IDS = 100;

/** A batch get over any number of ids: requests of at most 100, one after another, answers in order. */
export async function batched<T>(ids: readonly string[], fetchChunk: (chunk: string[]) => Promise<T[]>): Promise<T[]> {
  const results: T[] = [];
  for (let start = 0; start < ids.length; start += MAX_BATCH_IDS) {
    results.push(...(await fetchChunk(ids.slice(start, start + MAX_BATCH_IDS))));
  }
  return results;
}
