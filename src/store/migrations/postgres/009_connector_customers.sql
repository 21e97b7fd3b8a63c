-- Connectors that serve several customers, and what a CIP4 ticket carries beyond the order (issue 20), PostgreSQL:
-- same tables and meaning as the SQLite migration 009.
--
-- connectors.customer_id stays the connector's OWNER: its key is a credential of that customer and its raw
-- submissions are filed there. The customers whose orders it may bring are connector_customers (every existing
-- connector: its owner), or every customer when all_customers is true. product_key is the operator's template for
-- the product key of a ticket's products (NULL: the built-in order, see src/intake/connectors/product-key.ts).

ALTER TABLE connectors ADD COLUMN all_customers boolean NOT NULL DEFAULT false;
ALTER TABLE connectors ADD COLUMN product_key text;

CREATE TABLE connector_customers (
  connector_id text NOT NULL REFERENCES connectors (id),
  customer_id  text NOT NULL REFERENCES customers (id),
  PRIMARY KEY (connector_id, customer_id)
);
INSERT INTO connector_customers (connector_id, customer_id) SELECT id, customer_id FROM connectors;

-- The connector's customer table: the sender's own customer ids (a printer's MIS numbers) → our customers.
CREATE TABLE connector_customer_ids (
  connector_id text NOT NULL REFERENCES connectors (id),
  external_id  text NOT NULL,  -- trimmed, upper case (written so by the importer)
  customer_id  text NOT NULL REFERENCES customers (id),
  PRIMARY KEY (connector_id, external_id)
);

-- What a ticket said besides the order fields (intents, comments, artwork URLs), JSON, kept with the order it made.
CREATE TABLE order_tickets (
  order_id text PRIMARY KEY REFERENCES orders (id),
  details  text NOT NULL
);
