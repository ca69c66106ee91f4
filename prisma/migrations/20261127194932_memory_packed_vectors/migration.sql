-- Packed vectors for the in-process vector indexes (hand-written: a generated column).
--
-- An index load read every embedding as array_send(real[]): 8 bytes per value (a length and the
-- float), hex-encoded by the text protocol — 4 KB on the wire per 256-dimension vector, ~35 s for a
-- memory of 1M records. The packed form is the floats alone (float4send: big-endian, 4 bytes each), 1 KB
-- per vector, computed by PostgreSQL whenever the embedding is written (so every writer keeps it).

-- IMMUTABLE (a pure function of its argument): required of an expression in a generated column.
CREATE FUNCTION "memory_float4_pack"(real[]) RETURNS bytea LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(string_agg(float4send(x), ''::bytea ORDER BY i), ''::bytea) FROM unnest($1) WITH ORDINALITY AS u(x, i)
$$;

-- AlterTable (rewrites the table once: existing records get their packed vectors here)
ALTER TABLE "memory_records" ADD COLUMN "embedding_packed" bytea GENERATED ALWAYS AS ("memory_float4_pack"("embedding")) STORED;
