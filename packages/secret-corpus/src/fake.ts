/**
 * Deterministic fake values: the same shape always gets the same characters, and two shapes
 * never share a long run of them, so a test can look for each one in what was stored.
 */

export const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const UPPER_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
export const LOWER_HEX = '0123456789abcdef';
export const URLSAFE = `${ALNUM}_-`;
export const BASE64 = `${ALNUM}+/`;

/** A small seeded generator (mulberry32) keyed by a string. */
function generator(seed: string): () => number {
  let h = 2166136261;
  for (let i = 0; i < seed.length; i++) h = Math.imul(h ^ seed.charCodeAt(i), 16777619);
  let a = h >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `length` characters of `alphabet`, the same for the same seed. */
export function fake(seed: string, length: number, alphabet = ALNUM): string {
  const next = generator(seed);
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[Math.floor(next() * alphabet.length)];
  return out;
}

/** Luhn check digit of a string of digits. */
function luhnDigit(body: string): number {
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    let d = Number(body[body.length - 1 - i]);
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return (10 - (sum % 10)) % 10;
}

/** A card number of `length` digits that starts with `prefix` and passes the Luhn check. */
export function luhnNumber(seed: string, prefix: string, length: number): string {
  const body = prefix + fake(seed, length - prefix.length - 1, '0123456789');
  return body + String(luhnDigit(body));
}

/** The same, with the last digit wrong: a long number that is not a card. */
export function nonLuhnNumber(seed: string, prefix: string, length: number): string {
  const valid = luhnNumber(seed, prefix, length);
  const last = (Number(valid.slice(-1)) + 1 + (seed.length % 9)) % 10;
  return valid.slice(0, -1) + String(last);
}

/** Digits grouped as printed on a card: 4-4-4-4 (or 4-6-5 for 15 digits), joined by `sep`. */
export function grouped(digits: string, sep: string): string {
  const groups = digits.length === 15 ? [4, 6, 5] : Array.from({ length: Math.ceil(digits.length / 4) }, () => 4);
  const out: string[] = [];
  let at = 0;
  for (const g of groups) {
    out.push(digits.slice(at, at + g));
    at += g;
  }
  return out.filter(Boolean).join(sep);
}

export const b64 = (s: string) => Buffer.from(s).toString('base64');
export const b64url = (s: string) => Buffer.from(s).toString('base64url');

/** ISO 7064 mod 97 of an IBAN's characters (letters as 10..35). */
function mod97(s: string): number {
  let rest = 0;
  for (const ch of s) {
    const v = Number.parseInt(ch, 36);
    rest = (v > 9 ? rest * 100 + v : rest * 10 + v) % 97;
  }
  return rest;
}

/**
 * An IBAN of `country` whose BBAN follows `template` (`A` a letter, `9` a digit, anything else
 * itself), with correct check digits: valid in form, generated from the seed.
 */
export function ibanNumber(seed: string, country: string, template: string): string {
  const letters = fake(`${seed}-a`, template.length, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ');
  const digits = fake(`${seed}-9`, template.length, '0123456789');
  const bban = [...template].map((c, i) => (c === 'A' ? letters[i] : c === '9' ? digits[i] : c)).join('');
  const check = 98 - mod97(`${bban}${country}00`);
  return `${country}${String(check).padStart(2, '0')}${bban}`;
}

/** The same IBAN with its check digits off by one: a code of the same form that is not an IBAN. */
export function nonIbanNumber(seed: string, country: string, template: string): string {
  const valid = ibanNumber(seed, country, template);
  const check = (Number(valid.slice(2, 4)) % 97) + 1;
  return `${country}${String(check).padStart(2, '0')}${valid.slice(4)}`;
}

/** An IBAN printed in groups of four, as on an invoice. */
export function ibanPrinted(compact: string): string {
  return compact.replace(/(.{4})(?=.)/g, '$1 ');
}
