-- CreateTable
CREATE TABLE "datasets" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "source_kind" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "item_count" INTEGER NOT NULL DEFAULT 0,
    "status" TEXT NOT NULL DEFAULT 'ready',
    "created_by" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "datasets_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "dataset_items" (
    "dataset_id" UUID NOT NULL,
    "ordinal" INTEGER NOT NULL,
    "item_id" VARCHAR(49) NOT NULL,
    "item" JSONB NOT NULL,

    CONSTRAINT "dataset_items_pkey" PRIMARY KEY ("dataset_id","ordinal")
);

-- CreateIndex
CREATE INDEX "datasets_project_id_created_at_idx" ON "datasets"("project_id", "created_at" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "dataset_items_dataset_id_item_id_key" ON "dataset_items"("dataset_id", "item_id");

-- AddForeignKey
ALTER TABLE "datasets" ADD CONSTRAINT "datasets_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "dataset_items" ADD CONSTRAINT "dataset_items_dataset_id_fkey" FOREIGN KEY ("dataset_id") REFERENCES "datasets"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- A dataset item's text as it is copied (packages/db/src/datasets.ts): a recorded argument text
-- as JSON when it is JSON (null when it is not: cut or not captured), and a session id as a URL
-- path segment (its step path), every character but A-Z a-z 0-9 - _ . ~ percent-encoded as UTF-8.
CREATE FUNCTION guardtrace_try_jsonb(v text) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE AS $fn$
BEGIN
  RETURN v::jsonb;
EXCEPTION WHEN invalid_text_representation THEN
  RETURN NULL;
END $fn$;

CREATE FUNCTION guardtrace_uri_component(v text) RETURNS text LANGUAGE sql IMMUTABLE AS $fn$
  SELECT CASE WHEN v ~ '^[A-Za-z0-9_.~-]*$' THEN v ELSE (
    SELECT string_agg(CASE WHEN ch ~ '^[A-Za-z0-9_.~-]$' THEN ch
      ELSE regexp_replace(upper(encode(convert_to(ch, 'UTF8'), 'hex')), '(..)', '%\1', 'g') END, '' ORDER BY n)
    FROM regexp_split_to_table(v, '') WITH ORDINALITY AS x(ch, n)) END
$fn$;
