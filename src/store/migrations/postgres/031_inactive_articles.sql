-- Issue 43: articles an operator took out of service (`order-intake articles deactivate`, the console's catalog page).
-- They leave the articles table for this one rather than carrying a flag there, so that everything reading articles
-- (stage B's lookup, the suggestions, the catalog count) keeps meaning "articles that can be ordered" without a
-- filter each reader must remember; stage B reads this table only for a code not found there, to say "no longer
-- available" rather than "unknown". Registered orders keep their lines whatever happens here: a line holds its own
-- code, quantity and unit, and nothing references a catalog row.
CREATE TABLE inactive_articles (
  codice_articolo text PRIMARY KEY,
  descrizione     text NOT NULL,
  unita_misura    text NOT NULL,
  deactivated_at  timestamptz NOT NULL
);
