/**
 * SOAP client, run as its own process: `InviaOrdine` calls posted as the README's example envelope (one order of a
 * few lines, a new riferimento_ordine each), over undici with one connection per call in flight. Closed loop (or open
 * loop) as bench/lib/loop.ts runs it. A hand-written envelope rather than node-soap: the README says hand-written
 * envelopes are accepted, and node-soap would parse the WSDL and build each envelope with its own cost, in this process.
 *
 * Protocol: `{ready:true}` once loaded, then one SoapLoad in, one SoapLoadResult out, and exit.
 */
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { DEMO_ARTICLES, DEMO_CUSTOMER } from '../../src/seed/demo.ts';
import { runLoop } from '../lib/loop.ts';
import { latencySummary } from '../lib/stats.ts';
import type { ClientReady } from '../mail/protocol.ts';
import type { SoapLoad, SoapLoadResult } from './protocol.ts';

/** A call that has not answered in this long counts as an error rather than holding the run. */
const REQUEST_TIMEOUT_MS = 30_000;
/** Latency samples kept at most (8 bytes each). */
const MAX_SAMPLES = 2_000_000;

/** The README's InviaOrdine example with the demo customer's articles and the given reference. */
export function soapEnvelope(ns: string, apiKey: string, ref: string, lines: number): string {
  let righe = '';
  for (let i = 0; i < lines; i++) {
    const a = DEMO_ARTICLES[i % DEMO_ARTICLES.length]!;
    righe += `<ord:riga><ord:codice_articolo>${a.codice_articolo}</ord:codice_articolo><ord:quantita>${100 + ((i * 37) % 900)}</ord:quantita>`
      + `<ord:unita_misura>${a.unita_misura}</ord:unita_misura></ord:riga>`;
  }
  return `<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:ord="${ns}">`
    + `<soapenv:Header><ord:Autenticazione><ord:ApiKey>${apiKey}</ord:ApiKey></ord:Autenticazione></soapenv:Header>`
    + `<soapenv:Body><ord:InviaOrdine><ord:codice_cliente>${DEMO_CUSTOMER.code}</ord:codice_cliente>`
    + `<ord:riferimento_ordine>${ref}</ord:riferimento_ordine><ord:data_ordine>2026-01-15</ord:data_ordine>`
    + `<ord:data_consegna>2026-02-02</ord:data_consegna><ord:righe>${righe}</ord:righe></ord:InviaOrdine></soapenv:Body></soapenv:Envelope>`;
}

async function run(spec: SoapLoad): Promise<SoapLoadResult> {
  const pool = new Pool(spec.origin, {
    connections: spec.concurrency, pipelining: 1, headersTimeout: REQUEST_TIMEOUT_MS, bodyTimeout: REQUEST_TIMEOUT_MS,
  });
  const ns = `${spec.origin}/ws/ordini`;
  const headers = { 'content-type': 'text/xml; charset=utf-8', soapaction: `"${ns}#InviaOrdine"` };
  const samples = new Float64Array(MAX_SAMPLES);
  let nSamples = 0;
  let acknowledged = 0;
  let okInWindow = 0;
  let errors = 0;
  let firstError: string | undefined;
  const statuses: Record<string, number> = {};
  const cpu0 = process.cpuUsage();
  try {
    const res = await runLoop(spec, async (n, from, clock) => {
      try {
        const r = await pool.request({ method: 'POST', path: '/ws/ordini', headers, body: soapEnvelope(ns, spec.apiKey, `${spec.refPrefix}-${n}`, spec.orderLines) });
        const text = await r.body.text();
        const end = performance.now();
        const ok = r.statusCode === 200 && text.includes('esito>ok<');
        if (ok) acknowledged++;
        else {
          const key = r.statusCode === 200 ? '200-errore' : String(r.statusCode);
          statuses[key] = (statuses[key] ?? 0) + 1;
          firstError ??= text.slice(0, 300);
        }
        if (ok && from >= clock.from && end <= clock.to) {
          okInWindow++;
          if (nSamples < samples.length) samples[nSamples++] = end - from;
        }
      } catch (e) {
        errors++;
        firstError ??= (e as Error).message;
      }
    });
    const cpu = process.cpuUsage(cpu0);
    return {
      acknowledged, okInWindow, windowSec: spec.durationSec, latency: latencySummary(samples.subarray(0, nSamples)), statuses,
      errors: errors + res.undrained, firstError, sent: res.sent,
      cpuUserMs: Math.round(cpu.user / 1000), cpuSystemMs: Math.round(cpu.system / 1000),
    };
  } finally {
    await pool.destroy();
  }
}

process.send!({ ready: true } satisfies ClientReady);
process.once('message', (spec: SoapLoad) => {
  run(spec).then(
    (result) => process.send!(result, () => process.exit(0)),
    (err: unknown) => process.send!({ error: String((err as Error)?.stack ?? err) }, () => process.exit(1)),
  );
});
