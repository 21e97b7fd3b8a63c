-- Peppol and NSO ordering documents (UBL Order, OrderChange, OrderCancellation).
--
-- customer_peppol_ids: the participant identifiers a customer's buyer party carries (`0211:IT01234567890`), the
-- scheme and the value apart, as a document writes them (EndpointID@schemeID, PartyIdentification/ID@schemeID). One
-- identifier names one customer. Values are kept upper-case: Peppol participant identifiers are case-insensitive.
CREATE TABLE customer_peppol_ids (
  scheme      text NOT NULL,
  identifier  text NOT NULL,
  customer_id text NOT NULL REFERENCES customers (id),
  created_at  timestamptz NOT NULL,
  PRIMARY KEY (scheme, identifier)
);
CREATE INDEX customer_peppol_ids_customer ON customer_peppol_ids (customer_id);

-- article_gtins: an article's GTIN (StandardItemIdentification/ID schemeID="0160"), from the catalog import's optional
-- gtin column. A table of its own rather than a column of articles, so that deactivating an article (which moves its
-- row to inactive_articles) keeps it: a GTIN of a deactivated article still says which article was meant.
CREATE TABLE article_gtins (
  gtin            text PRIMARY KEY,
  codice_articolo text NOT NULL
);

-- article_xrefs: a customer's own article codes (BuyersItemIdentification/ID) and ours.
CREATE TABLE article_xrefs (
  customer_id             text NOT NULL REFERENCES customers (id),
  codice_cliente_articolo text NOT NULL,
  codice_articolo         text NOT NULL,
  PRIMARY KEY (customer_id, codice_cliente_articolo)
);

-- ubl_change_sequences: the highest SequenceNumberID of the UBL Order Changes an order took; an older one arriving
-- late is refused rather than undoing a later change.
CREATE TABLE ubl_change_sequences (
  order_id text PRIMARY KEY,
  sequence bigint NOT NULL
);
