-- Issue 17, finishing: e-mail notifications of production status changes (docs/development/handoff.md,
-- "E-mail notifications").

-- Per customer, set by the operator (`order-intake customer notify`): whether its orders' status changes are mailed,
-- and where an order that did not come by e-mail is notified (it has no sender address). No row: off.
CREATE TABLE customer_notifications (
  customer_id text PRIMARY KEY REFERENCES customers (id),
  enabled     boolean NOT NULL,
  address     text,                         -- lower case; NULL: only orders that came by e-mail are notified
  updated_at  timestamptz NOT NULL
);

-- Notifications leave through the reply outbox (one queue, one sender, one relay): a notification is a row with no
-- mail message of its own (an order may get several, and one from the REST channel has none). kind says which.
ALTER TABLE mail_replies ALTER COLUMN mail_id DROP NOT NULL;
ALTER TABLE mail_replies ADD COLUMN kind text NOT NULL DEFAULT 'reply' CHECK (kind IN ('reply', 'notification'));
ALTER TABLE mail_replies ADD COLUMN order_id text;
ALTER TABLE mail_replies ADD CONSTRAINT mail_replies_kind_mail CHECK ((kind = 'reply') = (mail_id IS NOT NULL));

-- The hand-off subscriber that turns ordine.stato_aggiornato events into notifications (one row, added when an
-- operator first turns notifications on).
ALTER TABLE handoff_subscribers DROP CONSTRAINT handoff_subscribers_kind_check;
ALTER TABLE handoff_subscribers ADD CONSTRAINT handoff_subscribers_kind_check CHECK (kind IN ('webhook', 'export', 'mail'));
