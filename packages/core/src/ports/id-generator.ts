import { randomUUID } from 'node:crypto';

/** Injectable ids. `prefix` names the record kind (`wh`, `key`, ...). */
export interface IdGenerator {
  newId(prefix: string): string;
}

/** Random ids such as `wh_3f0c...` (UUID v4 without dashes). */
export const randomIdGenerator: IdGenerator = {
  newId: (prefix) => `${prefix}_${randomUUID().replaceAll('-', '')}`,
};
