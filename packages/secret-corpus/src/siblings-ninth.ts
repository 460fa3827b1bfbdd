/**
 * The siblings of the kinds a ninth held-out set (2026-12-08: 65 secret shapes sent through the
 * collector in tool arguments, results, feedback, exception events and model output, written without
 * reading this corpus or the rules) found stored: IBANs grouped by no-break spaces (German and French
 * typography) or dots (lower case without the word IBAN is left: see token-rules.ts); base64url without padding,
 * base64 standing alone in a message (`Command refused: <base64>`) or encoded twice, hex of a
 * secret's line; secret names ending `_PW`, Airflow's `FERNET_KEY`, a JSON `bearer`, a JSON `key`
 * whose value reads as generated; a user and password before a host without a scheme (`scp`); SQL
 * Server's `sp_addlogin` and `sp_password`, MongoDB's `changeUserPassword` and `auth`; IMAP's LOGIN
 * after a client marker, FTP's PASS in a transcript without markers; an Ethereum key after the word
 * key in prose; Fireworks AI's key. Generated as secrets.ts generates its own (fake.ts). Their
 * near-misses are in ordinary-held-out.ts ("ninth").
 */
import { ALNUM, b64, b64url, fake, ibanNumber, LOWER_HEX } from './fake.ts';
import type { SecretKind, SecretShape } from './shape.ts';

const f = fake;
const shapes: SecretShape[] = [];
const inText = (id: string, kind: SecretKind, secret: string, text: string) => shapes.push({ id, kind, secret, text });
/** A password as people write them: a capital, letters and digits. */
const pw = (seed: string) => `${f(seed, 1, 'BCDFGHKLMNPRST')}${f(`${seed}-w`, 3, 'abcdefghiklmnoprstuvw')}${f(`${seed}-d`, 2, '0123456789')}${f(`${seed}-x`, 4, 'abcdefghkmnpqrstwxyz')}${f(`${seed}-e`, 1, '0123456789')}`;

// IBANs: groups of four apart by a no-break space (U+00A0), a narrow one (U+202F), a thin space, a dot; lower case without the word.
const de = ibanNumber('ninth-de', 'DE', '999999999999999999');
const fr = ibanNumber('ninth-fr', 'FR', '99999999999AAAAAAAA9999');
const gb = ibanNumber('ninth-gb', 'GB', 'AAAA99999999999999');
const nl = ibanNumber('ninth-nl', 'NL', 'AAAA9999999999');
const groups = (iban: string, sep: string) => iban.replace(/(.{4})(?=.)/g, `$1${sep}`);
const middle = (iban: string, sep: string) => groups(iban, sep).split(sep).slice(2, 4).join(sep);
for (const [id, iban, sep, text] of [
  ['nbsp-after-word', de, '\u00a0', (v: string) => `Pay to IBAN\u00a0${v} today`],
  ['nbsp-alone', de, '\u00a0', (v: string) => `Kontoinhaber: Dana Weiß, ${v}`],
  ['narrow-nbsp-fr', fr, '\u202f', (v: string) => `Virement sur ${v}`],
  ['thin-space', nl, '\u2009', (v: string) => `rekening ${v}`],
  ['dots', de, '.', (v: string) => `beneficiary account ${v}`],
  ['dots-gb', gb, '.', (v: string) => `Sort it to ${v} by Friday`],
  ['lower-after-word', gb.toLowerCase(), ' ', (v: string) => `iban ${v}`],
] as const) {
  inText(`iban-${id}`, 'iban', middle(iban, sep), text(groups(iban, sep)));
}

// Encoded: base64url without padding, base64 standing alone in a message, base64 of base64, hex.
const clientSecret = f('ninth-client-secret', 12, ALNUM);
const urlJson = b64url(JSON.stringify({ client_id: 'abc', client_secret: clientSecret }));
inText('base64url-json-whole', 'env', urlJson, urlJson);
inText('base64url-json-in-json', 'env', urlJson, JSON.stringify({ state: urlJson }));
const envLine = `API_TOKEN=${f('ninth-api-token', 12, ALNUM)}\n`;
inText('base64-after-prefix', 'env', b64(envLine), `Command refused: ${b64(envLine)}`);
inText('base64-in-error', 'env', b64(`client_secret=${clientSecret}`), `error: could not parse config ${b64(`client_secret=${clientSecret}`)} (line 3)`);
inText('base64-twice', 'env', b64(b64(envLine)), b64(b64(envLine)));
inText('base64-twice-after-prefix', 'env', b64(b64(envLine)), `payload=${b64(b64(envLine))}`);
const hexLine = Buffer.from(`password=${pw('ninth-hex')}`).toString('hex');
inText('hex-of-password-line', 'env', hexLine, hexLine);
const hexEnv = Buffer.from(`DB_PASSWORD=${pw('ninth-hex-env')}\nDB_USER=app`).toString('hex');
inText('hex-of-env-file', 'env', hexEnv, hexEnv);

