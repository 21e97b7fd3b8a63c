/**
 * The ceiling PostgreSQL itself allows for one durable row per request: fastify with the service's body handling
 * and a route that INSERTs the JSON body as one row through a `pg` Pool of the service's size (10), with the
 * server's own synchronous_commit (on: each request waits for its commit's WAL flush), then answers 201. No
 * validation, no numbering, no outbox: a store that batches several orders per round trip and flush can beat it.
 * Forked by the rest-pg benchmark with BARE_PG_URL (schema in its search_path); it creates its table, reports its
 * port over IPC and stops on SIGTERM.
 */
import Fastify from 'fastify';
import { bareReply } from './bare-reply.ts';
import pg from 'pg';

const url = process.env.BARE_PG_URL;
if (!url) throw new Error('BARE_PG_URL is not set');
const pool = new pg.Pool({ connectionString: url, max: 10 });
await pool.query('CREATE TABLE IF NOT EXISTS bare_orders (id bigserial PRIMARY KEY, body jsonb NOT NULL)');

const app = Fastify({ logger: false, bodyLimit: 5 * 1024 * 1024 });
app.removeAllContentTypeParsers();
app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
app.post('/api/v1/ordini', async (req, reply) => {
  const text = (req.body as Buffer).toString('utf8');
  const order = JSON.parse(text) as { riferimento_ordine?: unknown };
  const { rows } = await pool.query<{ id: string }>('INSERT INTO bare_orders (body) VALUES ($1) RETURNING id', [text]);
  const n = Number(rows[0]!.id);
  return reply.code(201).header('location', `/api/v1/ordini/${n}`).send(bareReply(n, order.riferimento_ordine));
});

await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
process.send!({ port: typeof address === 'object' && address ? address.port : 0 });
process.once('SIGTERM', () => {
  void app.close().then(() => pool.end()).then(() => process.exit(0));
});
