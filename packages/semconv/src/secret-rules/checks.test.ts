import { describe, expect, it } from 'vitest';
import { basicCredential, iban, luhn } from './checks.ts';
import { isSecretName, replaceNamedValues, replaceShapes, SHAPE_RULES, shapePrecheck } from './index.ts';

describe('checks', () => {
  it('IBAN: country length and mod 97; a changed digit or another length fails', () => {
    // The registry's own examples.
    for (const ok of ['DE89370400440532013000', 'GB82 WEST 1234 5698 7654 32', 'FR1420041010050500013M02606', 'NL91ABNA0417164300', 'NO9386011117947', 'CH9300762011623852957']) {
      expect(iban(ok), ok).toBe(true);
    }
    for (const bad of ['DE88370400440532013000', 'DE8937040044053201300', 'GB82 WEST 1234 5698 7654 33', 'ZZ89370400440532013000', 'FR12 3456 7890']) {
      expect(iban(bad), bad).toBe(false);
    }
  });

  it('Luhn and Basic credentials', () => {
    expect(luhn('4539 8997 2074 3225')).toBe(true);
    expect(luhn('4111 1111 1111 1111')).toBe(true);
    expect(luhn('4111 1111 1111 1112')).toBe(false);
    expect(basicCredential(`Basic ${btoa('admin:hunter2')}`)).toBe(true);
    expect(basicCredential('Basic informationx')).toBe(false);
  });
});

describe('names and shapes (the corpus tests of both consumers cover the rest)', () => {
  it('a secret word with a qualifier is a secret name; other endings are not', () => {
    for (const name of ['SECRET_KEY_BASE', 'secret_value', 'client_secret_value', 'SecretString', 'APP_KEY', 'passcode']) expect(isSecretName(name), name).toBe(true);
    for (const name of ['secret_name', 'password_policy', 'password_hash', 'max_tokens', 'PUBLIC_KEY_BASE64_URL', 'token_count']) expect(isSecretName(name), name).toBe(false);
  });

  it('replaces what the rules find with the caller’s marker, and keeps placeholders', () => {
    const mark = (r: { name: string }) => `<${r.name}>`;
    expect(replaceShapes("login failed for 'bob' with password 'Hunter2-x'", SHAPE_RULES, mark)).toBe("login failed for 'bob' with password '<quoted_password>'");
    expect(replaceShapes("login failed with password '***'", SHAPE_RULES, mark)).toBe("login failed with password '***'");
    expect(replaceShapes('ALTER USER scott IDENTIFIED BY tiger42;', SHAPE_RULES, mark)).toBe('ALTER USER scott IDENTIFIED BY <sql_password>;');
    expect(replaceShapes('IBAN DE89 3704 0044 0532 0130 00, ref DE88 3704 0044 0532 0130 00', SHAPE_RULES, mark)).toBe('IBAN <iban>, ref DE88 3704 0044 0532 0130 00');
    expect(replaceNamedValues('SECRET_KEY_BASE=abc123\nSECRET_KEY=$SECRET_KEY', '<name>')).toBe('SECRET_KEY_BASE=<name>\nSECRET_KEY=$SECRET_KEY');
  });

  it('the pre-check passes every string a rule matches, also right after a raw JSON escape', () => {
    const maybe = shapePrecheck(SHAPE_RULES);
    // Raw JSON text cut inside a literal: `\n` is two characters, and `nAKIA…` or `npassword`
    // has no word boundary; the rules match there, so the pre-check must pass it.
    for (const raw of [String.raw`{"log":"ok\nAKIAIOSFODNN7EXAMPLE`, String.raw`{"log":"x\tpassword 'Hunter2-x'`, String.raw`{"n":"\r4539 8997 2074 3225`]) {
      expect(replaceShapes(raw, SHAPE_RULES, () => '<x>'), raw).toContain('<x>');
      expect(maybe(raw), raw).toBe(true);
    }
    for (const plain of ['src/components/Button.tsx', String.raw`C:\Users\dev\notes.txt`, 'Please reset your password using the link we sent.']) {
      expect(maybe(plain), plain).toBe(false);
    }
  });
});
