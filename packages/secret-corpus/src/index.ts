/** Test-only corpora for the redaction tests of the collector and the SDK. */
export { ORDINARY_PAYLOADS, type OrdinaryPayload } from './ordinary.ts';
export { SECRET_SHAPES } from './secrets.ts';
export { asText, fragments, type SecretKind, type SecretShape } from './shape.ts';
