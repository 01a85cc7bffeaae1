/**
 * The minimal durable GitHub receiver, as a careful team writes it by hand: Fastify with the body
 * read raw (a Buffer, for the signature), `X-Hub-Signature-256` checked with HMAC-SHA256 and
 * `crypto.timingSafeEqual`, then one autocommit INSERT of the delivery through a node-postgres
 * pool (`max: 10`, as a typical app) before it answers 202. PostgreSQL checks that the body is
 * JSON (the `jsonb` cast); a redelivery of a stored id is answered 202 again and stored once.
 * Nothing is matched: the deliveries wait in the table for whatever reads them.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';

export const DELIVERIES_TABLE = `CREATE TABLE IF NOT EXISTS deliveries (
  id text PRIMARY KEY,
  event text NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  payload jsonb NOT NULL
)`;

const INSERT = 'INSERT INTO deliveries (id, event, payload) VALUES ($1, $2, $3::jsonb) ON CONFLICT (id) DO NOTHING';

/** The receiver's Fastify app (not listening yet) on `databaseUrl`, its table created if missing. */
export async function durableReceiver(databaseUrl: string, path: string, secret: string) {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
  await pool.query(DELIVERIES_TABLE);
  const app = Fastify({ logger: false, bodyLimit: 25 * 1024 * 1024 });
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  app.addHook('onClose', async () => pool.end());
  app.post(path, async (request, reply) => {
    const body = request.body as Buffer;
    const signature = request.headers['x-hub-signature-256'];
    const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(body).digest('hex')}`);
    const given = typeof signature === 'string' ? Buffer.from(signature) : null;
    if (!given || given.length !== expected.length || !timingSafeEqual(given, expected)) return reply.code(401).send({ error: 'bad signature' });
    const event = request.headers['x-github-event'];
    const id = request.headers['x-github-delivery'];
    if (typeof event !== 'string' || !event || typeof id !== 'string' || !id)
      return reply.code(400).send({ error: 'missing X-GitHub-Event or X-GitHub-Delivery' });
    try {
      await pool.query(INSERT, [id, event, body.toString('utf8')]);
    } catch (error) {
      // 22P02: not JSON. Anything else (the database is down) is a 500, and GitHub redelivers.
      if ((error as { code?: string }).code === '22P02') return reply.code(400).send({ error: 'body is not JSON' });
      throw error;
    }
    return reply.code(202).send({ received: true });
  });
  return app;
}
