-- Full-text lookups bounded to one memory inside the index (hand-written: an index the schema cannot name).
--
-- The GIN index over `tsv` alone held every memory's records: a search found every record of every
-- memory that matched its words and dropped the other memories' afterwards, so its cost grew with the
-- whole table (4.1 ms against 0.06 ms for one lookup at 100× the records). btree_gin lets the same GIN
-- index hold the namespace (one per built-in memory) as a key beside the lexemes, and GIN intersects
-- the namespace's entry with the words' entries inside the index: the lookup reads one memory's matches.
-- btree_gin ships with PostgreSQL (contrib), in the embedded PostgreSQL too, and is a trusted
-- extension: the database owner may create it without superuser rights.
CREATE EXTENSION IF NOT EXISTS btree_gin;

CREATE INDEX "memory_records_namespace_tsv_idx" ON "memory_records" USING gin ("namespace", "tsv") WITH (fastupdate = off);
DROP INDEX IF EXISTS "memory_records_tsv_idx";
