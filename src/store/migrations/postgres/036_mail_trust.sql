-- Who may order by e-mail, and what was held back: same tables and meaning as the SQLite migration 036.
ALTER TABLE mail_messages ADD COLUMN helo text;
ALTER TABLE mail_messages ADD COLUMN auth json;
ALTER TABLE imap_accounts ADD COLUMN authserv_id text;

CREATE TABLE mail_holds (
  mail_id     text PRIMARY KEY REFERENCES mail_messages (id),
  customer_id text NOT NULL REFERENCES customers (id),
  reason      text NOT NULL,
  sender      text,
  detail      text,
  held_at     timestamptz NOT NULL,
  state       text NOT NULL DEFAULT 'held' CHECK (state IN ('held', 'released', 'discarded', 'retried')),
  decided_by  text,
  decided_at  timestamptz
);
CREATE INDEX mail_holds_state ON mail_holds (state, held_at);

CREATE TABLE customer_mail_policies (
  customer_id text PRIMARY KEY REFERENCES customers (id),
  mode        text NOT NULL CHECK (mode IN ('qualsiasi', 'elenco', 'autenticato')),
  allow       json NOT NULL DEFAULT '[]',
  notify_held boolean NOT NULL DEFAULT false,
  updated_at  timestamptz NOT NULL
);
