/**
 * The siblings of the corpus' kinds that a second held-out set (2026-12-06: 432 secrets written
 * without reading secrets.ts) found kept: other key names, SQL forms, log phrasings, command
 * lines, Redis and .pgpass lines, password hashes, quoted header parameters, IBANs and cards in
 * other spellings, 17 more vendor tokens, unsigned JWTs and JWEs, and secrets behind encodings.
 * Generated as secrets.ts generates its own (fake.ts): valid in form, useless in fact.
 */
import { ALNUM, BASE64, b64url, fake, grouped, ibanNumber, ibanPrinted, LOWER_HEX, luhnNumber, UPPER_DIGITS, URLSAFE } from './fake.ts';
import type { SecretKind, SecretShape } from './shape.ts';

const f = fake;
const shapes: SecretShape[] = [];
const token = (id: string, kind: SecretKind, secret: string, text = `token ${secret} used`) => shapes.push({ id, kind, secret, text });
const inText = (id: string, kind: SecretKind, secret: string, text: string) => shapes.push({ id, kind, secret, text });
const keyed = (id: string, kind: SecretKind, key: string, secret: string) => shapes.push({ id, kind, key, secret });

// Names: other key names whose value is a secret (an env line, a JSON key, an attribute).
for (const key of [
  'PASSKEY',
  'AUTH_KEY',
  'DB_PW',
  'LDAP_BIND_PW',
  'KEYSTORE_PASS',
  'RABBITMQ_DEFAULT_PASS',
  'SESSION_KEY',
  'PEPPER',
  'MNEMONIC',
  'SEED_PHRASE',
  'BASIC_AUTH',
  'SECRETS',
  'CLIENT_KEY',
  'CONSUMER_KEY',
  'SERVICE_ROLE_KEY',
  'DD_APP_KEY',
  'ConnectionStrings__Default',
  'password_confirmation',
  'password1',
  'secretText',
  'mfa_seed',
  'totp_key',
  'creds',
  'card_cvc',
]) {
  keyed(`name-${key.toLowerCase()}`, 'key-name', key, `${f(`name-${key}`, 14)}N4`);
}
for (const [id, template] of [
  ['env-makefile-conditional', (p: string) => `SECRET_KEY_BASE ?= ${p}`],
  ['env-makefile-immediate', (p: string) => `DB_PASSWORD := ${p}`],
  ['env-yaml-block-scalar', (p: string) => `tls:\n  private_key: |\n    ${p}\n    ${p.split('').reverse().join('')}\nport: 443`],
  ['json-name-value-pair', (p: string) => JSON.stringify([{ name: 'DB_PASSWORD', value: p }, { name: 'REGION', value: 'eu-west-1' }])],
  ['json-value-name-pair', (p: string) => `{"value": "${p}", "name": "secret_value"}`],
  ['k8s-env-entry', (p: string) => `containers:\n  - env:\n    - name: API_TOKEN\n      value: "${p}"\n    - name: LOG_LEVEL\n      value: debug`],
  ['redis-conf', (p: string) => `bind 127.0.0.1\nrequirepass ${p}\nmaxmemory 2gb`],
  ['redis-masterauth', (p: string) => `replicaof 10.0.0.4 6379\nmasterauth "${p}"`],
  ['redis-config-set', (p: string) => `redis-cli CONFIG SET requirepass '${p}'`],
  ['redis-auth-line', (p: string) => `SELECT 2\nAUTH default ${p}\nGET session:42`],
  ['pgpass-line', (p: string) => `db.internal:5432:*:reporting:${p}`],
  ['odbc-braced-password', (p: string) => `Driver={ODBC Driver 18 for SQL Server};Server=db;UID=sa;PWD={${p};x};`],
] as const) {
  const p = `${f(id, 14)}R6`;
  inText(id, id.startsWith('env') ? 'env' : 'config-file', p, template(p));
}
{
  const hash = `$apr1$${f('htpasswd-salt', 8)}$${f('htpasswd', 22, `${ALNUM}./`)}`;
  inText('htpasswd-hash', 'config-file', hash, `admin:${hash}`);
  const bcrypt = `$2b$12$${f('bcrypt', 53, `${ALNUM}./`)}`;
  inText('bcrypt-hash-in-row', 'config-file', bcrypt, `UPDATE users SET password_digest = '${bcrypt}' WHERE id = 7`);
}
for (const [id, template] of [
  ['sql-dollar-quoted', (p: string) => `CREATE USER etl PASSWORD $$${p}$$;`],
  ['sql-escape-string', (p: string) => `CREATE USER app WITH PASSWORD E'${p}';`],
  ['sql-mssql-unicode-literal', (p: string) => `ALTER LOGIN sa WITH PASSWORD = N'${p}' MUST_CHANGE, CHECK_POLICY = ON;`],
  ['sql-doubled-quote', (p: string) => `ALTER ROLE app PASSWORD '${p.slice(0, 6)}''${p.slice(6)}';`],
  ['sql-sp-password', (p: string) => `EXEC sp_password NULL, '${p}', 'sa';`],
  ['sql-oracle-replace', (p: string) => `ALTER USER scott IDENTIFIED BY tiger2 REPLACE ${p};`],
  ['sql-oracle-db-link', (p: string) => `CREATE DATABASE LINK sales CONNECT TO scott IDENTIFIED BY ${p} USING 'salesdb';`],
  ['sql-sqlplus-logon', (p: string) => `sqlplus system/${p}@//db.internal:1521/XE @migrate.sql`],
  ['sql-oracle-connect', (p: string) => `CONNECT scott/${p}@orcl`],
  ['sql-jdbc-oracle-thin', (p: string) => `url=jdbc:oracle:thin:scott/${p}@//db.corp:1521/ORCL`],
  ['sql-duckdb-secret', (p: string) => `CREATE SECRET s3 (TYPE S3, KEY_ID 'AKID', SECRET '${p}x9y8z7', REGION 'eu-west-1');`],
  ['sql-insert-password-column', (p: string) => `INSERT INTO users (email, password) VALUES ('dana@example.com', '${p}');`],
  ['sql-insert-quoted-token-column', (p: string) => `INSERT INTO "accounts" ("name", "api_token", created_at) VALUES ('ci', '${p}', now())`],
] as const) {
  const p = `${f(id, 14)}Z3`;
  inText(id, 'sql-password', p, template(p));
}
for (const [id, template] of [
  ['log-with-password-bare', (p: string) => `WARN login failed for user admin with password ${p} from 10.0.0.7`],
  ['log-password-for-user-is', (p: string) => `Temporary password for user alice is ${p}`],
  ['log-password-rejected', (p: string) => `password ${p} rejected for user bob`],
  ['log-with-passwd', (p: string) => `retrying ssh connection with passwd ${p}`],
  ['log-with-pass-quoted', (p: string) => `login failed for user "admin" with pass "${p}"`],
  ['log-set-password-to', (p: string) => `admin reset: set password to '${p}' for user carol`],
  ['log-tried-password', (p: string) => `attempt 3: tried password ${p} for deploy@10.0.0.5`],
] as const) {
  const p = `${f(id, 12)}L2`;
  inText(id, 'log-password', p, template(p));
}
for (const [id, template] of [
  ['text-invalid-auth-token', (p: string) => `Error: 401 Unauthorized - invalid auth token ${p} for /v1/jobs`],
  ['text-token-expired-quoted', (p: string) => `token '${p}' has expired`],
  ['text-invalid-api-key', (p: string) => `invalid api key: ${p}`],
  ['text-with-token', (p: string) => `calling the registry with token ${p}`],
  ['header-token-param', (p: string) => `Authorization: Token token="${p}"`],
  ['header-digest-response', (p: string) => `Authorization: Digest username="bob", realm="api", nonce="n1", response="${p}"`],
] as const) {
  const p = `${f(id, 24)}T7`;
  inText(id, 'header', p, template(p));
}
for (const [id, template] of [
  ['cli-docker-login-short', (p: string) => `docker login -u bot -p ${p} registry.example.com`],
  ['cli-mongosh', (p: string) => `mongosh "mongodb://db:27017/app" -u admin -p ${p} --authenticationDatabase admin`],
  ['cli-sqlcmd', (p: string) => `sqlcmd -S db.internal -U sa -P ${p} -Q "SELECT 1"`],
  ['cli-ldapsearch', (p: string) => `ldapsearch -x -D "cn=admin,dc=example,dc=com" -w ${p} -b dc=example,dc=com`],
  ['cli-7z', (p: string) => `7z a -p${p} -mhe=on backup.7z data/`],
  ['cli-htpasswd-batch', (p: string) => `htpasswd -b -c /etc/nginx/.htpasswd admin ${p}`],
  ['cli-password-stdin', (p: string) => `echo ${p} | docker login -u bot --password-stdin ghcr.io`],
  ['cli-token-option', (p: string) => `gh-release upload --token ${p} v1.2.0 dist/*`],
  ['cli-api-key-option', (p: string) => `llm --api-key=${p} "summarise the log"`],
  ['cli-client-secret-option', (p: string) => `oauth2-cli --client-id app --client-secret ${p}`],
] as const) {
  const p = `${f(id, 14)}K5`;
  inText(id, 'cli-password', p, template(p));
}
{
  const de = ibanNumber('iban-lower', 'DE', '999999999999999999');
  inText('iban-lowercase-after-word', 'iban', de.toLowerCase(), `iban: ${de.toLowerCase()}`);
  const gb = ibanNumber('iban-dashed', 'GB', 'AAAA99999999999999');
  const dashed = ibanPrinted(gb).replaceAll(' ', '-');
  inText('iban-dashed', 'iban', dashed, `Account ${dashed}`);
  const maestro = luhnNumber('card-maestro', '6759', 18);
  inText('card-maestro-compact', 'card', maestro, `pan=${maestro}`);
  inText('card-maestro-dashed', 'card', grouped(luhnNumber('card-maestro-d', '6759', 16), '-'), `{"card_number":"${grouped(luhnNumber('card-maestro-d', '6759', 16), '-')}"}`);
  const dotted = grouped(luhnNumber('card-dotted', '4', 16), '.');
  inText('card-dotted', 'card', dotted, `card: ${dotted}`);
}
// A third look (2026-12-06, evening): salts under a secret's name (WordPress' keys and salts), a
// name and its value as a call's arguments (wp-config.php's `define`), PHP's and Ruby's `=>`, an
// index assigned, and a Kubernetes Secret's data under names that say nothing (YAML and JSON).
for (const key of ['AUTH_SALT', 'SECURE_AUTH_SALT', 'password_salt']) {
  keyed(`name-${key.toLowerCase()}`, 'key-name', key, `${f(`name-${key}`, 14)}S8`);
}
for (const [id, template] of [
  ['php-define', (p: string) => `define( 'DB_PASSWORD', '${p}' );`],
  ['php-define-salt', (p: string) => `define('NONCE_SALT', '${p}');`],
  ['python-setdefault', (p: string) => `os.environ.setdefault("API_TOKEN", "${p}")`],
  ['python-getenv-default', (p: string) => `DB_PASSWORD = os.getenv("DB_PASSWORD", "${p}")`],
  ['php-array-arrow', (p: string) => `'mysql' => ['host' => 'db', 'password' => '${p}'],`],
  ['ruby-symbol-arrow', (p: string) => `{ :user => "deploy", :password => "${p}" }`],
  ['python-environ-index', (p: string) => `os.environ["SECRET_KEY"] = "${p}"`],
  ['php-env-index', (p: string) => `$_ENV['STRIPE_SECRET'] = '${p}';`],
] as const) {
  const p = `${f(id, 14)}P4`;
  inText(id, 'config-file', p, template(p));
}
{
  const value = Buffer.from(`postgres://app:${f('k8s-secret-url', 16)}@db:5432/app`).toString('base64');
  inText('k8s-secret-yaml-data', 'config-file', value, `apiVersion: v1\nkind: Secret\nmetadata:\n  name: app\ntype: Opaque\ndata:\n  db-url: ${value}\n  region: ZXUtd2VzdC0x\n`);
  const plain = `${f('k8s-string-data', 18)}Q1`;
  inText('k8s-secret-yaml-string-data', 'config-file', plain, `kind: Secret\nstringData:\n  config.yaml: |\n    upstream_key: ${plain}\n  mode: fast\n`);
  const json = Buffer.from(f('k8s-secret-json', 24)).toString('base64');
  inText('k8s-secret-json-data', 'config-file', json, JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'app' }, data: { 'app.conf': json } }));
}
// A third held-out set (2026-12-06, evening: 561 secrets and 179 near-misses written without
// reading this corpus; 98 kept, 30 ordinary strings changed): the kinds it found, with values of our own.
for (const [id, template] of [
  ['yaml-child-of-secret-parent', (p: string) => `credentials:\n  database_password: ${p}\n  region: eu-west-1\n`],
  ['ts-typed-const', (p: string) => `const dbPassword: string = "${p}";`],
  ['rust-typed-const', (p: string) => `const API_TOKEN: &str = "${p}";`],
  ['python-typed-assignment', (p: string) => `secret_key: str = "${p}"`],
  ['otpauth-uri', (p: string) => `otpauth://totp/Acme:dana?secret=${p.toUpperCase().replace(/[^A-Z2-7]/g, 'Q')}&issuer=Acme`],
  ['python-basic-auth-call', (p: string) => `auth = HTTPBasicAuth("svc-reports", "${p}")`],
  ['python-auth-tuple', (p: string) => `requests.post(url, json=body, auth=("svc", "${p}"))`],
  ['java-get-connection', (p: string) => `DriverManager.getConnection("jdbc:mysql://db/app", "app", "${p}");`],
  ['php-pdo', (p: string) => `$db = new PDO($dsn, 'reporting', '${p}');`],
  ['python-smtp-login', (p: string) => `server.login("alerts@example.com", "${p}")`],
  ['csharp-network-credential', (p: string) => `new NetworkCredential("svc", "${p}", "CORP")`],
  ['node-jwt-sign', (p: string) => `const t = jwt.sign(claims, '${p}', { expiresIn: '15m' });`],
  ['django-set-password', (p: string) => `admin.set_password("${p}")`],
  ['php-curl-userpwd', (p: string) => `curl_setopt($ch, CURLOPT_USERPWD, "reports:${p}");`],
  ['node-env-fallback', (p: string) => `const secret = process.env.JWT_SECRET || "${p}";`],
  ['go-mysql-dsn', (p: string) => `sql.Open("mysql", "app:${p}@tcp(db:3306)/shop?parseTime=true")`],
  ['terraform-variable-default', (p: string) => `variable "admin_password" {\n  type    = string\n  default = "${p}"\n}`],
  ['log-generated-password-for', (p: string) => `Generated password for the admin built-in user is : ${p}`],
  ['cli-cargo-login', (p: string) => `cargo login cio${p}${p}`],
  ['cli-ngrok-authtoken', (p: string) => `ngrok config add-authtoken ${p}_${p}`],
  ['cli-zip-password', (p: string) => `zip -r -P ${p} backup.zip ./data`],
  ['cli-ssh-keygen-passphrase', (p: string) => `ssh-keygen -t rsa -b 4096 -N '${p}' -f deploy_key`],
  ['cli-openssl-enc-k', (p: string) => `openssl enc -aes-256-cbc -salt -in db.sql -out db.enc -k ${p}`],
  ['cli-openssl-passwd', (p: string) => `openssl passwd -6 '${p}'`],
  ['cli-smbclient-user-percent', (p: string) => `smbclient //nas/backups -U 'CORP\\svc%${p}' -c ls`],
  ['cli-net-use-user', (p: string) => `net use Y: \\\\nas\\backups /user:CORP\\svc ${p}`],
  ['cli-xfreerdp-p', (p: string) => `xfreerdp /v:10.1.2.3 /u:admin /p:${p} /cert:ignore`],
  ['cli-convertto-securestring', (p: string) => `$secure = ConvertTo-SecureString '${p}' -AsPlainText -Force`],
  ['cli-echo-sudo-s', (p: string) => `echo "${p}" | sudo -S systemctl restart app`],
  ['cli-echo-chpasswd', (p: string) => `echo "deploy:${p}" | chpasswd`],
  ['cli-lftp-user-comma', (p: string) => `lftp -u reports,${p} sftp://files.example.com`],
  ['cli-rsync-password-file-echo', (p: string) => `rsync -a --password-file=<(echo ${p}) ./ rsync://svc@nas/data`],
  ['cli-az-account-key', (p: string) => `az storage container list --account-name acme --account-key ${p}${p}==`],
  ['text-auth-token-space', (p: string) => `auth_token ${p}${p}`],
] as const) {
  const p = `${f(id, 16)}W9`;
  inText(id, id.startsWith('cli') ? 'cli-password' : 'config-file', p, template(p));
}
{
  const b32 = (seed: string, n: number) => f(seed, n, 'abcdefghijklmnopqrstuvwxyz234567');
  const key = Array.from({ length: 8 }, (_, i) => b32(`totp-spaced-${i}`, 4)).join(' ');
  inText('totp-setup-key-spaced', 'config-file', key, `Can't scan the code? Enter this key: ${key}`);
  const app = Array.from({ length: 4 }, (_, i) => f(`app-password-${i}`, 4, 'abcdefghijklmnopqrstuvwxyz')).join(' ');
  inText('app-password-spaced', 'config-file', app, `Your app password: ${app}`);
  const codes = Array.from({ length: 3 }, (_, i) => `${f(`recovery-${i}`, 5, 'abcdefghijkmnpqrstuvwxyz23456789')}-${f(`recovery-b-${i}`, 5, 'abcdefghijkmnpqrstuvwxyz23456789')}`);
  inText('recovery-codes-list', 'config-file', codes[1] as string, `Recovery codes:\n${codes.join('\n')}\n`);
  const id = `AKIA${f('aws-pair-id', 16, UPPER_DIGITS)}`;
  const secret = f('aws-pair-secret', 40, `${ALNUM}/+`);
  inText('aws-credentials-csv-row', 'cloud', secret, `User name,Access key ID,Secret access key\nci-bot,${id},${secret}\n`);
  inText('aws-key-pair-spaced', 'cloud', f('aws-pair-secret-2', 40, `${ALNUM}/+`), `${`AKIA${f('aws-pair-id-2', 16, UPPER_DIGITS)}`} ${f('aws-pair-secret-2', 40, `${ALNUM}/+`)}`);
  const bot = `${f('tg-url-id', 10, '0123456789').replace(/^0/, '7')}:AA${f('tg-url', 33, URLSAFE)}`;
  inText('telegram-bot-url', 'vendor-token', bot, `GET https://api.telegram.org/bot${bot}/getUpdates`);
  const teams = `${f('teams-1', 8, LOWER_HEX)}-${f('teams-2', 4, LOWER_HEX)}@${f('teams-3', 8, LOWER_HEX)}/IncomingWebhook/${f('teams-4', 32, LOWER_HEX)}`;
  inText('teams-webhook', 'vendor-token', teams, `https://contoso.webhook.office.com/webhookb2/${teams}`);
  const jwkK = f('jwk-oct', 43, URLSAFE);
  inText('jwk-symmetric-k', 'private-key', jwkK, JSON.stringify({ kty: 'oct', alg: 'HS256', k: jwkK }));
  const jwkD = f('jwk-ec-d', 43, URLSAFE);
  inText('jwk-ec-private-d', 'private-key', jwkD, JSON.stringify({ kty: 'EC', crv: 'P-256', x: f('jwk-ec-x', 43, URLSAFE), y: f('jwk-ec-y', 43, URLSAFE), d: jwkD }));
  const mysql = `*${f('mysql-hash', 40, '0123456789ABCDEF')}`;
  inText('mysql-native-password-hash', 'config-file', mysql.slice(1), `| app | % | ${mysql} |`);
  const md5 = `md5${f('pg-md5', 32, LOWER_HEX)}`;
  inText('postgres-md5-hash', 'config-file', md5, `app | ${md5}`);
  const nt = f('nt-hash', 32, LOWER_HEX);
  inText('pwdump-nt-hash', 'config-file', nt, `svc_backup:1104:aad3b435b51404eeaad3b435b51404ee:${nt}:::`);
  const sha = f('sha-column', 64, LOWER_HEX);
  inText('sql-update-password-column', 'sql-password', sha, `UPDATE accounts SET password_sha256 = '${sha}' WHERE id = 42;`);
  const track = luhnNumber('card-track1', '4', 16);
  inText('card-track1', 'card', track, `%B${track}^DOE/DANA^2812101000000000000?`);
  const tail = f('vendor-tail', 18);
  inText('name-after-vendor-prefix-tail', 'key-name', tail, `SERVICE_TOKEN=ghp_${f('vendor-tail-ghp', 36)}.${tail}`);
}
for (const key of ['WIFI_PSK', 'SDK_KEY', 'AES_KEY']) {
  keyed(`name-${key.toLowerCase()}`, 'key-name', key, `${f(`name-${key}`, 14)}V3`);
}
for (const [id, template] of [
  ['python-client-positional-key', (p: string) => `co = cohere.Client("${p}")`],
  ['twilio-client-sid-and-token', (p: string) => `client = Client("AC${f('twilio-sid', 32, LOWER_HEX)}", "${p}")`],
  ['algolia-search-client-key', (p: string) => `const index = algoliasearch('KX8D0P2QWE', '${p}');`],
] as const) {
  const p = `${f(id, 30)}7k`;
  inText(id, 'vendor-token', p, template(p));
}
token('resend-key', 'vendor-token', `re_${f('resend-a', 8)}_${f('resend-b', 24)}`);
token('mandrill-key', 'vendor-token', `md-${f('mandrill', 20)}Q7`);
token('dropbox-short-lived', 'vendor-token', `sl.${f('dropbox', 140, URLSAFE)}`);
token('adafruit-io-key', 'vendor-token', `aio_${f('adafruit', 28)}`);
token('sonarqube-user-token', 'vendor-token', `squ_${f('sonar', 40, LOWER_HEX)}`);
token('prefect-api-key', 'vendor-token', `pnu_${f('prefect', 36)}`);
token('mailchimp-key', 'vendor-token', `${f('mailchimp', 32, LOWER_HEX)}-us21`);
token('notion-secret-legacy', 'vendor-token', `secret_${f('notion-legacy', 43)}`);
token('atlassian-api-token', 'vendor-token', `ATATT3xFfGF0${f('atlassian', 180, URLSAFE)}=${f('atl-crc', 8, UPPER_DIGITS)}`);
token('square-access-token', 'vendor-token', `EAAA${f('square', 60, URLSAFE)}`);
token('braintree-access-token', 'vendor-token', `access_token$production$${f('bt-merchant', 16, 'abcdefghijklmnopqrstuvwxyz0123456789')}$${f('braintree', 32, LOWER_HEX)}`);
token('sentry-user-token', 'vendor-token', `sntryu_${f('sentry', 64, LOWER_HEX)}`);
token('netlify-token', 'vendor-token', `nfp_${f('netlify', 40)}`);
token('figma-token', 'vendor-token', `figd_${f('figma', 40, URLSAFE)}`);
token('fly-token', 'vendor-token', `FlyV1 fm2_${f('fly', 80, BASE64)}`);
token('heroku-token', 'vendor-token', `HRKU-AA${f('heroku', 58, URLSAFE)}`);
token('gcp-refresh-token', 'vendor-token', `1//0${f('gcp-refresh', 60, URLSAFE)}`);
token('confluent-key-secret', 'vendor-token', `${f('confluent-key', 16, UPPER_DIGITS)}:${f('confluent', 64, BASE64)}`);
token('render-key', 'vendor-token', `rnd_${f('render', 32)}`);
token('supabase-secret-key', 'vendor-token', `sb_secret_${f('supabase', 32, URLSAFE)}`);
token('dynatrace-token', 'vendor-token', `dt0c01.${f('dt-id', 24, UPPER_DIGITS)}.${f('dynatrace', 64, UPPER_DIGITS)}`);
token('alibaba-access-key-id', 'cloud', `LTAI${f('alibaba', 20)}`);
token('tencent-secret-id', 'cloud', `AKID${f('tencent', 32)}`);
{
  const secret = f('aws-secret-space', 40, BASE64);
  inText('aws-secret-after-space', 'cloud', secret, `AccessKeyId AKIAIOSFODNN7EXAMPLE SecretAccessKey ${secret}`);
  const none = `eyJhbGciOiJub25lIn0.${b64url(JSON.stringify({ sub: f('jwt-none', 8), admin: true }))}.`;
  inText('jwt-unsigned', 'jwt', none, `got ${none} from client`);
  const jwe = `eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0..${f('jwe-iv', 16, URLSAFE)}.${f('jwe', 64, URLSAFE)}.${f('jwe-tag', 22, URLSAFE)}`;
  inText('jwe-compact', 'jwt', jwe, `encrypted ${jwe}`);
}
// Behind an encoding no JSON literal undoes.
for (const [id, template] of [
  ['encoded-unicode-escapes', (p: string) => `{\\u0022password\\u0022: \\u0022${p}\\u0022}`],
  ['encoded-python-repr', (p: string) => `'{\\'password\\': \\'${p}\\'}'`],
  ['encoded-html-entities', (p: string) => `<pre>{&quot;api_token&quot;: &quot;${p}&quot;}</pre>`],
  ['encoded-url-form', (p: string) => `body=username%3Dbob%26password%3D${p}%26remember%3D1`],
] as const) {
  const p = `${f(id, 14)}E1`;
  inText(id, 'password-json', p, template(p));
}

export const SIBLING_SHAPES: readonly SecretShape[] = shapes;
