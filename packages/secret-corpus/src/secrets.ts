/**
 * Secret shapes: every value is generated (fake.ts) or a vendor's documented example, valid in
 * form and useless in fact. A shape is either free text that holds the secret (`text`), or a
 * key whose value is the secret (`key`): a password is only a secret because of its name.
 */
import { ALNUM, BASE64, b64, b64url, fake, grouped, ibanNumber, ibanPrinted, LOWER_HEX, luhnNumber, UPPER_DIGITS, URLSAFE } from './fake.ts';
import type { SecretKind, SecretShape } from './shape.ts';
import { SIBLING_SHAPES } from './siblings.ts';
import { EIGHTH_SIBLING_SHAPES } from './siblings-eighth.ts';
import { FIFTH_SIBLING_SHAPES } from './siblings-fifth.ts';
import { FOURTH_SIBLING_SHAPES } from './siblings-fourth.ts';
import { NINTH_SIBLING_SHAPES } from './siblings-ninth.ts';
import { SEVENTH_SIBLING_SHAPES } from './siblings-seventh.ts';
import { SIXTH_SIBLING_SHAPES } from './siblings-sixth.ts';
import { TENTH_SIBLING_SHAPES } from './siblings-tenth.ts';

const f = fake;
const shapes: SecretShape[] = [];
/** A shape whose text is the secret itself (a token recognisable by its form). */
const token = (id: string, kind: SecretKind, secret: string, text = `token ${secret} used`) =>
  shapes.push({ id, kind, secret, text });
/** A shape whose secret sits in a text template. */
const inText = (id: string, kind: SecretKind, secret: string, text: string) => shapes.push({ id, kind, secret, text });
/** A shape whose secret is the value of a key. */
const keyed = (id: string, kind: SecretKind, key: string, secret: string) => shapes.push({ id, kind, key, secret });

// --- Cloud providers -------------------------------------------------------------------
token('aws-access-key-id', 'cloud', 'AKIAIOSFODNN7EXAMPLE', 'aws access key AKIAIOSFODNN7EXAMPLE configured');
token('aws-temp-access-key-id', 'cloud', `ASIA${f('asia', 16, UPPER_DIGITS)}`);
inText('aws-secret-access-key', 'cloud', f('aws-secret', 40, BASE64), `aws_secret_access_key = ${f('aws-secret', 40, BASE64)}`);
inText('aws-secret-env', 'env', f('aws-secret-env', 40, BASE64), `export AWS_SECRET_ACCESS_KEY=${f('aws-secret-env', 40, BASE64)}`);
inText('aws-session-token', 'env', f('aws-session', 120, BASE64), `AWS_SESSION_TOKEN=${f('aws-session', 120, BASE64)}`);
{
  const sig = f('amz-sig', 64, LOWER_HEX);
  inText('aws-presigned-url', 'query-string', sig, `https://bucket.s3.amazonaws.com/report.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=${sig}&X-Amz-Expires=900`);
}
token('gcp-api-key', 'cloud', `AIza${f('gcp-api', 35, URLSAFE)}`);
token('gcp-oauth-client-secret', 'cloud', `GOCSPX-${f('gocspx', 28, URLSAFE)}`);
token('gcp-oauth-access-token', 'cloud', `ya29.${f('ya29', 60, URLSAFE)}`);
{
  const body = f('gcp-sa-pem', 64 * 6, BASE64).replace(/(.{64})/g, '$1\n');
  const pem = `-----BEGIN PRIVATE KEY-----\n${body}-----END PRIVATE KEY-----\n`;
  inText(
    'gcp-service-account-json',
    'cloud',
    body.slice(64, 128),
    JSON.stringify({ type: 'service_account', project_id: 'demo-project', private_key: pem, client_email: 'bot@demo-project.iam.gserviceaccount.com' }),
  );
}
{
  const key = b64(f('azure-account-key', 64));
  inText('azure-storage-connection-string', 'connection-string', key, `DefaultEndpointsProtocol=https;AccountName=demostore;AccountKey=${key};EndpointSuffix=core.windows.net`);
}
{
  const sig = encodeURIComponent(b64(f('azure-sas', 32)));
  inText('azure-sas-url', 'query-string', sig, `https://demostore.blob.core.windows.net/c/file.txt?sv=2024-11-04&ss=b&srt=o&sp=r&se=2030-01-01T00:00:00Z&sig=${sig}`);
}
token('azure-client-secret', 'cloud', `${f('az-cs-a', 3, ALNUM)}8Q~${f('az-cs', 34, `${ALNUM}_~.-`)}`);
{
  const key = b64(f('azure-sb', 32));
  inText('azure-service-bus', 'connection-string', key, `Endpoint=sb://demo.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=${key}`);
}
keyed('azure-subscription-key-header', 'header', 'Ocp-Apim-Subscription-Key', f('apim', 32, LOWER_HEX));
token('digitalocean-token', 'cloud', `dop_v1_${f('dop', 64, LOWER_HEX)}`);
token('hashicorp-vault-token', 'cloud', `hvs.${f('hvs', 90, URLSAFE)}`);
token('terraform-cloud-token', 'cloud', `${f('tfc-a', 14, ALNUM)}.atlasv1.${f('tfc', 67, URLSAFE)}`);
token('pulumi-token', 'cloud', `pul-${f('pul', 40, LOWER_HEX)}`);
token('doppler-token', 'cloud', `dp.st.${f('doppler', 43, ALNUM)}`);
token('fly-token', 'cloud', `fo1_${f('fly', 43, URLSAFE)}`);
token('tailscale-key', 'cloud', `tskey-auth-${f('ts-a', 12, ALNUM)}-${f('ts', 30, ALNUM)}`);
token('supabase-token', 'cloud', `sbp_${f('sbp', 40, LOWER_HEX)}`);
token('databricks-token', 'cloud', `dapi${f('dapi', 32, LOWER_HEX)}`);
token('docker-hub-pat', 'cloud', `dckr_pat_${f('dckr', 27, URLSAFE)}`);

