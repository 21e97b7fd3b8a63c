-- Issue 43: an order may carry the customer's note (Order.note: at most 1,000 characters, checked by stage A), kept
-- with the order and shown wherever the order is (GET /api/v1/ordini/{id}, the events, the exports, the console).
-- Adding a nullable column without a default rewrites nothing: existing orders have no note.
ALTER TABLE orders ADD COLUMN note text;
