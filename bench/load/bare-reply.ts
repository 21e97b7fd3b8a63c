/** The 201 body both bare ceilings answer (bench/load/bare-server.ts, bare-pg-server.ts): the size of the service's. */
export function bareReply(n: number, riferimento: unknown): Record<string, string> {
  return {
    esito: 'ok',
    id_ordine: '00000000-0000-7000-8000-000000000000',
    numero_ordine: `2026-${String(n).padStart(6, '0')}`,
    messaggio: `Ordine ${String(riferimento)} registrato`,
  };
}
