-- Issue 43: the articles the first start seeds for the DEMO customer (src/seed/demo.ts) are marked, so that a real
-- customer is never offered them as suggestions. An import writes demo = 0: an article imported under a demo code
-- is a real one from then on.
ALTER TABLE articles ADD COLUMN demo INTEGER NOT NULL DEFAULT 0 CHECK (demo IN (0, 1));

-- A database seeded before this migration: the demo articles are those the seed wrote, with the seed's own
-- description (an import that took one of their codes changed its description), and only where the seed ran (its
-- DEMO customer exists).
UPDATE articles SET demo = 1
WHERE EXISTS (SELECT 1 FROM customers WHERE code = 'DEMO')
  AND (codice_articolo, descrizione) IN (VALUES
    ('BV-STD', 'Biglietti da visita 85x55 mm, 350 g, stampa 4+4'),
    ('BV-PLAST', 'Biglietti da visita plastificati opachi 85x55 mm'),
    ('VOL-A5', 'Volantini A5, carta patinata 135 g, 4+0'),
    ('VOL-A4', 'Volantini A4, carta patinata 135 g, 4+4'),
    ('BRO-A4-16', 'Brochure A4, 16 pagine, punto metallico'),
    ('CAT-A4-32', 'Catalogo A4, 32 pagine, brossura fresata'),
    ('MAN-70x100', 'Manifesti 70x100 cm, carta blue back 115 g'),
    ('CAR-A4-80', 'Carta A4 80 g/m², risma da 500 fogli'),
    ('CAR-A3-100', 'Carta A3 100 g/m², risma da 250 fogli'),
    ('BUS-DL', 'Buste DL 110x220 mm con finestra, confezione da 500'),
    ('ETI-ROT-50', 'Etichette adesive 50x30 mm, rotolo da 1.000'));