// --- Vendor tokens ----------------------------------------------------------------------
token('github-pat-classic', 'vendor-token', `ghp_${f('ghp', 36)}`);
token('github-oauth', 'vendor-token', `gho_${f('gho', 36)}`);
token('github-app-user', 'vendor-token', `ghu_${f('ghu', 36)}`);
token('github-app-server', 'vendor-token', `ghs_${f('ghs', 36)}`);
token('github-refresh', 'vendor-token', `ghr_${f('ghr', 36)}`);
token('github-pat-fine-grained', 'vendor-token', `github_pat_${f('ghpat-a', 22)}_${f('ghpat', 59)}`);
token('gitlab-pat', 'vendor-token', `glpat-${f('glpat', 20, URLSAFE)}`);
token('gitlab-deploy-token', 'vendor-token', `gldt-${f('gldt', 20, URLSAFE)}`);
token('gitlab-runner-token', 'vendor-token', `glrt-${f('glrt', 20, URLSAFE)}`);
token('gitlab-runner-registration', 'vendor-token', `GR1348941${f('gr13', 20, URLSAFE)}`);
token('slack-bot-token', 'vendor-token', `xoxb-${f('xoxb1', 12, '0123456789')}-${f('xoxb2', 13, '0123456789')}-${f('xoxb', 24)}`);
token('slack-user-token', 'vendor-token', `xoxp-${f('xoxp1', 12, '0123456789')}-${f('xoxp2', 12, '0123456789')}-${f('xoxp', 32, LOWER_HEX)}`);
token('slack-app-token', 'vendor-token', `xapp-1-A${f('xapp1', 10, UPPER_DIGITS)}-${f('xapp2', 13, '0123456789')}-${f('xapp', 64, LOWER_HEX)}`);
{
  const s = f('slack-hook', 24);
  inText('slack-webhook', 'vendor-token', s, `posting to https://hooks.slack.com/services/T${f('sh-t', 10, UPPER_DIGITS)}/B${f('sh-b', 10, UPPER_DIGITS)}/${s}`);
}
{
  const s = f('discord-hook', 68, URLSAFE);
  inText('discord-webhook', 'vendor-token', s, `https://discord.com/api/webhooks/${f('dh-id', 18, '0123456789')}/${s}`);
}
token('discord-bot-token', 'vendor-token', `M${f('disc-a', 25)}.${f('disc-b', 6, URLSAFE)}.${f('disc', 38, URLSAFE)}`);
token('telegram-bot-token', 'vendor-token', `${f('tg-id', 10, '0123456789')}:AA${f('tg', 33, URLSAFE)}`);
token('stripe-secret-live', 'vendor-token', `sk_live_${f('sk-live', 24)}`);
token('stripe-secret-test', 'vendor-token', `sk_test_${f('sk-test', 24)}`);
token('stripe-restricted', 'vendor-token', `rk_live_${f('rk-live', 24)}`);
token('stripe-webhook-secret', 'vendor-token', `whsec_${f('whsec', 32)}`);
token('openai-key-legacy', 'vendor-token', `sk-${f('oai', 48)}`);
token('openai-project-key', 'vendor-token', `sk-proj-${f('oai-proj', 64, URLSAFE)}`);
token('openai-service-account', 'vendor-token', `sk-svcacct-${f('oai-svc', 64, URLSAFE)}`);
token('anthropic-key', 'vendor-token', `sk-ant-api03-${f('ant', 93, URLSAFE)}AA`);
token('anthropic-admin-key', 'vendor-token', `sk-ant-admin01-${f('ant-admin', 93, URLSAFE)}AA`);
token('huggingface-token', 'vendor-token', `hf_${f('hf', 34)}`);
token('groq-key', 'vendor-token', `gsk_${f('gsk', 52)}`);
token('replicate-token', 'vendor-token', `r8_${f('r8', 37)}`);
token('perplexity-key', 'vendor-token', `pplx-${f('pplx', 48)}`);
token('xai-key', 'vendor-token', `xai-${f('xai', 80)}`);
token('npm-token', 'vendor-token', `npm_${f('npm', 36)}`);
token('pypi-token', 'vendor-token', `pypi-AgEIcHlwaS5vcmc${f('pypi', 70, URLSAFE)}`);
token('sendgrid-key', 'vendor-token', `SG.${f('sg-a', 22, URLSAFE)}.${f('sg', 43, URLSAFE)}`);
token('twilio-api-key', 'vendor-token', `SK${f('twilio', 32, LOWER_HEX)}`);
token('mailgun-key', 'vendor-token', `key-${f('mailgun', 32, LOWER_HEX)}`);
token('shopify-token', 'vendor-token', `shpat_${f('shpat', 32, LOWER_HEX)}`);
token('linear-key', 'vendor-token', `lin_api_${f('linear', 40)}`);
token('notion-token', 'vendor-token', `ntn_${f('notion', 46)}`);
token('postman-key', 'vendor-token', `PMAK-${f('pmak-a', 24, LOWER_HEX)}-${f('pmak', 34, LOWER_HEX)}`);
token('grafana-service-account', 'vendor-token', `glsa_${f('glsa', 32)}_${f('glsa-b', 8, LOWER_HEX)}`);
token('new-relic-key', 'vendor-token', `NRAK-${f('nrak', 27, UPPER_DIGITS)}`);
token('square-token', 'vendor-token', `sq0atp-${f('sq0', 22, URLSAFE)}`);
token('mapbox-secret', 'vendor-token', `sk.eyJ1Ijoi${f('mapbox-a', 20)}.${f('mapbox', 22, URLSAFE)}`);
token('age-secret-key', 'vendor-token', `AGE-SECRET-KEY-1${f('age', 58, 'QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L')}`);
token('guardtrace-key', 'vendor-token', `gt_${f('gt', 40, URLSAFE)}`);
keyed('datadog-api-key', 'key-name', 'DD_API_KEY', f('dd', 32, LOWER_HEX));
keyed('cloudflare-api-token', 'key-name', 'CLOUDFLARE_API_TOKEN', f('cf', 40, URLSAFE));

