/** Test-only corpora for the redaction tests of the collector and the SDK. */
export { ORDINARY_PAYLOADS, type OrdinaryPayload } from './ordinary.ts';
export { asText, fragments, SECRET_SHAPES, type SecretKind, type SecretShape } from './secrets.ts';
