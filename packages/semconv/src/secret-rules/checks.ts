/**
 * Second looks at a shape's match: a number that looks like a card or an IBAN is only one when
 * its check digits agree, and `Basic x` is a credential only when `x` decodes to `user:password`.
 * Plain ECMAScript (atob, no Buffer): the SDK's main entry runs in browsers and edge runtimes.
 */

/** The Luhn check of the digits of `s` (spaces, dashes and dots ignored), 13 to 19 digits. */
export function luhn(s: string): boolean {
  const digits = s.replace(/[ .-]/g, '');
  if (digits.length < 13 || digits.length > 19) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/**
 * IBAN length by country (ISO 13616 registry, SWIFT release 2024): a string of the right
 * shape from a country not listed here, or of another length, is not an IBAN.
 */
const IBAN_LENGTHS: Record<string, number> = Object.fromEntries(
  (
    'AD24 AE23 AL28 AT20 AZ28 BA20 BE16 BG22 BH22 BI27 BR29 BY28 CH21 CR22 CY28 CZ24 DE22 DJ27 DK18 DO28 ' +
    'EE20 EG29 ES24 FI18 FK18 FO18 FR27 GB22 GE22 GI23 GL18 GR27 GT28 HR21 HU28 IE22 IL23 IQ23 IS26 IT27 ' +
    'JO30 KW30 KZ20 LB28 LC32 LI21 LT20 LU20 LV21 LY25 MC27 MD24 ME22 MK19 MN20 MR27 MT31 MU30 NI28 NL18 ' +
    'NO15 OM23 PK24 PL28 PS29 PT25 QA29 RO24 RS22 RU33 SA24 SC31 SD18 SE24 SI19 SK24 SM27 SO23 ST25 SV28 ' +
    'TL23 TN24 TR26 UA29 VA22 VG24 XK20'
  )
    .split(' ')
    .map((e) => [e.slice(0, 2), Number(e.slice(2))]),
);

/** An IBAN (spaces, no-break spaces, dashes and dots ignored, any case): a known country, its length, and the ISO 7064 mod-97 check. */
export function iban(s: string): boolean {
  const compact = s.replace(/[ \u00a0\u202f\u2009.-]/g, '').toUpperCase();
  if (IBAN_LENGTHS[compact.slice(0, 2)] !== compact.length) return false;
  const rearranged = compact.slice(4) + compact.slice(0, 4);
  let rest = 0;
  for (let i = 0; i < rearranged.length; i++) {
    const c = rearranged.charCodeAt(i);
    // digits count as themselves, letters as 10 (A) to 35 (Z)
    const v = c <= 57 ? c - 48 : c - 55;
    rest = (v > 9 ? rest * 100 + v : rest * 10 + v) % 97;
  }
  return rest === 1;
}

/** `Basic <base64>` is a credential when the base64 decodes to `user:password`. */
export function basicCredential(match: string): boolean {
  const b = match.replace(/^Basic\s+/i, '');
  try {
    return atob(b).includes(':');
  } catch {
    return false;
  }
}
