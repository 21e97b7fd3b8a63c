/**
 * Webhooks that are failing: deliveries given up (failed) or being retried (pending after at least one attempt), per
 * webhook, read through the hand-off store's own methods (listSubscribers, listDeliveries). The dashboard's card
 * counts them; /console/webhook lists them. Replaying stays with `order-intake webhook replay`.
 */
import type { FastifyInstance } from 'fastify';
import type { DeliverySummary, Subscriber } from '../../../domain/store/handoff.ts';
import type { WebContext } from '../context.ts';
import { consolePage } from './page.ts';

/** Deliveries read per webhook and state: the page is for noticing and acting, the CLI lists the rest. */
const PER_STATE = 100;

export interface FailingWebhook {
  subscriber: Subscriber;
  failed: DeliverySummary[];
  retrying: DeliverySummary[];
}

export async function failingWebhooks(ctx: WebContext): Promise<{ webhooks: FailingWebhook[]; failed: number; retrying: number }> {
  const subs = await ctx.store.listSubscribers({ kind: 'webhook' });
  const webhooks = await Promise.all(subs.map(async (subscriber): Promise<FailingWebhook> => {
    const [failed, pending] = await Promise.all([
      ctx.store.listDeliveries({ subscriberId: subscriber.id, state: 'failed', limit: PER_STATE }),
      ctx.store.listDeliveries({ subscriberId: subscriber.id, state: 'pending', limit: PER_STATE }),
    ]);
    return { subscriber, failed, retrying: pending.filter((d) => d.attempts > 0) };
  }));
  const troubled = webhooks.filter((w) => w.failed.length + w.retrying.length > 0 || w.subscriber.state === 'disabled');
  return {
    webhooks: troubled,
    failed: troubled.reduce((n, w) => n + w.failed.length, 0),
    retrying: troubled.reduce((n, w) => n + w.retrying.length, 0),
  };
}

export function registerWebhookRoutes(app: FastifyInstance, ctx: WebContext): void {
  app.get('/webhook', async (req, reply) => {
    const data = await failingWebhooks(ctx);
    return consolePage(ctx, req, reply, 'console/webhooks.eta', { title: 'Webhook in errore', nav: 'dashboard', perState: PER_STATE, ...data });
  });
}
