/**
 * The audit log: one entry per operator action (who, when, what, on which object), written by the console and by
 * the CLI commands that manage operators. Entries are only ever added.
 */
import { uuidv7 } from '../domain/uuid7.ts';
import type { AuditStore } from '../domain/store/ports.ts';

export async function audit(
  store: AuditStore, actor: string, action: string, objectType: string, objectId: string, detail: Record<string, unknown> = {},
): Promise<void> {
  await store.addAudit({ id: uuidv7(), at: new Date().toISOString(), actor, action, objectType, objectId, detail });
}
