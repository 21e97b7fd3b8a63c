-- Connectors (PostgreSQL): same tables and meaning as the SQLite migration 004. A connector's key is a row of
-- `credentials` (kind 'connector'); `credential_id` names the current one, so a rotation is one update and the
-- revoked keys stay in `credentials` for the record. A revoked connector keeps its profile (format, lookup,
-- mapping): submissions it brought before the revocation can still be decoded and reprocessed.

CREATE TABLE sites (
  code       text PRIMARY KEY,  -- upper case, written so by the store
  name       text NOT NULL,
  created_at timestamptz NOT NULL
);

CREATE TABLE connectors (
  id            text PRIMARY KEY,
  customer_id   text NOT NULL REFERENCES customers (id),
  name          text NOT NULL,
  format        text NOT NULL CHECK (format IN ('jdf', 'xjdf', 'json', 'xml')),
  credential_id text NOT NULL UNIQUE REFERENCES credentials (id),
  allow_ips     json NOT NULL DEFAULT '[]',  -- array of CIDR blocks; empty: any address
  mapping       text,                        -- JSONata expression (json and xml formats)
  created_at    timestamptz NOT NULL,
  revoked_at    timestamptz
);
CREATE INDEX connectors_customer ON connectors (customer_id, created_at);

CREATE TABLE connector_sites (
  connector_id text NOT NULL REFERENCES connectors (id),
  site_code    text NOT NULL REFERENCES sites (code),
  PRIMARY KEY (connector_id, site_code)
);

CREATE TABLE connector_lookup (
  connector_id    text NOT NULL REFERENCES connectors (id),
  product_key     text NOT NULL,  -- normalised (trimmed, spaces collapsed, lower case) by the importer
  codice_articolo text NOT NULL,
  unita_misura    text,
  PRIMARY KEY (connector_id, product_key)
);
