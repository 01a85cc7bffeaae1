import { randomFillSync } from 'node:crypto';

/** Injectable ids. `prefix` names the record kind (`wh`, `key`, ...). */
export interface IdGenerator {
  newId(prefix: string): string;
}

/** Random bytes drawn 4 KB at a time: one call into the system's generator per 256 ids. */
const pool = Buffer.alloc(4096);
let pooled = pool.length;

/**
 * A UUID version 7 (RFC 9562) as 32 hex digits: the first 48 bits are the Unix time in
 * milliseconds, the rest random (74 bits, plus the version and variant). Ids made later sort
 * later, so a database's index on them grows at its end instead of at random pages — which is
 * what every delivery, run and message id costs a B-tree insert with random (version 4) ids.
 */
export function uuidV7Hex(now: number = Date.now()): string {
  if (pooled + 16 > pool.length) {
    randomFillSync(pool);
    pooled = 0;
  }
  const bytes = Buffer.from(pool.subarray(pooled, pooled + 16));
  pooled += 16;
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x70;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  return bytes.toString('hex');
}

/**
 * Ids such as `wh_01936b2f...`: a UUID version 7 without dashes, so ids
 * of one kind sort by creation time.
 */
export const randomIdGenerator: IdGenerator = {
  newId: (prefix) => `${prefix}_${uuidV7Hex()}`,
};
