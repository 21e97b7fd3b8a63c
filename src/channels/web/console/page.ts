/**
 * What every console page shares: the logged-in operator, the role check of an action, the page frame and the audit
 * entry. Kept apart from routes.ts (which registers the files next to it) so that those files import it without an
 * import cycle.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { IntakeError } from '../../../domain/errors.ts';
import { audit } from '../../../operators/audit.ts';
import type { Operator } from '../../../domain/store/web.ts';
import type { WebContext } from '../context.ts';
import { page, type PageData } from '../render.ts';
import { roleLabel } from '../format.ts';

declare module 'fastify' {
  interface FastifyRequest {
    operator?: Operator;
  }
}

/** The logged-in operator (the guard has set it on every page but the login). */
export function operatorOf(req: FastifyRequest): Operator {
  if (!req.operator) throw new IntakeError('UNAUTHORIZED');
  return req.operator;
}

/** Viewers look; operators and admins act. Checked on the server for every action, whatever the page showed. */
export function actor(req: FastifyRequest): Operator {
  const op = operatorOf(req);
  if (op.role === 'viewer') throw new IntakeError('FORBIDDEN');
  return op;
}

export function consolePage(ctx: WebContext, req: FastifyRequest, reply: FastifyReply, template: string, data: PageData) {
  const op = req.operator;
  return page(req, reply, 'console', template, ctx.timeZone, {
    ...data, me: op && `${op.email} (${roleLabel(op.role)})`, canAct: op !== undefined && op.role !== 'viewer', isAdmin: op?.role === 'admin',
  });
}

/** Writes the audit entry of an operator action. */
export function record(ctx: WebContext, req: FastifyRequest, action: string, objectType: string, objectId: string, detail: Record<string, unknown> = {}) {
  return audit(ctx.store, operatorOf(req).email, action, objectType, objectId, detail);
}
