/**
 * The siblings of the corpus' kinds that a second held-out set (2026-12-06: 432 secrets written
 * without reading secrets.ts) found kept: other key names, SQL forms, log phrasings, command
 * lines, Redis and .pgpass lines, password hashes, quoted header parameters, IBANs and cards in
 * other spellings, 17 more vendor tokens, unsigned JWTs and JWEs, and secrets behind encodings.
 * Generated as secrets.ts generates its own (fake.ts): valid in form, useless in fact.
 */
import { ALNUM, b64url, BASE64, fake, grouped, ibanNumber, ibanPrinted, LOWER_HEX, luhnNumber, UPPER_DIGITS, URLSAFE } from './fake.ts';
import type { SecretKind, SecretShape } from './secrets.ts';

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
