/**
 * Peppol: a 10,000-line UBL Order (Peppol BIS 3) judged whole, as the SFTP channel hands it over (submit: stored,
 * decoded, resolved by GTIN against the catalog, stage A and B, registered) on a SQLite store in a file, fresh per
 * run. The target: under 2 s.
 */
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { DEFAULT_UNITS } from '../../src/catalog/units.ts';
import { createIntake } from '../../src/intake/intake.ts';
import { createLogger } from '../../src/log.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import { summarise } from '../lib/stats.ts';
import type { Benchmark, BenchContext, Metric } from '../lib/types.ts';

const LINES = 10_000;
const ARTICLES = 1000;

/** An EAN-13 (GTIN-13): 12 digits and GS1's check digit. */
function gtin(n: number): string {
  const body = `80${String(n).padStart(10, '0')}`;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(body[i]) * (i % 2 === 0 ? 1 : 3);
  return `${body}${(10 - (sum % 10)) % 10}`;
}

/** A Peppol Order of `lines` lines, half named by our code, half by GTIN. */
export function bigOrder(ref: string, lines: number): string {
  const rows: string[] = [];
  for (let i = 0; i < lines; i++) {
    const id = i % 2 === 0
      ? `<cac:SellersItemIdentification><cbc:ID>ART-${i % ARTICLES}</cbc:ID></cac:SellersItemIdentification>`
      : `<cac:StandardItemIdentification><cbc:ID schemeID="0160">${gtin(i % ARTICLES)}</cbc:ID></cac:StandardItemIdentification>`;
    rows.push(`<cac:OrderLine><cac:LineItem><cbc:ID>${i + 1}</cbc:ID><cbc:Quantity unitCode="C62">${(i % 50) + 1}</cbc:Quantity>`
      + `<cbc:LineExtensionAmount currencyID="EUR">10.00</cbc:LineExtensionAmount><cac:Price><cbc:PriceAmount currencyID="EUR">0.20</cbc:PriceAmount></cac:Price>`
      + `<cac:Item><cbc:Name>Articolo ${i}</cbc:Name>${id}</cac:Item></cac:LineItem></cac:OrderLine>`);
  }
  return `<?xml version="1.0" encoding="UTF-8"?>
<Order xmlns="urn:oasis:names:specification:ubl:schema:xsd:Order-2" xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2" xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">
<cbc:CustomizationID>urn:fdc:peppol.eu:poacc:trns:order:3</cbc:CustomizationID><cbc:ProfileID>urn:fdc:peppol.eu:poacc:bis:ordering:3</cbc:ProfileID>
<cbc:ID>${ref}</cbc:ID><cbc:IssueDate>2026-11-20</cbc:IssueDate><cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode>
<cac:BuyerCustomerParty><cac:Party><cbc:EndpointID schemeID="0211">IT01234567890</cbc:EndpointID><cac:PartyLegalEntity><cbc:RegistrationName>ASL</cbc:RegistrationName></cac:PartyLegalEntity></cac:Party></cac:BuyerCustomerParty>
<cac:SellerSupplierParty><cac:Party><cbc:EndpointID schemeID="0211">IT09876543210</cbc:EndpointID><cac:PartyLegalEntity><cbc:RegistrationName>Tipografia</cbc:RegistrationName></cac:PartyLegalEntity></cac:Party></cac:SellerSupplierParty>
${rows.join('\n')}
</Order>
`;
}

export const peppolBenchmark: Benchmark = {
  name: 'peppol',
  description: `a ${LINES.toLocaleString('en-US')}-line UBL Order judged whole (stored, decoded, resolved by GTIN, validated, registered) on SQLite`,
  byDefault: true,
  async run(ctx: BenchContext) {
    const raw = Buffer.from(bigOrder('BIG-0', LINES));
    const seconds: number[] = [];
    // CPU time of this process while judging: on a shared machine the wall time also counts other processes' turns.
    const cpuSeconds: number[] = [];
    for (let run = 0; run < ctx.runs; run++) {
      const store = await openSqliteStore(path.join(ctx.tmpDir, `peppol-${run}.sqlite`));
      try {
        await store.migrate();
        await store.upsertUnits(DEFAULT_UNITS);
        await store.upsertArticles(Array.from({ length: ARTICLES }, (_, i) => ({ codice_articolo: `ART-${i}`, descrizione: `Articolo ${i}`, unita_misura: 'PZ' })));
        // As the catalog import keeps them: 14 digits.
        await store.upsertArticleGtins(Array.from({ length: ARTICLES }, (_, i) => ({ gtin: `0${gtin(i)}`, codice_articolo: `ART-${i}` })));
        const c = await store.createCustomer({ id: 'cust-1', code: 'C001', name: 'ASL', mailbox: 'c001@ordini.test' });
        await store.setPeppolIds(c.id, [{ scheme: '0211', identifier: 'IT01234567890' }]);
        const intake = createIntake({ store, timeZone: 'Europe/Rome', log: createLogger('silent'), peppol: { units: new Map([['C62', 'PZ']]) } });
        const principal = { customerId: c.id, customerCode: c.code };
        // One unmeasured document first: the JIT warm, as in a service that has been up a while.
        await intake.submit({ principal, channel: 'sftp', fileName: 'warm.xml', raw: Buffer.from(bigOrder('WARM', 200)) });
        const start = performance.now();
        const cpu = process.cpuUsage();
        const { outcome } = await intake.submit({ principal, channel: 'sftp', fileName: 'big.xml', raw });
        seconds.push((performance.now() - start) / 1000);
        const used = process.cpuUsage(cpu);
        cpuSeconds.push((used.user + used.system) / 1e6);
        if (outcome.esito !== 'ok') throw new Error(`the big UBL order was refused: ${JSON.stringify(outcome.orders[0]).slice(0, 500)}`);
        ctx.progress(`peppol: run ${run + 1}/${ctx.runs}: ${seconds.at(-1)!.toFixed(3)} s (CPU ${cpuSeconds.at(-1)!.toFixed(3)} s)`);
      } finally {
        await store.close();
      }
    }
    const metrics: Metric[] = [
      { name: `${LINES.toLocaleString('en-US')}-line UBL Order judged`, unit: 's', better: 'lower', samples: seconds, target: { value: 2, op: '<=' } },
      { name: 'CPU time while judging it', unit: 's', better: 'lower', samples: cpuSeconds },
    ];
    return {
      settings: { lines: LINES, bytes: raw.length, articles: ARTICLES, identification: 'half SellersItemIdentification, half GTIN', store: 'SQLite file, fresh per run' },
      durability: 'SQLite WAL synchronous=FULL: the submission and the order committed before the outcome',
      metrics,
      notes: [`median ${summarise(seconds).median.toFixed(3)} s wall, ${summarise(cpuSeconds).median.toFixed(3)} s CPU; load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} CPUs`],
    };
  },
};
