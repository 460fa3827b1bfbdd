/** Sign-in passwords are stored as argon2id hashes with OWASP's 19 MiB / 2 passes / 1 lane setting. */
import { describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from '../src/server/password.ts';

describe('password hashing', () => {
  it('stores argon2id with m=19456 KiB, t=2, p=1 and a fresh salt; verifies the password and nothing else', async () => {
    const a = await hashPassword('correct horse battery staple');
    const b = await hashPassword('correct horse battery staple');
    expect(a).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(b).not.toBe(a);
    expect(await verifyPassword(a, 'correct horse battery staple')).toBe(true);
    expect(await verifyPassword(a, 'correct horse battery stapler')).toBe(false);
  });
});
