-- wsa_counts_add (migration 20261128042804_run_hourly_stats) in PL/pgSQL: the same sums, cheaper per call.
--
-- Every seal calls it four times (the failure codes and the duration histogram of its agent roll-up
-- row and of its model roll-up row, in the upserts' ON CONFLICT DO UPDATE). As a LANGUAGE sql function
-- whose body is a sub-select it is never inlined (a body with a sub-link is not), so PostgreSQL parses
-- and plans that body again at each execution of the statement that calls it: ~40–80 µs of backend
-- CPU a call, 0.15–0.3 ms a run (docs/benchmarks.md, "What PostgreSQL does per run"). PL/pgSQL keeps
-- its plans for the session: the same four calls cost ~10 µs each.
--
-- The result is the same jsonb: `a` with each key of `b` added to it, keys whose sum is 0 left out.
-- The roll-ups never store a zero count (this function leaves them out, and the rebuild counts only
-- what exists), so keys of `a` that `b` does not name are kept as they are.
CREATE OR REPLACE FUNCTION wsa_counts_add(a jsonb, b jsonb) RETURNS jsonb
  LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
  AS $$
    DECLARE
      result jsonb := coalesce(a, '{}'::jsonb);
      entry record;
      total integer;
    BEGIN
      FOR entry IN SELECT key, value FROM jsonb_each_text(b) LOOP
        total := coalesce((result ->> entry.key)::integer, 0) + entry.value::integer;
        IF total = 0 THEN
          result := result - entry.key;
        ELSE
          result := jsonb_set(result, ARRAY[entry.key], to_jsonb(total));
        END IF;
      END LOOP;
      RETURN result;
    END
  $$;
