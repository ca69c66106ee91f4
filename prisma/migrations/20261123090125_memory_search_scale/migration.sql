-- Memory search at scale (hand-written; the schema engine's diff gave the plain columns and the table).
--
-- 1. Full-text search reads a stored tsvector instead of computing to_tsvector per row at query time.
-- 2. A per-namespace change counter, bumped by a trigger in every statement that writes records, so
--    in-process vector indexes check freshness with one primary-key read and load only the records
--    written since (every record carries the counter value of its last write in `seq`).

-- AlterTable
ALTER TABLE "memory_records" ADD COLUMN "seq" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN "tsv" tsvector GENERATED ALWAYS AS (to_tsvector('simple', "text")) STORED;

-- Without GIN's pending list (fastupdate): every search would scan up to gin_pending_list_limit (4 MB)
-- of not yet merged entries until the next vacuum; a record adds only a few entries per index.
DROP INDEX IF EXISTS "memory_records_fts_idx";
CREATE INDEX "memory_records_tsv_idx" ON "memory_records" USING gin ("tsv") WITH (fastupdate = off);
ALTER INDEX "memory_records_trgm_idx" SET (fastupdate = off);

-- CreateTable
CREATE TABLE "memory_record_versions" (
    "provider_id" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "version" BIGINT NOT NULL DEFAULT 0,
    "reset_version" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "memory_record_versions_pkey" PRIMARY KEY ("provider_id","namespace")
);

-- CreateIndex
CREATE INDEX "memory_records_provider_id_namespace_seq_idx" ON "memory_records"("provider_id", "namespace", "seq");

-- Every insert or update of a record takes the next value of its namespace's counter. The counter
-- row stays locked until the writing transaction ends, so counter values are handed out in commit
-- order: a reader that sees value N committed has seen every change numbered below N.
CREATE FUNCTION "memory_records_stamp"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND (OLD.provider_id, OLD.namespace) IS DISTINCT FROM (NEW.provider_id, NEW.namespace) THEN
    -- moved out of a namespace: as good as deleted there
    INSERT INTO memory_record_versions AS v (provider_id, namespace, version, reset_version) VALUES (OLD.provider_id, OLD.namespace, 1, 1)
    ON CONFLICT (provider_id, namespace) DO UPDATE SET version = v.version + 1, reset_version = v.version + 1;
  END IF;
  INSERT INTO memory_record_versions AS v (provider_id, namespace, version) VALUES (NEW.provider_id, NEW.namespace, 1)
  ON CONFLICT (provider_id, namespace) DO UPDATE SET version = v.version + 1
  RETURNING v.version INTO NEW.seq;
  RETURN NEW;
END
$$;
CREATE TRIGGER "memory_records_stamp" BEFORE INSERT OR UPDATE ON "memory_records" FOR EACH ROW EXECUTE FUNCTION "memory_records_stamp"();

-- A deletion cannot be expressed as "rows changed since": it bumps the counter and marks it as a
-- reset, so indexes older than it reload the namespace.
CREATE FUNCTION "memory_records_reset"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO memory_record_versions AS v (provider_id, namespace, version, reset_version) VALUES (OLD.provider_id, OLD.namespace, 1, 1)
  ON CONFLICT (provider_id, namespace) DO UPDATE SET version = v.version + 1, reset_version = v.version + 1;
  RETURN NULL;
END
$$;
CREATE TRIGGER "memory_records_reset" AFTER DELETE ON "memory_records" FOR EACH ROW EXECUTE FUNCTION "memory_records_reset"();

-- 3. The words of each namespace's records, for correcting misspelled search words with a trigram
--    lookup among a few thousand distinct words instead of trigram-matching every record's text.
CREATE TABLE "memory_record_words" (
    "provider_id" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "word" TEXT NOT NULL,

    CONSTRAINT "memory_record_words_pkey" PRIMARY KEY ("provider_id","namespace","word")
);
CREATE INDEX "memory_record_words_trgm_idx" ON "memory_record_words" USING gin ("word" gin_trgm_ops) WITH (fastupdate = off);

-- Writers of one namespace are serialised by the counter row above, so inserting (sorted) words
-- cannot deadlock; words of another namespace never conflict.
CREATE FUNCTION "memory_records_words"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO memory_record_words (provider_id, namespace, word)
  SELECT NEW.provider_id, NEW.namespace, w FROM unnest(tsvector_to_array(NEW.tsv)) w WHERE length(w) <= 64
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END
$$;
CREATE TRIGGER "memory_records_words" AFTER INSERT OR UPDATE OF "text" ON "memory_records" FOR EACH ROW EXECUTE FUNCTION "memory_records_words"();

INSERT INTO memory_record_words (provider_id, namespace, word)
SELECT DISTINCT provider_id, namespace, w FROM memory_records, unnest(tsvector_to_array(tsv)) w WHERE length(w) <= 64
ON CONFLICT DO NOTHING;
ANALYZE memory_record_words;
