/**
 * The WHERE terms of the partial submissions indexes (migration 027), for the statements that should take them.
 * SQLite takes a partial index only when the query's WHERE spells the index's own term
 * (https://sqlite.org/partialindex.html): `state = 'received'` alone does not let it use an index "WHERE state <>
 * 'processed'". PostgreSQL proves that from a constant but not from a parameter. Spelled exactly as in the migrations.
 */

/** submissions_state_received holds the submissions not yet processed: received, or failed. */
export const UNPROCESSED = `state <> 'processed'`;

/** submissions_esito_received holds the refused submissions; `esito` is the engine's expression for the outcome's esito. */
export function refused(esito: string): string {
  return `${esito} = 'errore'`;
}
