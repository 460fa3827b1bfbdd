/**
 * Password hashing for sign-in: argon2id with OWASP's second recommended setting (19 MiB,
 * 2 passes, 1 lane). Each sign-in in progress holds 19 MiB; the per-IP and per-account
 * throttles (auth-config.ts) bound how many run. Hash and verify time with these parameters,
 * beside OWASP's other minimums, is measured by bench/argon2.ts (docs/benchmarks.md).
 */
import { type Algorithm, hash, verify } from '@node-rs/argon2';

export const ARGON2 = { algorithm: 2 satisfies Algorithm.Argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const hashPassword = (password: string): Promise<string> => hash(password, ARGON2);

export const verifyPassword = (stored: string, password: string): Promise<boolean> => verify(stored, password);