// Secret names: `…_PW` after any word, Fernet's key and its siblings, a JSON `bearer`, a generated JSON `key`.
for (const name of ['REDIS_PW', 'MYSQL_ROOT_PW', 'rabbitmq.pw', 'VNC_PW']) inText(`name-${name.toLowerCase().replace(/[^a-z]/g, '-')}`, 'key-name', pw(`ninth-${name}`), `${name}=${pw(`ninth-${name}`)}`);
const fernet = b64url(f('ninth-fernet', 32, ALNUM));
inText('name-airflow-fernet-key', 'key-name', fernet.replace(/=+$/, ''), `AIRFLOW__CORE__FERNET_KEY=${fernet}`);
for (const name of ['WEBHOOK_KEY', 'SHARED_KEY', 'cipher_key', 'DECRYPTION_KEY', 'UNLOCK_KEY']) {
  inText(`name-${name.toLowerCase().replace(/_/g, '-')}`, 'key-name', f(`ninth-${name}`, 32, ALNUM), `${name}=${f(`ninth-${name}`, 32, ALNUM)}`);
}
const bearer = f('ninth-bearer', 24, ALNUM);
inText('json-bearer', 'password-json', bearer, JSON.stringify({ auth_type: 'bearer', bearer }));
inText('json-bearer-token', 'password-json', bearer, JSON.stringify({ bearer_token: bearer }));
const hexKey = f('ninth-hex-key', 32, LOWER_HEX);
inText('json-key-hex', 'password-json', hexKey, JSON.stringify({ service: 'datadog', key: hexKey }));
const b64Key = `${f('ninth-b64-key', 27, ALNUM)}7Q`;
inText('json-key-generated', 'password-json', b64Key, JSON.stringify({ provider: 'maps', key: b64Key }));

// A user and password before a host, no scheme.
for (const [id, text] of [
  ['scp', (v: string) => `scp backup.tar ops:${v}@backup.internal:/srv`],
  ['rsync', (v: string) => `rsync -av ./dist deploy:${v}@10.0.4.12:/var/www`],
  ['prose', (v: string) => `log in with admin:${v}@nas.local and copy the share`],
] as const) {
  inText(`userinfo-no-scheme-${id}`, 'connection-string', pw(`ninth-userinfo-${id}`), text(pw(`ninth-userinfo-${id}`)));
}

// Database admin: SQL Server's stored procedures, MongoDB's shell.
for (const [id, text] of [
  ['sp-addlogin', (v: string) => `EXEC sp_addlogin 'reporting', '${v}';`],
  ['sp-addlogin-named', (v: string) => `EXEC sp_addlogin @loginame = 'etl', @passwd = N'${v}', @defdb = 'erp'`],
  ['sp-password', (v: string) => `EXEC sp_password NULL, '${v}', 'sa'`],
  ['mongo-change-user-password', (v: string) => `db.changeUserPassword("reporting", "${v}")`],
  ['mongo-auth', (v: string) => `use admin\ndb.auth("root", '${v}')`],
  ['superagent-auth', (v: string) => `request.get(url).auth('svc', '${v}').end(cb)`],
] as const) {
  inText(`db-admin-${id}`, 'sql-password', pw(`ninth-${id}`), text(pw(`ninth-${id}`)));
}

// Mail and file protocol transcripts.
const imap = pw('ninth-imap');
inText('imap-login-client-marker', 'log-password', imap, `C: a001 LOGIN ops@example.com ${imap}\nS: a001 OK LOGIN completed`);
inText('imap-login-arrow', 'log-password', imap, `> A1 LOGIN "ops" "${imap}"\n< A1 OK`);
const ftp = pw('ninth-ftp');
inText('ftp-pass-no-markers', 'log-password', ftp, `220 ready\nUSER deploy\n331 Password required\nPASS ${ftp}\n230 Logged in`);
inText('pop3-pass-no-markers', 'log-password', ftp, `+OK POP3 ready\nUSER dana\n+OK\nPASS ${ftp}\n+OK logged in`);

// An Ethereum key after the word `key` in prose; Fireworks AI's key.
const eth = `0x${f('ninth-eth', 64, LOWER_HEX)}`;
inText('eth-key-prose', 'private-key', eth, `imported wallet with key ${eth}`);
inText('eth-key-is', 'private-key', eth, `the deployer key is ${eth}, keep it safe`);
const fw = `fw_${f('ninth-fw', 20, ALNUM)}3Q`;
inText('fireworks-header', 'vendor-token', fw, `curl -H "x-key ${fw}" api.fireworks.ai`);
inText('fireworks-env', 'vendor-token', fw, `export FIREWORKS=${fw}`);

export const NINTH_SIBLING_SHAPES: readonly SecretShape[] = shapes;
