-- Search over the built-in memory's records: full-text ranking and trigram similarity (pg_trgm ships
-- with PostgreSQL's contrib modules, in the embedded build and in Debian's server package alike).
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX IF NOT EXISTS "memory_records_fts_idx" ON "memory_records" USING gin (to_tsvector('simple', "text"));
CREATE INDEX IF NOT EXISTS "memory_records_trgm_idx" ON "memory_records" USING gin ("text" gin_trgm_ops);
