-- Connectors that serve several customers, and what a CIP4 ticket carries beyond the order (issue 20), SQLite.
--
-- connectors.customer_id stays the connector's OWNER: its key is a credential of that customer and its raw
-- submissions are filed there. The customers whose orders it may bring are connector_customers (every existing
-- connector: its owner), or every customer when all_customers is 1. product_key is the operator's template for the
-- product key of a ticket's products (NULL: the built-in order, see src/intake/connectors/product-key.ts).

ALTER TABLE connectors ADD COLUMN all_customers INTEGER NOT NULL DEFAULT 0 CHECK (all_customers IN (0, 1));
ALTER TABLE connectors ADD COLUMN product_key TEXT;

CREATE TABLE connector_customers (
  connector_id TEXT NOT NULL REFERENCES connectors (id),
  customer_id  TEXT NOT NULL REFERENCES customers (id),
  PRIMARY KEY (connector_id, customer_id)
) STRICT, WITHOUT ROWID;
INSERT INTO connector_customers (connector_id, customer_id) SELECT id, customer_id FROM connectors;

-- The connector's customer table: the sender's own customer ids (a printer's MIS numbers) → our customers.
CREATE TABLE connector_customer_ids (
  connector_id TEXT NOT NULL REFERENCES connectors (id),
  external_id  TEXT NOT NULL,  -- trimmed, upper case (written so by the importer)
  customer_id  TEXT NOT NULL REFERENCES customers (id),
  PRIMARY KEY (connector_id, external_id)
) STRICT, WITHOUT ROWID;

-- What a ticket said besides the order fields (intents, comments, artwork URLs), JSON, kept with the order it made.
CREATE TABLE order_tickets (
  order_id TEXT PRIMARY KEY REFERENCES orders (id),
  details  TEXT NOT NULL
) STRICT, WITHOUT ROWID;