// --- JWTs -------------------------------------------------------------------------------
{
  const jwt = (seed: string, alg: string) =>
    `${b64url(JSON.stringify({ alg, typ: 'JWT' }))}.${b64url(JSON.stringify({ sub: f(`${seed}-sub`, 12), iat: 1700000000 }))}.${f(seed, 43, URLSAFE)}`;
  token('jwt-hs256', 'jwt', jwt('jwt-hs', 'HS256'));
  token('jwt-rs256', 'jwt', jwt('jwt-rs', 'RS256'), `id_token received: ${jwt('jwt-rs', 'RS256')}`);
  inText('jwt-in-cookie-text', 'jwt', jwt('jwt-ck', 'ES256'), `access=${jwt('jwt-ck', 'ES256')}`);
}

// --- Private keys -----------------------------------------------------------------------
for (const [id, label] of [
  ['pem-rsa', 'RSA PRIVATE KEY'],
  ['pem-pkcs8', 'PRIVATE KEY'],
  ['pem-ec', 'EC PRIVATE KEY'],
  ['pem-dsa', 'DSA PRIVATE KEY'],
  ['pem-openssh', 'OPENSSH PRIVATE KEY'],
  ['pem-encrypted', 'ENCRYPTED PRIVATE KEY'],
  ['pgp-private', 'PGP PRIVATE KEY BLOCK'],
] as const) {
  const lines = Array.from({ length: 5 }, (_, i) => f(`${id}-${i}`, 64, BASE64));
  inText(id, 'private-key', lines[2] as string, `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----`);
}
{
  const line = f('putty', 64, BASE64);
  inText('putty-key', 'private-key', line, `PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nPrivate-Lines: 1\n${line}\nPrivate-MAC: ${f('putty-mac', 64, LOWER_HEX)}`);
}

