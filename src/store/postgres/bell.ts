/**
 * The hand-off bell on PostgreSQL: LISTEN/NOTIFY between the instances' dispatchers, so an order registered on one
 * instance is fanned out and delivered by whichever holds the fan-out lease at once, not at its next poll
 * (INTAKE_HANDOFF_POLL_MS), and deliveries queued by one are picked up by the others at once.
 *
 * One channel for the whole database; the payload names the schema (several services, or the tests' one schema per
 * test, may share a database) and the ringing instance (which does not wake itself). The listening connection is
 * outside the pool (a pooled connection would be handed to queries between notifications); when it is lost it is
 * opened again, and meanwhile the dispatchers' poll is the fallback: a ring is a hint, never the only way to hear.
 */
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { HandoffBell } from '../../domain/store/handoff.ts';

const CHANNEL = 'order_intake_handoff';
/** Wait before listening again after the connection was lost. */
const RECONNECT_MS = 1000;

export async function openPostgresBell(
  pool: pg.Pool, newClient: () => pg.Client, onRing: () => void, onError?: (err: Error) => void,
): Promise<HandoffBell> {
  const me = randomBytes(6).toString('hex');
  const { rows } = await pool.query<{ s: string }>('SELECT current_schema() AS s');
  const scope = rows[0]?.s ?? 'public';
  let closed = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;

  /** Listen again in a moment (once, however many ways the connection reported its loss). */
  function again(): void {
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      listen().catch((err: Error) => {
        onError?.(err);
        again();
      });
    }, RECONNECT_MS);
  }

  async function listen(): Promise<void> {
    const c = newClient();
    const lost = (err?: Error) => {
      if (err) onError?.(err);
      if (client !== c) return;
      client = undefined;
      c.removeAllListeners('notification');
      void c.end().catch(() => undefined);
      again();
    };
    client = c;
    c.on('error', lost);
    c.on('end', () => lost());
    c.on('notification', (n) => {
      const [schema, from] = (n.payload ?? '').split(' ');
      if (schema === scope && from !== me) onRing();
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${CHANNEL}`);
    } catch (err) {
      lost();
      throw err;
    }
  }

  // Not listening yet is no reason to refuse service: the poll still finds everything, and listen is tried again.
  await listen().catch((err: Error) => onError?.(err));

  return {
    ring() {
      if (closed) return;
      pool.query('SELECT pg_notify($1, $2)', [CHANNEL, `${scope} ${me}`]).catch((err: Error) => onError?.(err));
    },
    async close() {
      closed = true;
      clearTimeout(retry);
      const c = client;
      client = undefined;
      await c?.end().catch(() => undefined);
    },
  };
}
