-- Order numbers come from one PostgreSQL sequence per year (order_number_<year>) instead of the order_sequences
-- row. The row's upsert locked it until commit, so every registration in the cluster waited for the previous one's
-- WAL flush: one global queue across a commit's fsync. nextval() takes no lock that outlives the call.
--
-- What numbering promises afterwards (README, docs/development/numbering.md): numero_ordine is unique per year
-- (Europe/Rome), `<year>-<sequence>`; numbers increase in the order they were allocated, across every instance;
-- a number allocated by a transaction that then failed (or lost an identity race) is never given again, so gaps
-- are possible; numbers are not in commit order.
--
-- A year's sequence is created on first use by order_number_sequence(), which the store calls once per year and
-- process before registering, outside the registering transaction. order_sequences stays as the floor the copy
-- tool (db copy) writes from a SQLite installation: the sequence is created above it, and raised to it if it was
-- created earlier.
CREATE FUNCTION order_number_sequence(y integer) RETURNS regclass
LANGUAGE plpgsql AS $$
DECLARE
  seq_name text := 'order_number_' || y;
  floor bigint;
  current_value bigint;
BEGIN
  IF y < 1000 OR y > 9999 THEN
    RAISE EXCEPTION 'order_number_sequence: year % out of range', y;
  END IF;
  -- Two instances seeing a new year at once: the second waits here, then finds the sequence made.
  PERFORM pg_advisory_xact_lock(7342801, hashtext(current_schema() || '.order_number_sequence'));
  SELECT GREATEST(
    COALESCE((SELECT last FROM order_sequences WHERE year = y), 0),
    COALESCE((SELECT max(seq) FROM orders WHERE year = y), 0)) INTO floor;
  IF to_regclass(seq_name) IS NULL THEN
    EXECUTE format('CREATE SEQUENCE %I AS bigint MINVALUE 1 START WITH %s', seq_name, floor + 1);
  ELSE
    EXECUTE format('SELECT CASE WHEN is_called THEN last_value ELSE last_value - 1 END FROM %I', seq_name)
      INTO current_value;
    IF current_value < floor THEN
      PERFORM setval(seq_name, floor, true);
    END IF;
  END IF;
  RETURN seq_name::regclass;
END
$$;