// --- Connection strings -----------------------------------------------------------------
for (const [id, template] of [
  ['postgres-url', (p: string) => `postgres://app:${p}@db.example.com:5432/prod`],
  ['postgresql-url', (p: string) => `postgresql://reporting:${p}@10.0.0.12/analytics?sslmode=require`],
  ['mysql-url', (p: string) => `mysql://root:${p}@mysql.example.com:3306/shop`],
  ['mongodb-srv', (p: string) => `mongodb+srv://admin:${p}@cluster0.abcde.mongodb.net/?retryWrites=true`],
  ['redis-url-no-user', (p: string) => `redis://:${p}@cache.example.com:6379/0`],
  ['rediss-url', (p: string) => `rediss://default:${p}@cache.example.com:6380`],
  ['amqp-url', (p: string) => `amqp://guest:${p}@mq.example.com:5672/vhost`],
  ['https-basic-url', (p: string) => `https://deploy:${p}@git.example.com/org/repo.git`],
  ['ftp-url', (p: string) => `ftp://uploader:${p}@files.example.com/incoming`],
  ['jdbc-password-param', (p: string) => `jdbc:postgresql://db.example.com:5432/app?user=svc&password=${p}`],
  ['sqlserver-ado', (p: string) => `Server=tcp:sql.example.com,1433;Database=app;User ID=svc;Password=${p};Encrypt=true`],
  ['odbc-pwd', (p: string) => `Driver={ODBC Driver 18};Server=sql.example.com;Uid=svc;Pwd=${p};`],
] as const) {
  const p = `${f(id, 14)}X9`;
  inText(id, 'connection-string', p, template(p));
}

// --- Passwords and tokens under a name, in JSON ------------------------------------------
for (const key of [
  'password',
  'userPassword',
  'dbPassword',
  'newPassword',
  'passwd',
  'passphrase',
  'apiToken',
  'api_token',
  'secret_token',
  'clientSecret',
  'client_secret',
  'accessToken',
  'refresh_token',
  'apiKey',
  'api-key',
  'privateKey',
  'secret',
  'sessionToken',
  'authToken',
  'credentials',
  'DB_PASSWORD',
  'SMTP_PASS',
  'encryptionKey',
  'signingSecret',
  'webhookSecret',
]) {
  keyed(`key-${key}`, key.includes('_') || key.includes('-') ? 'password-json' : 'key-name', key, `${f(`key-${key}`, 16)}!7`);
}

// --- Query strings ----------------------------------------------------------------------
for (const param of ['password', 'pwd', 'access_token', 'token', 'api_key', 'apikey', 'client_secret', 'secret']) {
  const v = f(`q-${param}`, 20);
  inText(`query-${param}`, 'query-string', v, `GET https://api.example.com/v1/items?page=2&${param}=${v}&limit=50`);
}

