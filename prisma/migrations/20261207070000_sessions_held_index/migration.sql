-- Hand-written (Prisma cannot express a partial index); schema.prisma is unchanged.
-- The sessions held at weight 0 for a sampling decision, by project and start: analytics' count of
-- stored sessions leaves them out, as the explorer it links to does (a handful of rows: each is
-- deleted or decided within the decision wait).
CREATE INDEX "sessions_held_idx" ON "sessions"("project_id", "started_at") WHERE "sampling_weight" = 0;
