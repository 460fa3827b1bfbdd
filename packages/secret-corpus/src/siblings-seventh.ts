/**
 * The siblings of the kinds a seventh held-out set (2026-12-07: 411 secrets and 304 near-misses
 * weighted to agent tool output of 2026: MCP and package-manager configs, CI logs, `printenv` and
 * `docker inspect`, devtools exports, OAuth flows, protocol transcripts, wallets and prose in
 * several languages, written without reading this corpus or the rules) found kept or damaged:
 * passwords in prose after a verb (German's `ist` no longer read inside `Jenkins`; Chinese and
 * Japanese with no space before `是` or `は`), a passphrase "for the <words> key", a password at
 * redis-cli's prompt and in IMAP's `LOGIN`, echoed into `kinit` or `az devops login`, ipmitool's
 * `-P`, Go's MySQL DSN, a Wi-Fi QR payload, an Azure Functions key in its URL, PKCE's
 * `code_verifier`, an environment printed as a table or by fish, and a card's whole magnetic track.
 * Generated as secrets.ts generates its own (fake.ts). Their near-misses are in
 * ordinary-held-out.ts ("seventh").
 */
import { ALNUM, BASE64, fake, LOWER_HEX, luhnNumber } from './fake.ts';
import type { SecretKind, SecretShape } from './shape.ts';

const f = fake;
const shapes: SecretShape[] = [];
const inText = (id: string, kind: SecretKind, secret: string, text: string) => shapes.push({ id, kind, secret, text });
/** A password as people write them: a word, digits and a symbol. */
const pw = (seed: string) => `${f(seed, 1, 'BCDFGHKLMNPRST')}${f(`${seed}-w`, 6, 'abcdefghiklmnoprstuvw')}${f(`${seed}-d`, 3, '0123456789')}${f(`${seed}-s`, 1, '!#*+%')}`;

// Passwords in chat, after the verb that says what it is.
inText('prose-de-verb-inside-word', 'log-password', pw('prose-de-jenkins'), `Das Passwort für den Jenkins-Agenten ist ${pw('prose-de-jenkins')}, der Benutzer ist build.`);
inText('prose-de-estate', 'log-password', pw('prose-de-est'), `Kennwort für Estland-VPN ist ${pw('prose-de-est')}`);
inText('prose-zh-no-space', 'log-password', pw('prose-zh'), `测试环境的数据库密码是${pw('prose-zh')}，用完请改`);
inText('prose-zh-space', 'log-password', pw('prose-zh-2'), `跳板机密码为 ${pw('prose-zh-2')} ，不要外传`);
inText('prose-ja-wa', 'log-password', pw('prose-ja'), `ステージングのパスワードは ${pw('prose-ja')} です。`);
inText('prose-fr-ampersand', 'log-password', `${f('prose-fr-amp', 6, 'abcdefghiklmnoprstuvw')}&${f('prose-fr-amp-d', 3, '0123456789')}`, `Le mot de passe de la borne est ${f('prose-fr-amp', 6, 'abcdefghiklmnoprstuvw')}&${f('prose-fr-amp-d', 3, '0123456789')} jusqu'à lundi.`);
inText('prose-passphrase-for-words', 'log-password', f('passphrase-words', 14), `The passphrase for the release signing key is "${f('passphrase-words', 14)}".`);
inText('prose-password-for-the-words', 'log-password', pw('prose-en-words'), `password for the staging admin account is '${pw('prose-en-words')}'`);

// Protocol transcripts and commands.
inText('redis-prompt-auth', 'cli-password', pw('redis-prompt'), `$ redis-cli -h redis.internal\nredis.internal:6379> AUTH app ${pw('redis-prompt')}\nOK\nredis.internal:6379> KEYS session:*`);
inText('redis-prompt-auth-db', 'cli-password', pw('redis-prompt-db'), `127.0.0.1:6379> SELECT 2\nOK\n127.0.0.1:6379[2]> AUTH ${pw('redis-prompt-db')}\nOK`);
inText('imap-login-quoted', 'cli-password', pw('imap-login'), `* OK [CAPABILITY IMAP4rev1 AUTH=PLAIN] ready\na001 LOGIN ops@example.org "${pw('imap-login')}"\na001 OK LOGIN completed`);
inText('imap-login-atom', 'cli-password', `${f('imap-atom', 12)}9`, `A1 CAPABILITY\nA2 LOGIN mailer ${f('imap-atom', 12)}9\nA2 OK [CAPABILITY IMAP4rev1] Logged in`);
inText('echo-kinit', 'cli-password', pw('echo-kinit'), `echo "${pw('echo-kinit')}" | kinit etl@EXAMPLE.ORG && klist`);
const pat = f('az-pat', 52, 'abcdefghijklmnopqrstuvwxyz234567');
inText('echo-az-devops-login', 'cli-password', pat, `echo ${pat} | az devops login --organization https://dev.azure.com/example`);
inText('ipmitool-password', 'cli-password', pw('ipmitool'), `ipmitool -I lanplus -H 10.20.0.7 -U root -P ${pw('ipmitool')} sol activate`);

const mcSecret = f('mc-secret', 40, `${ALNUM}_`);
inText('minio-alias-secret', 'cli-password', mcSecret, `mc alias set backup https://minio.internal:9000 ${f('mc-access', 20, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789')} ${mcSecret} --api S3v4`);

