/**
 * What every portal page shares: the logged-in customer and the page frame. Kept apart from routes.ts (which
 * registers the files next to it) so that those files import it without an import cycle.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { IntakeError } from '../../../domain/errors.ts';
import type { Principal } from '../../../domain/types.ts';
import type { Customer } from '../../../domain/store/store.ts';
import type { WebContext } from '../context.ts';
import { page, type PageData } from '../render.ts';

declare module 'fastify' {
  interface FastifyRequest {
    customer?: Customer;
  }
}

export function customerOf(req: FastifyRequest): Customer {
  if (!req.customer) throw new IntakeError('UNAUTHORIZED');
  return req.customer;
}

export function principalOf(req: FastifyRequest): Principal {
  const c = customerOf(req);
  return { customerId: c.id, customerCode: c.code };
}

export function portalPage(ctx: WebContext, req: FastifyRequest, reply: FastifyReply, template: string, data: PageData) {
  const c = req.customer;
  return page(req, reply, 'portale', template, ctx.timeZone, { ...data, me: c && `${c.code} — ${c.name}` });
}
