-- Connectors (SQLite): production sites, the connectors that deliver to them with their key, bound sites and
-- source addresses, and the per-connector product lookup table and mapping. A connector's key is a row of
-- `credentials` (kind 'connector'); `credential_id` names the current one, so a rotation is one update and the
-- revoked keys stay in `credentials` for the record. A revoked connector keeps its profile (format, lookup,
-- mapping): submissions it brought before the revocation can still be decoded and reprocessed.

CREATE TABLE sites (
  code       TEXT PRIMARY KEY,  -- upper case, written so by the store
  name       TEXT NOT NULL,
  created_at TEXT NOT NULL
) STRICT;

CREATE TABLE connectors (
  id            TEXT PRIMARY KEY,
  customer_id   TEXT NOT NULL REFERENCES customers (id),
  name          TEXT NOT NULL,
  format        TEXT NOT NULL CHECK (format IN ('jdf', 'xjdf', 'json', 'xml')),
  credential_id TEXT NOT NULL UNIQUE REFERENCES credentials (id),
  allow_ips     TEXT NOT NULL DEFAULT '[]',  -- JSON array of CIDR blocks; empty: any address
  mapping       TEXT,                        -- JSONata expression (json and xml formats)
  created_at    TEXT NOT NULL,
  revoked_at    TEXT
) STRICT;
CREATE INDEX connectors_customer ON connectors (customer_id, created_at);

CREATE TABLE connector_sites (
  connector_id TEXT NOT NULL REFERENCES connectors (id),
  site_code    TEXT NOT NULL REFERENCES sites (code),
  PRIMARY KEY (connector_id, site_code)
) STRICT, WITHOUT ROWID;

CREATE TABLE connector_lookup (
  connector_id    TEXT NOT NULL REFERENCES connectors (id),
  product_key     TEXT NOT NULL,  -- normalised (trimmed, spaces collapsed, lower case) by the importer
  codice_articolo TEXT NOT NULL,
  unita_misura    TEXT,
  PRIMARY KEY (connector_id, product_key)
) STRICT, WITHOUT ROWID;
