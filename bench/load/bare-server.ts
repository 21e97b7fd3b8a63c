/**
 * The ceiling of our own HTTP stack: fastify with the same body handling as the service (the body taken as a
 * Buffer) and a route at the same path that JSON.parses it and answers 201 with a body of similar size. No
 * logging, no auth, no store: whatever the service spends beyond this is the intake's own cost.
 * Forked by the rest benchmark; it reports its port over IPC and stops on SIGTERM.
 */
import Fastify from 'fastify';
import { bareReply } from './bare-reply.ts';

const app = Fastify({ logger: false, bodyLimit: 5 * 1024 * 1024 });
app.removeAllContentTypeParsers();
app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
let n = 0;
app.post('/api/v1/ordini', async (req, reply) => {
  const order = JSON.parse((req.body as Buffer).toString('utf8')) as { riferimento_ordine?: unknown };
  n++;
  return reply.code(201).header('location', `/api/v1/ordini/${n}`).send(bareReply(n, order.riferimento_ordine));
});

await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
process.send!({ port: typeof address === 'object' && address ? address.port : 0 });
process.once('SIGTERM', () => {
  void app.close().then(() => process.exit(0));
});