// --- Headers ----------------------------------------------------------------------------
{
  const t = f('bearer', 40, URLSAFE);
  inText('header-bearer', 'header', t, `Authorization: Bearer ${t}`);
  const basic = b64(`admin:${f('basic', 12)}`);
  inText('header-basic', 'header', basic, `Authorization: Basic ${basic}`);
  const tok = f('token-scheme', 40, LOWER_HEX);
  inText('header-token-scheme', 'header', tok, `Authorization: Token ${tok}`);
  const proxy = b64(`proxy:${f('proxy', 12)}`);
  inText('header-proxy-authorization', 'header', proxy, `Proxy-Authorization: Basic ${proxy}`);
  const sid = f('cookie', 32);
  inText('header-cookie', 'header', sid, `Cookie: theme=dark; sessionid=${sid}; lang=en`);
  const set = f('set-cookie', 32);
  inText('header-set-cookie', 'header', set, `Set-Cookie: __Host-session=${set}; Path=/; Secure; HttpOnly`);
  keyed('header-x-api-key', 'header', 'X-API-Key', f('x-api-key', 32));
  keyed('header-x-auth-token', 'header', 'X-Auth-Token', f('x-auth-token', 32));
  keyed('header-authorization-key', 'header', 'Authorization', `Bearer ${f('authz-key', 32)}`);
  keyed('header-cookie-key', 'header', 'cookie', `sid=${f('cookie-key', 32)}`);
}

// --- Config lines -----------------------------------------------------------------------
inText('env-db-password', 'env', `${f('env-db', 18)}`, `DB_PASSWORD=${f('env-db', 18)}`);
inText('yaml-password', 'env', `${f('yaml', 18)}`, `database:\n  host: db\n  password: ${f('yaml', 18)}\n`);
inText('ini-secret', 'env', `${f('ini', 18)}`, `[auth]\nclient_secret = ${f('ini', 18)}\n`);
inText('escaped-json-password', 'password-json', `${f('esc', 18)}`, `{\\"user\\":\\"bo\\",\\"password\\":\\"${f('esc', 18)}\\"}`);

// --- Cards (Luhn-valid) -----------------------------------------------------------------
for (const [id, prefix, len, sep] of [
  ['card-visa', '4', 16, ''],
  ['card-visa-spaced', '4', 16, ' '],
  ['card-visa-dashed', '4', 16, '-'],
  ['card-visa-13', '4', 13, ''],
  ['card-mastercard', '51', 16, ' '],
  ['card-mastercard-2series', '2221', 16, '-'],
  ['card-amex', '37', 15, ' '],
  ['card-discover', '6011', 16, ''],
  ['card-jcb', '35', 16, ' '],
  ['card-diners', '36', 14, ''],
  ['card-unionpay', '62', 19, ''],
] as const) {
  const n = luhnNumber(id, prefix, len);
  const printed = sep ? grouped(n, sep) : n;
  inText(id, 'card', printed, `charged card ${printed} exp 12/29`);
}

// --- Issue 26: application secrets in .env text and JSON, under their framework's name -----
{
  const rails = f('rails-skb', 128, LOWER_HEX);
  inText('env-secret-key-base', 'env', rails, `RAILS_ENV=production\nSECRET_KEY_BASE=${rails}\nRAILS_LOG_TO_STDOUT=1\n`);
  const yaml = f('rails-yaml', 96, LOWER_HEX);
  inText('yaml-secret-key-base', 'env', yaml, `production:\n  secret_key_base: ${yaml}\n`);
  const django = `${f('django', 40, URLSAFE)}x7`;
  inText('env-django-secret-key', 'env', django, `DEBUG=0\nSECRET_KEY=${django}\nALLOWED_HOSTS=app.example.com`);
  const quoted = f('django-export', 50, ALNUM);
  inText('env-export-quoted-secret-key', 'env', quoted, `export DJANGO_SECRET_KEY="${quoted}"`);
  const laravel = b64(f('laravel', 32));
  inText('env-laravel-app-key', 'env', laravel, `APP_ENV=production\nAPP_KEY=base64:${laravel}\nAPP_DEBUG=false`);
  const nextauth = b64(f('nextauth', 32));
  inText('env-nextauth-secret', 'env', nextauth, `NEXTAUTH_URL=https://app.example.com\nNEXTAUTH_SECRET=${nextauth}`);
  const hmac = f('hmac-key', 64, LOWER_HEX);
  inText('env-hmac-key', 'env', hmac, `WEBHOOK_HMAC_KEY=${hmac}`);
}
for (const key of ['secret_value', 'secretValue', 'client_secret_value', 'SecretString', 'secret_key_base', 'SECRET_KEY', 'password_value', 'token_value', 'api_key_value', 'passcode', 'secret_data']) {
  keyed(`key-${key}`, 'password-json', key, `${f(`key26-${key}`, 18)}!4`);
}

