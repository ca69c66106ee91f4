-- Built-in memory records kept the text they were created with a second time in their provenance
-- (`created_text_digest`: the text as a JSON string). Keep its SHA-256 instead (`created_text_sha256`,
-- hex, of the UTF-8 text), as records on vector databases do.
-- Provenance is not what the in-process vector indexes hold: the change-counter trigger stays off for
-- this rewrite, so that no index reloads the rewritten rows.
ALTER TABLE "memory_records" DISABLE TRIGGER "memory_records_stamp";

UPDATE "memory_records"
SET "provenance" = ("provenance" - 'created_text_digest')
  || jsonb_build_object('created_text_sha256', encode(sha256(convert_to(("provenance"->>'created_text_digest')::jsonb #>> '{}', 'UTF8')), 'hex'))
WHERE "provenance" ? 'created_text_digest';

ALTER TABLE "memory_records" ENABLE TRIGGER "memory_records_stamp";
