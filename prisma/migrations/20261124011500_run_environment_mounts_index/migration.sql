-- The runs that mount an environment (an environment's `run_ids`), found by containment instead of a
-- scan of the workspace's runs. Partial: almost every run mounts nothing, and those rows stay out of
-- the index (and its write cost). Written by hand: Prisma's schema language cannot declare a partial
-- index, so prisma/schema.prisma does not list it.
CREATE INDEX "runs_environment_mounts_idx" ON "runs" USING GIN ("environment_mounts" jsonb_path_ops)
  WHERE jsonb_array_length("environment_mounts") > 0;