// --- IBANs: several countries, printed in groups and compact -------------------------------
for (const [id, country, template, printed] of [
  ['iban-de-spaced', 'DE', '999999999999999999', true],
  ['iban-de-compact', 'DE', '999999999999999999', false],
  ['iban-gb-spaced', 'GB', 'AAAA99999999999999', true],
  ['iban-fr-compact', 'FR', '9999999999AAAAAAAAAAA99', false],
  ['iban-nl-spaced', 'NL', 'AAAA9999999999', true],
  ['iban-es-compact', 'ES', '99999999999999999999', false],
  ['iban-it-spaced', 'IT', 'A9999999999AAAAAAAAAAAA', true],
  ['iban-ch-compact', 'CH', '99999AAAAAAAAAAAA', false],
  ['iban-pl-spaced', 'PL', '999999999999999999999999', true],
  ['iban-no-compact', 'NO', '99999999999', false],
] as const) {
  const compact = ibanNumber(id, country, template);
  const shown = printed ? ibanPrinted(compact) : compact;
  inText(id, 'iban', shown, `Please wire 1,250.00 EUR to IBAN ${shown} by Friday.`);
}
{
  const compact = ibanNumber('iban-json', 'BE', '999999999999');
  inText('iban-json-field', 'iban', compact, JSON.stringify({ beneficiary: 'ACME GmbH', account: compact, amount: 1250 }));
}

// --- Passwords in log lines -----------------------------------------------------------------
for (const [id, template] of [
  ['log-login-failed-single', (p: string) => `2026-12-01T10:00:00Z WARN login failed for user 'bob' with password '${p}' from 203.0.113.7`],
  ['log-with-password-double', (p: string) => `auth error: user "alice" with password "${p}" rejected`],
  ['log-password-equals', (p: string) => `connecting to db as svc with password=${p} (attempt 2)`],
  ['log-pwd-colon', (p: string) => `retrying login user: ops pwd: ${p}`],
  ['log-password-is', (p: string) => `temporary password is '${p}', change it at first login`],
  ['log-passwd-quoted', (p: string) => `useradd: set passwd "${p}" for deploy`],
  ['log-using-password', (p: string) => `ssh: Authentication failed using password '${p}'`],
] as const) {
  const p = `${f(id, 14)}Q7`;
  inText(id, 'log-password', p, template(p));
}

// --- Passwords in SQL -------------------------------------------------------------------------
for (const [id, template] of [
  ['sql-alter-role-password', (p: string) => `ALTER ROLE app_user WITH LOGIN PASSWORD '${p}';`],
  ['sql-create-user-encrypted', (p: string) => `CREATE USER reporter WITH ENCRYPTED PASSWORD '${p}';`],
  ['sql-create-role-login', (p: string) => `create role etl login password '${p}' valid until '2030-01-01';`],
  ['sql-alter-user-password', (p: string) => `ALTER USER analytics PASSWORD '${p}'`],
  ['sql-mysql-identified-by', (p: string) => `ALTER USER 'app'@'%' IDENTIFIED BY '${p}';`],
  ['sql-mysql-identified-with', (p: string) => `CREATE USER 'svc'@'localhost' IDENTIFIED WITH caching_sha2_password BY '${p}';`],
  ['sql-oracle-identified-bare', (p: string) => `ALTER USER scott IDENTIFIED BY ${p};`],
  ['sql-oracle-identified-quoted', (p: string) => `CREATE USER app IDENTIFIED BY "${p}" DEFAULT TABLESPACE users;`],
  ['sql-set-password-for', (p: string) => `SET PASSWORD FOR 'app'@'localhost' = '${p}';`],
  ['sql-set-password-function', (p: string) => `SET PASSWORD = PASSWORD('${p}');`],
  ['sql-mssql-create-login', (p: string) => `CREATE LOGIN svc_app WITH PASSWORD = '${p}', CHECK_POLICY = ON;`],
] as const) {
  const p = `${f(id, 14)}Z3`;
  inText(id, 'sql-password', p, template(p));
}

