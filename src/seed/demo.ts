/**
 * The first-run experience: `order-intake serve` on an empty database seeds the default units, a small
 * printing catalog and a demo customer, and prints its credentials, so a new operator can send an order at
 * once (demoOrderJson is such an order).
 */
import { isIntakeError } from '../domain/errors.ts';
import type { Article, Store } from '../domain/store/store.ts';
import { DEFAULT_UNITS } from '../catalog/units.ts';
import { provisionCustomer, type ProvisionedCustomer } from '../customers/provision.ts';

export const DEMO_CUSTOMER = { code: 'DEMO', name: 'Cliente dimostrativo' } as const;

/**
 * The demo catalog, marked `demo` (Article.demo): suggested to the DEMO customer only, never to a real one. The
 * codes and descriptions are also in migration 032, which marks them in a database seeded before it.
 */
export const DEMO_ARTICLES: readonly Article[] = [
  { codice_articolo: 'BV-STD', descrizione: 'Biglietti da visita 85x55 mm, 350 g, stampa 4+4', unita_misura: 'PZ', demo: true },
  { codice_articolo: 'BV-PLAST', descrizione: 'Biglietti da visita plastificati opachi 85x55 mm', unita_misura: 'PZ', demo: true },
  { codice_articolo: 'VOL-A5', descrizione: 'Volantini A5, carta patinata 135 g, 4+0', unita_misura: 'PZ', demo: true },
  { codice_articolo: 'VOL-A4', descrizione: 'Volantini A4, carta patinata 135 g, 4+4', unita_misura: 'PZ', demo: true },
  { codice_articolo: 'BRO-A4-16', descrizione: 'Brochure A4, 16 pagine, punto metallico', unita_misura: 'PZ', demo: true },
  { codice_articolo: 'CAT-A4-32', descrizione: 'Catalogo A4, 32 pagine, brossura fresata', unita_misura: 'PZ', demo: true },
  { codice_articolo: 'MAN-70x100', descrizione: 'Manifesti 70x100 cm, carta blue back 115 g', unita_misura: 'FG', demo: true },
  { codice_articolo: 'CAR-A4-80', descrizione: 'Carta A4 80 g/m², risma da 500 fogli', unita_misura: 'RS', demo: true },
  { codice_articolo: 'CAR-A3-100', descrizione: 'Carta A3 100 g/m², risma da 250 fogli', unita_misura: 'RS', demo: true },
  { codice_articolo: 'BUS-DL', descrizione: 'Buste DL 110x220 mm con finestra, confezione da 500', unita_misura: 'CF', demo: true },
  { codice_articolo: 'ETI-ROT-50', descrizione: 'Etichette adesive 50x30 mm, rotolo da 1.000', unita_misura: 'RT', demo: true },
];

/** The DEMO customer the first start creates: the one customer whose suggestions include the demo articles. */
export function isDemoCustomer(code: string): boolean {
  return code === DEMO_CUSTOMER.code;
}

/**
 * On an empty database (no customer at all): units, demo catalog and the DEMO customer, whose credentials are
 * returned for printing. Otherwise undefined, after adding any default unit that is missing; units the
 * operator already has are left as they are, descriptions included.
 */
export async function seedDemoIfEmpty(store: Store, mailDomain: string): Promise<ProvisionedCustomer | undefined> {
  const known = new Set((await store.listUnits()).map((u) => u.code.toUpperCase()));
  const missing = DEFAULT_UNITS.filter((u) => !known.has(u.code));
  if (missing.length > 0) await store.upsertUnits(missing);

  if ((await store.listCustomers()).length > 0) return undefined;
  await store.upsertArticles(DEMO_ARTICLES);
  try {
    return await provisionCustomer(store, DEMO_CUSTOMER, mailDomain);
  } catch (e) {
    // Several instances starting together on one empty PostgreSQL race to seed; the first wins, the others go on.
    if (isIntakeError(e) && e.code === 'CONFLICT') return undefined;
    throw e;
  }
}

/**
 * A valid order of the DEMO customer using demo articles. Every field is fixed, the reference and the dates
 * too: sending it twice is then "the same order again" (a duplicate answer with the same numero_ordine),
 * which is what a demo should show, whereas a reference or date that changed per call would register a new
 * order each time, or clash as a conflict.
 */
export function demoOrderJson(): object {
  return {
    codice_cliente: DEMO_CUSTOMER.code,
    riferimento_ordine: 'DEMO-0001',
    data_ordine: '2025-01-15',
    data_consegna: '2025-01-31',
    righe: [
      { codice_articolo: 'BV-STD', quantita: 500, unita_misura: 'PZ' },
      { codice_articolo: 'VOL-A4', quantita: 2000, unita_misura: 'PZ' },
      { codice_articolo: 'CAR-A4-80', quantita: 10, unita_misura: 'RS' },
    ],
  };
}
