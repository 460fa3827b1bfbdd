/**
 * Credentials that are no vendor token, in the order the token rules try them (token-rules.ts
 * spreads them where they stood): wallet keys and seed phrases, second factors (TOTP seeds,
 * recovery codes), session cookies set by code, values a CI log masks, Vault's legacy tokens.
 */
import { isPlaceholder } from './names.ts';
import { AT_ALNUM, notPlaceholder, re, SAME_COMMAND, type ShapeRule } from './rule-kit.ts';

/** One recovery code (GitHub's, Discord's, Google's, an app's), as the recovery-code rule lists them. */
const RECOVERY_CODE = /(?<![A-Za-z0-9])(?:[a-z0-9]{4,5}-[a-z0-9]{4,5}|\d{4}[ \t]\d{4}|[A-Z0-9]{8,12})(?![A-Za-z0-9])/gi;

export const CREDENTIAL_RULES: readonly ShapeRule[] = [
  // Wallet keys: a BIP32 extended private key (`xprv…`, testnet `tprv…`), a private key given to a
  // command (`cast wallet import … --private-key <64 hex>`, `--private-key=0x…`), and a key printed
  // after its label (`Private key (base58): …`, `private_key: 0x…`). A Solana keypair file, 64 numbers
  // in a JSON array, only in a text that speaks of Solana or a keypair (any array of 64 small numbers
  // has that form). A Bitcoin WIF key by its shape (52 base58 characters from `K`/`L`, 51 from `5H`-`5K`)
  // in a text that names a key, a wallet, WIF or Bitcoin (by shape alone, in the scan every string
  // passes, it cost plain agent strings 1.77x).
  { name: 'private_key', pattern: re(String.raw`${AT_ALNUM}[xt]prv[1-9A-HJ-NP-Za-km-z]{100,112}(?![A-Za-z0-9])`), gate: ['xprv', 'tprv'] },
  {
    name: 'private_key',
    pattern: re(String.raw`--private-?key(?:[ \t]+|=)\\?['"]?(?<secret>(?:0x)?[0-9a-fA-F]{64})(?![0-9a-fA-F])`, 'gi'),
    gate: ['--private-key', '--privatekey'],
  },
  {
    name: 'private_key',
    pattern: re(String.raw`\bprivate[ \t_-]?key[ \t]*(?:\((?:base58|hex|wif)\))?[ \t]*:[ \t]*\\?['"]?(?<secret>(?:0x)?[0-9a-fA-F]{64}|[1-9A-HJ-NP-Za-km-z]{50,90})(?![A-Za-z0-9])`, 'gi'),
    gate: ['private key', 'private_key', 'private-key', 'privatekey'],
  },
  {
    name: 'private_key',
    pattern: re(String.raw`\[[ \t]*(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)[ \t]*,[ \t]*){63}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)[ \t]*\]`),
    when: (s) => /solana|keypair|id\.json|secret_?key|fromSecretKey|Uint8Array/i.test(s),
    gate: ['['],
  },
  {
    name: 'private_key',
    pattern: re(String.raw`${AT_ALNUM}(?:[KL][1-9A-HJ-NP-Za-km-z]{51}|5[HJK][1-9A-HJ-NP-Za-km-z]{49})(?![A-Za-z0-9])`),
    check: (match) => /\d/.test(match) && /[a-z]/.test(match) && /[A-Z].*[A-Z]/.test(match.slice(1)),
    when: (s) => /privkey|wif|wallet|key|bitcoin/i.test(s),
    gate: ['privkey', 'wif', 'wallet', 'key', 'bitcoin'],
  },
  // An Ethereum key (64 hex digits after `0x`) under a name that ends in KEY or PK (`DEPLOYER_KEY=0x…`),
  // or in Hardhat's `accounts: ["0x…"]`: a transaction hash has the same form, so not alone.
  {
    name: 'private_key',
    pattern: re(String.raw`(?:${AT_ALNUM}(?![A-Z0-9_]*PUB)[A-Z][A-Z0-9_]*(?:KEY|PK)[ \t]*[=:][ \t]*\\?["']?|\baccounts:[ \t]*\[[ \t]*\\?["'])(?<secret>0x[0-9a-fA-F]{64})(?![0-9a-fA-F])`),
    gate: ['key=', 'key:', 'key =', 'pk=', 'pk:', 'accounts:'],
  },
  // The same key right after the word `key` in prose (`imported wallet with key 0x…`, `pk: 0x…`), not a public one.
  {
    name: 'private_key',
    pattern: re(String.raw`(?<![Pp]ublic[ \t_-])\b(?:[Kk]ey|KEY|privkey|pk|PK)\b[ \t]*(?:is[ \t]+|[=:][ \t]*)?\\?["']?(?<secret>0x[0-9a-fA-F]{64})(?![0-9a-fA-F])`),
    gate: ['key', 'pk'],
  },
  // A JSON member named just `key` whose value reads as generated: 32+ hex digits, or 24+ base64
  // characters with a capital, a small letter and a digit (a cache key, a file's or a map's key is a name).
  {
    name: 'api_key',
    pattern: re(String.raw`\\?"key\\?"[ \t]*:[ \t]*\\?"(?<secret>[0-9a-fA-F]{32,}|(?=[A-Za-z0-9+/_=-]*[A-Z])(?=[A-Za-z0-9+/_=-]*[a-z])(?=[A-Za-z0-9+/_=-]*\d)[A-Za-z0-9+/_-]{24,}={0,2})\\?"`),
    gate: ['"key"', '\\"key\\"'],
  },
  // A user and password before a host without a scheme (`scp f ops:…@backup.internal:/srv`, `rsync
  // … deploy:…@10.0.0.5:/data`): a generated-looking password (letters and digits), a host with a
  // dot; not a URI scheme's word (`mailto:x@…`) or an image's tag before its digest (`node:20@sha256:…`).
  {
    name: 'url_password',
    pattern: re(
      String.raw`(?<![\w/:.@%+\\-])(?!(?:mailto|sips?|tel|xmpp|news|urn|data|javascript|git|ssh|https?|ftps?|s3|gs|docker|npm|node|file|jdbc|redis|mongodb|postgres(?:ql)?|mysql|amqps?):)[A-Za-z][\w.-]{0,31}:(?<secret>[^\s:@/'"\\]{6,64})@(?=(?:[A-Za-z0-9-]+\.)+[A-Za-z0-9-]+(?:[:/\s'"]|$))`,
      'gi',
    ),
    check: (_, secret) => secret !== undefined && /[A-Za-z]/.test(secret) && /\d/.test(secret) && !isPlaceholder(secret),
    gate: ['@'],
  },
  // A wallet's recovery words after the words that name them (`my seed phrase is …`, `--mnemonic "…"`,
  // `Save this seed phrase…` then the words): 12 to 24 lower-case words, no other word after them.
  {
    name: 'private_key',
    pattern: re(
      String.raw`(?:(?:[Ss]eed|[Rr]ecovery|[Ss]ecret|[Bb]ackup|[Mm]nemonic)[ _-]?(?:[Pp]hrase|[Ww]ords|[Ss]heet)|[Mm]nemonic|MNEMONIC|SEED_(?:PHRASE|WORDS)|\b(?:12|15|18|21|24|twelve|twenty-four)[ \t]+words|[Ff]rase[ \t]+semilla|[Ff]rase[ \t]+de[ \t]+recupera(?:ción|cion|ção|cao)|from(?:Phrase|Mnemonic)\(|\\?"words\\?"|\b[Pp]hrase:)`
        + String.raw`(?:[^a-z\n]{0,6}?(?:(?:is|was|are)[ \t]+|[:=][ \t]*)?(?:\\?["'])?|[^\n]{0,80}?:[ \t]*)(?:[ \t]*(?:\r?\n|\\n))?(?<secret>[a-z]{3,8}(?:[ \t]+[a-z]{3,8}){11,23})(?![ \t]*[a-z])`,
    ),
    gate: ['seed', 'recovery', 'secret', 'backup', 'mnemonic', 'words', 'semilla', 'frase', 'fromphrase', 'phrase:'],
  },
  // The same words as a numbered list (`Backup words (write these down!):` then `1. weasel` …).
  {
    name: 'private_key',
    pattern: re(
      String.raw`(?:[Ss]eed|[Rr]ecovery|[Bb]ackup|[Mm]nemonic|[Ss]ecret)[ _-]?(?:[Pp]hrase|[Ww]ords)?[^\n]{0,60}(?:\r?\n|\\+n)(?<secret>(?:[ \t]*\d{1,2}[.)][ \t]*[a-z]{3,8}[ \t]*(?:\r?\n|\\+n|$|(?=\\*"))){12,24})`,
    ),
    gate: ['seed', 'recovery', 'backup', 'mnemonic', 'secret'],
  },
  // A one-time-password seed: shown for manual entry (`Enter this key manually: JBSW…`), given to
  // pyotp or to oathtool.
  {
    name: 'private_key',
    pattern: re(
      String.raw`(?:(?:enter|type)\s+(?:this|the\s+following|the)\s+(?:key|code|secret)(?:\s+manually)?|(?:setup|secret|manual(?:\s+entry)?)\s+key|key\s+manually)[^:\n]{0,20}:[ \t]*(?<secret>[A-Z2-7]{16,}(?:[ \t][A-Z2-7]{4,})*)`,
      'gi',
    ),
    check: (_, secret) => secret !== undefined && /[2-7]/.test(secret) && /[A-Z]/i.test(secret),
    gate: ['manual', 'setup key', 'secret key', 'enter this', 'the following'],
  },
  {
    name: 'private_key',
    pattern: re(String.raw`(?:pyotp\.(?:TOTP|HOTP)\(\s*\\?["']|oathtool\b${SAME_COMMAND}\s)(?<secret>[A-Za-z2-7]{16,}=*)(?![\w])`),
    gate: ['pyotp', 'oathtool'],
  },
  // Second-factor recovery codes under the words that name them (GitHub's `xxxxx-xxxxx`, Google's
  // `1. 9201 7272`, Discord's `xxxx-xxxx`): each code on its line, or a JSON array of them.
  {
    name: 'private_key',
    pattern: re(
      String.raw`(?:recovery|backup)[ _-]?codes?\\?["']?[^\n\[]{0,60}?(?:\[|(?:\r?\n|\\+n)|:[ \t]*)(?<secret>(?:[ \t]*(?:\d{1,2}[.)][ \t]*)?\\?["']?(?:[a-z0-9]{4,5}-[a-z0-9]{4,5}|\d{4}[ \t]\d{4}|[A-Z0-9]{8,12})\\?["']?[ \t]*,?[ \t]*(?:\r?\n|\\n)?){4,16})`,
      'gi',
    ),
    check: (_, secret) => secret !== undefined && /\d/.test(secret),
    // Each code replaced, its quotes and commas kept (a JSON array stays JSON).
    rewrite: (match, marker) => {
      const at = match.search(/\[|\r?\n|\\+n|:/);
      return match.slice(0, at + 1) + match.slice(at + 1).replace(RECOVERY_CODE, marker);
    },
    gate: ['recovery', 'backup'],
  },
  // A session cookie set by code, name and value as two arguments (PowerShell's `New-Object
  // System.Net.Cookie("JSESSIONID", "…", …)`, Selenium's `add_cookie({"name": "session", "value": "…"})`).
  {
    name: 'credential_header',
    pattern: re(
      String.raw`(?:Cookie\(\s*\\?["'](?:[\w.-]*sess[\w.-]*|sid|connect\.sid|[\w.-]*token[\w.-]*|[\w.-]*auth[\w.-]*)\\?["']\s*,\s*|\\?["']name\\?["']\s*:\s*\\?["'](?:[\w.-]*sess[\w.-]*|sid|connect\.sid|[\w.-]*token[\w.-]*|[\w.-]*auth[\w.-]*)\\?["']\s*,\s*\\?["']value\\?["']\s*:\s*)\\?["'](?<secret>[^"'\\\s]{8,})`,
      'gi',
    ),
    check: notPlaceholder,
    gate: ['cookie(', '"name"', "'name'", '\\"name\\"'],
  },
  // A value a GitHub Actions step masks (`::add-mask::<v>`): the workflow says it is a secret.
  {
    name: 'private_key',
    pattern: re(String.raw`::add-mask::(?<secret>(?![$%])[^\s"'\\]{6,})`),
    gate: ['::add-mask::'],
  },
  // A HashiCorp Vault token of the old form (`s.` and 24 characters) where Vault is named.
  {
    name: 'api_key',
    pattern: re(String.raw`${AT_ALNUM}[sbr]\.[A-Za-z0-9]{24}(?![A-Za-z0-9.])`),
    when: (s) => /vault/i.test(s),
    check: (match) => /\d/.test(match) && /[A-Z]/.test(match),
    gate: ['s.', 'b.', 'r.'],
  },
];