// --- Passwords on command lines (what an agent's shell tool runs) ----------------------------
for (const [id, template] of [
  ['cli-mysql-attached', (p: string) => `mysql -h db.internal -u root -p${p} shop -e "SELECT count(*) FROM orders"`],
  ['cli-mysqldump-quoted', (p: string) => `mysqldump -uroot -p'${p}' --single-transaction shop > /tmp/shop.sql`],
  ['cli-sshpass', (p: string) => `sshpass -p '${p}' ssh deploy@10.0.0.12 'systemctl restart api'`],
  ['cli-docker-login', (p: string) => `docker login -u ci-bot --password ${p} registry.example.com`],
  ['cli-long-option-equals', (p: string) => `./migrate --db-user=app --db-password=${p} --dry-run`],
  ['cli-keytool-storepass', (p: string) => `keytool -list -keystore app.jks -storepass ${p}`],
  ['cli-redis-auth', (p: string) => `redis-cli -h cache.internal -a ${p} --no-auth-warning FLUSHDB`],
  ['cli-curl-user', (p: string) => `curl -sS -u admin:${p} https://jenkins.example.com/api/json`],
  ['cli-az-login', (p: string) => `az login -u ops@example.com -p ${p} --allow-no-subscriptions`],
  ['cli-net-user', (p: string) => `net user svc_backup ${p} /add /expires:never`],
  ['cli-json-command', (p: string) => JSON.stringify({ command: `sshpass -p ${p} rsync -a build/ web1:/srv/app/`, cwd: '/work/repo' })],
  ['cli-aws-configure-set', (p: string) => `aws configure set aws_secret_access_key ${p} --profile ci`],
  ['cli-git-config-token', (p: string) => `git config --global github.token ${p}`],
  ['cli-npm-config-auth-token', (p: string) => `npm config set //registry.example.com/:_authToken "${p}"`],
  ['cli-yarn-config-token', (p: string) => `yarn config set npmAuthToken ${p} -H`],
] as const) {
  const p = `${f(id, 14)}K5`;
  inText(id, 'cli-password', p, template(p));
}

// --- Secrets in config files a tool reads or writes (XML elements, appSettings, .netrc) ---------
for (const [id, template] of [
  ['xml-maven-server', (p: string) => `<servers>\n  <server>\n    <id>nexus</id>\n    <username>deploy</username>\n    <password>${p}</password>\n  </server>\n</servers>`],
  ['xml-api-key-attr', (p: string) => `<config><apiKey type="string">${p}</apiKey><region>eu-west-1</region></config>`],
  ['xml-namespaced-client-secret', (p: string) => `<oauth:clientSecret>${p}</oauth:clientSecret>`],
  ['xml-in-json-content', (p: string) => JSON.stringify({ path: 'settings.xml', content: `<settings><servers><server><password>${p}</password></server></servers></settings>` })],
  ['appsettings-add-key', (p: string) => `<appSettings>\n  <add key="StripeSecretKey" value="${p}" />\n</appSettings>`],
  ['netrc-line', (p: string) => `machine api.heroku.com login ops@example.com password ${p}`],
  ['netrc-no-login', (p: string) => `machine ftp.example.org password ${p}`],
] as const) {
  const p = `${f(id, 14)}W8`;
  inText(id, 'config-file', p, template(p));
}

// --- Siblings of the kinds above that a second held-out set found (2026-12-06): siblings.ts ----
shapes.push(...SIBLING_SHAPES, ...FOURTH_SIBLING_SHAPES, ...FIFTH_SIBLING_SHAPES, ...SIXTH_SIBLING_SHAPES, ...SEVENTH_SIBLING_SHAPES, ...EIGHTH_SIBLING_SHAPES, ...NINTH_SIBLING_SHAPES, ...TENTH_SIBLING_SHAPES);

export const SECRET_SHAPES: readonly SecretShape[] = shapes;
