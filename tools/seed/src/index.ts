export { exportRequest } from './otlp.ts';
export { generateSession } from './session.ts';
export type { Convention, Expected, GeneratedSession, SeedOptions } from './session.ts';
export { SeedError, sendSeed, tracesUrl } from './send.ts';
export type { Progress, SeedResult, SendOptions } from './send.ts';
