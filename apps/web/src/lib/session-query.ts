/** The explorer's query language lives in @guardtrace/db (the collector's `POST /v1/datasets` parses the same). */
export * from '@guardtrace/db/session-query';
