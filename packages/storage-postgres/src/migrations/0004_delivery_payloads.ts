/**
 * A delivery's payload in a column of its own, as text, instead of a string inside `data`.
 *
 * Ingest writes ~25 KB payloads hundreds of times a second, and reads them back only for a replay
 * or a delivery's page. Inside `jsonb` each payload was escaped into a JSON string by the
 * adapter, parsed by the server and compressed with pglz. As `text` it is sent as it is and
 * stored without parsing; compressed with lz4 where the server has it (PostgreSQL 14+ built with
 * lz4, as the distributions ship it; not PGlite, which keeps pglz) — several times cheaper than
 * pglz for about the same size.
 *
 * `toast_tuple_target` is raised to nearly a page, so a delivery whose compressed row fits (a 21 KB
 * GitHub payload is about 2.6 KB with lz4) stays in its heap page instead of being cut into TOAST
 * chunks: one heap tuple and its index entries per delivery instead of three or four more, each
 * with its WAL record.
 *
 * Rows written before keep their payload in `data` (the column is NULL); reads take the column
 * when it is set, so both kinds read the same.
 * @module
 */
import type { Migration } from './migration.js';

export const deliveryPayloadsMigration: Migration = {
  version: 4,
  name: 'delivery_payloads',
  sql: /* sql */ `
ALTER TABLE agent_platform.deliveries ADD COLUMN payload text;
ALTER TABLE agent_platform.deliveries SET (toast_tuple_target = 8160);
DO $$
BEGIN
  ALTER TABLE agent_platform.deliveries ALTER COLUMN payload SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  NULL; -- built without lz4: the default (pglz) stays
END $$;
`,
};
