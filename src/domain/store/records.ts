/**
 * Records that the store port as a whole and its parts (connectors.ts, web.ts) both speak of. They live here, below
 * store.ts, so that the parts never import the port that extends them: store.ts imports the parts, the parts import
 * this file, and nothing imports back up. store.ts re-exports them for the modules that use the whole port.
 */
import type { Channel, OrderOutcome, Outcome, ProductionState, StoredSubmission } from '../types.ts';

export interface Article {
  codice_articolo: string;
  descrizione: string;
  unita_misura: string;
  /**
   * Seeded for the DEMO customer (src/seed/demo.ts), never suggested to a real customer. Written by every upsert:
   * an imported article is a real one, also when it takes the code of a demo article.
   */
  demo?: boolean;
}

/** An article taken out of service (Store.deactivateArticles). */
export interface InactiveArticle extends Article {
  deactivatedAt: string;
}

/** A page of one customer's orders (Store.listCustomerOrders); times are ISO instants. */
export interface CustomerOrderPage {
  /** Undefined: every customer's orders (an integration resyncing), walked on orders_registered_id. */
  customerId?: string;
  /** Registered at or after. */
  from?: string;
  /** Registered before. */
  to?: string;
  /** Orders production last reported in this state; `null`: production has reported nothing yet. */
  productionState?: ProductionState | null;
  /** The last order of the previous page. */
  after?: { at: string; id: string };
  limit: number;
}

/** A submission without its raw bytes, for listings. */
export type SubmissionSummary = Omit<StoredSubmission, 'raw' | 'outcome'> & {
  esito?: Outcome['esito'];
  /** Refused (esito errore) though some of its orders were accepted; set by the console's list search only. */
  partial?: boolean;
  /** Bytes of `raw`, read from the database (file listings show it without loading the file). */
  size: number;
};

/**
 * An order outcome that gets its own order_attempts row (an attempt): one that names a reference. The others (an
 * order whose reference could not be read) live only in the submission's outcome.
 */
export function hasAttemptRow(o: OrderOutcome | undefined): o is OrderOutcome & { riferimento_ordine: string } {
  return o !== undefined && typeof o.riferimento_ordine === 'string' && o.riferimento_ordine !== '';
}

/** The latest judgement of an order reference, registered or not: what GET ?riferimento_ordine= shows. */
export interface OrderAttempt {
  submissionId: string;
  channel: Channel;
  receivedAt: string;
  outcome: OrderOutcome;
}

/** A Peppol participant identifier: scheme (`0211`, `9906`, `0088`…) and value, both upper-case. */
export interface PeppolId {
  scheme: string;
  identifier: string;
}

/** An article's GTIN (a UBL line's StandardItemIdentification/ID with schemeID 0160). */
export interface ArticleGtin {
  gtin: string;
  codice_articolo: string;
}

/** A customer's own code for one of our articles (a UBL line's BuyersItemIdentification/ID). */
export interface ArticleXref {
  codice_cliente_articolo: string;
  codice_articolo: string;
}