// Connection strings and URLs.
const dsnPw = `${pw('go-dsn')}@${f('go-dsn-2', 5)}`;
inText('go-mysql-dsn-at-in-password', 'connection-string', dsnPw, `sql.Open("mysql", "billing:${dsnPw}@tcp(db.internal:3306)/billing?parseTime=true")`);
inText('go-mysql-dsn-unix', 'connection-string', pw('go-dsn-unix'), `dsn: reporter:${pw('go-dsn-unix')}@unix(/var/run/mysqld/mysqld.sock)/reports`);
inText('wifi-qr', 'config-file', pw('wifi-qr'), `WIFI:S:Office-5G;T:WPA;P:${pw('wifi-qr')};H:false;;`);
const fnKey = `${f('azure-fn', 54, `${ALNUM}_-`)}==`;
inText('azure-functions-key-url', 'query-string', fnKey, `POST https://billing-fn.azurewebsites.net/api/charge?code=${fnKey}`);
const verifier = f('pkce-verifier', 43, `${ALNUM}-._~`);
inText('pkce-code-verifier', 'query-string', verifier, `grant_type=authorization_code&client_id=desktop&redirect_uri=http%3A%2F%2F127.0.0.1%3A8400&code_verifier=${verifier}`);

// An environment printed as a table (PowerShell's `gci env:`) or by fish (`set -x`).
const clientSecret = f('env-table-secret', 48, `${ALNUM}_-`);
inText('env-table-powershell', 'env', clientSecret, `Name                           Value\n----                           -----\nOKTA_CLIENT_SECRET             ${clientSecret}\nOS                             Windows_NT`);
const fishToken = `${f('fish-token', 8, LOWER_HEX)}-${f('fish-token-2', 4, LOWER_HEX)}-${f('fish-token-3', 4, LOWER_HEX)}-${f('fish-token-4', 4, LOWER_HEX)}-${f('fish-token-5', 12, LOWER_HEX)}`;
inText('env-fish-set', 'env', fishToken, `PATH /usr/local/bin /usr/bin\nDATADOG_API_TOKEN ${fishToken}\nTERM xterm-256color`);
const fishKey = f('fish-key', 40, BASE64.replace(/[+/]/g, ''));
inText('env-fish-set-key', 'env', fishKey, `LANG en_US.UTF-8\nSENDGRID_API_KEY ${fishKey}`);

// Wallet keys: an extended private key, a key passed to a command, a key printed after its label.
const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const xprv = `xprv9s21ZrQH143K${f('xprv', 95, BASE58)}`;
inText('wallet-xprv-json', 'private-key', xprv, `{"wallet_type": "standard", "keystore": {"type": "bip32", "xprv": "${xprv}"}}`);
const hexKey = f('cast-key', 64, LOWER_HEX);
inText('wallet-private-key-flag', 'private-key', hexKey, `cast send 0xA0b8…eB48 "transfer(address,uint256)" 0xdead 1 --private-key ${hexKey} --rpc-url $RPC`);
const b58 = f('solana-b58', 88, BASE58);
inText('wallet-private-key-label', 'private-key', b58, `Exported account\nPublic key: ${f('solana-pub', 44, BASE58)}\nPrivate key (base58): ${b58}`);

// A card's magnetic track: the number with the holder, the expiry and the discretionary data.
{
  const pan = luhnNumber('track-pan', '4916', 16);
  const discretionary = f('track-dd', 20, '0123456789');
  inText('card-track-whole', 'card', `^2711101${discretionary}`, `swipe: %B${pan}^NGUYEN/ANH T^2711101${discretionary}?`);
}

// Kept at the first look (2026-12-07): a YAML value holding `&name=` (read as a query string's next
// pair), SMTP's AUTH LOGIN password line, Postfix's sasl_passwd.
{
  const composePw = `${f('compose-amp', 4)}&${f('compose-amp-2', 2, '0123456789')}=${f('compose-amp-3', 6)}=${f('compose-amp-4', 7)}+`;
  inText('compose-password-ampersand', 'config-file', composePw, `services:\n  db:\n    image: postgres:17\n    environment:\n      POSTGRES_PASSWORD: ${composePw}\n  api:\n    image: acme/api`);
  const headerKey = `${f('header-amp', 12)}&k=${f('header-amp-2', 12)}`;
  inText('yaml-api-key-ampersand', 'config-file', headerKey, `upstream:\n  url: https://api.example.com/v2\n  api_key: ${headerKey}\n  timeout: 30`);
  const smtpPw = Buffer.from(pw('smtp-login')).toString('base64');
  inText('smtp-auth-login', 'cli-password', smtpPw, `$ openssl s_client -starttls smtp -connect smtp.example.org:587 -quiet\nAUTH LOGIN\n334 VXNlcm5hbWU6\nbWFpbGVyQGV4YW1wbGUub3Jn\n334 UGFzc3dvcmQ6\n${smtpPw}\n235 2.7.0 Authentication successful`);
  const sesPw = f('ses-smtp', 44, `${ALNUM}+/`);
  inText('postfix-sasl-passwd-ses', 'config-file', sesPw, `# /etc/postfix/sasl_passwd\n[email-smtp.eu-west-1.amazonaws.com]:587 AKIA${f('ses-akia', 16, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567')}:${sesPw}`);
  inText('postfix-sasl-passwd', 'config-file', pw('sasl-passwd'), `$ sudo cat /etc/postfix/sasl_passwd\n[smtp.gmail.com]:587 alerts@example.org:${pw('sasl-passwd')}`);
}

export const SEVENTH_SIBLING_SHAPES: readonly SecretShape[] = shapes;
