/**
 * The siblings of the kinds a fifth held-out set (2026-12-07: 457 secrets and 211 near-misses
 * written without reading this corpus or the rules) found kept or damaged: vendor tokens by their
 * prefix (AWS session tokens, FCM server keys, Google tokens with dots, base64 of a service
 * account or a registry's auths), passwords in URLs with symbols or an `@` in the user, a value
 * that starts with `$`, `!` or holds `&`, CLI forms (`gh secret set --body`, `htpasswd -nb`,
 * FreeRDP's `/p:`, options named `--<x>-secret`), a value echoed into or printed from a secret
 * file, Terraform's sensitive outputs and generated passwords, `email:token` pairs, prompts and
 * prose about a login, secret names in other languages, wallet keys, query keys and webhooks.
 * Generated as secrets.ts generates its own (fake.ts): valid in form, useless in fact. Their
 * near-misses are in ordinary.ts ("fifth").
 */
import { ALNUM, BASE64, b64, fake, LOWER_HEX, URLSAFE } from './fake.ts';
import type { SecretKind, SecretShape } from './shape.ts';

const f = fake;
const shapes: SecretShape[] = [];
const inText = (id: string, kind: SecretKind, secret: string, text: string) => shapes.push({ id, kind, secret, text });
const keyed = (id: string, kind: SecretKind, key: string, secret: string) => shapes.push({ id, kind, key, secret });
/** A password as people write them: a word, digits and a symbol. */
const pw = (seed: string, symbols = '!#*+-.') => `${f(seed, 1, 'BCDFGHKLMNPRST')}${f(`${seed}-w`, 7, 'abcdefghiklmnoprstuvw')}${f(`${seed}-d`, 4, '0123456789')}${f(`${seed}-s`, 1, symbols)}`;

// Vendor tokens known by their prefix, alone in a message or a file.
{
  const session = `IQoJb3JpZ2luX2VjE${f('aws-session-token', 280, BASE64)}==`;
  inText('vendor-aws-session-token-alone', 'cloud', session, `this one expires in an hour: ${session}`);
  const old = `FwoGZXIvYXdzE${f('aws-session-token-old', 200, BASE64)}`;
  inText('vendor-aws-session-token-fwo', 'cloud', old, `aws_session_token = ${old}`);
  const fcm = `AAAA${f('fcm-id', 7, URLSAFE)}:APA91b${f('fcm-key', 134, URLSAFE)}`;
  inText('vendor-fcm-server-key', 'vendor-token', fcm, `const messaging = { serverKey: '${fcm}' };`);
  const ya29 = `ya29.c.${f('ya29-c', 12, URLSAFE)}.${f('ya29-c2', 60, URLSAFE)}`;
  inText('vendor-google-token-dots', 'vendor-token', ya29, `$ gcloud auth application-default print-access-token\n${ya29}`);
  const sa = b64(`{\n  "type": "service_account",\n  "project_id": "acme",\n  "private_key": "-----BEGIN PRIVATE KEY-----\\n${f('sa-b64', 200, BASE64)}\\n-----END PRIVATE KEY-----\\n"\n}`);
  inText('vendor-base64-service-account', 'cloud', sa, `$ cat sa-key.json | base64 -w0\n${sa}`);
  const saCompact = b64(`{"type":"service_account","project_id":"acme","private_key_id":"${f('sa-c-id', 40, LOWER_HEX)}"}`);
  inText('vendor-base64-service-account-compact', 'cloud', saCompact, `creds: ${saCompact}`);
  const auths = b64(`{"auths":{"registry.acme.io":{"auth":"${b64(`ci:${f('auths-pw', 20)}`)}"}}}`);
  inText('vendor-base64-dockerconfigjson', 'config-file', auths, `type: kubernetes.io/dockerconfigjson\ndata:\n  .dockerconfigjson: ${auths}`);
}

// Passwords in URLs: symbols a password generator uses, and a user that is an email address.
{
  const p = `!${f('url-bang', 6)}*${f('url-bang-2', 8)}$${f('url-bang-3', 3)}`;
  inText('url-password-leading-bang', 'connection-string', p, `DATABASE_URL=postgres://svc:${p}@db.internal:5432/app`);
  const q = pw('url-email-user');
  inText('url-password-email-user', 'connection-string', q, `MAIL_URL=smtps://alerts@acme.example:${q}@smtp.example.net:465`);
  const d = `$${f('url-dollar', 6)}7${f('url-dollar-2', 7)}`;
  inText('url-password-dollar-query', 'connection-string', d, `jdbc:mysql://db:3306/app?user=svc&password=${d}&useSSL=true`);
  const a = `${f('amp-pw', 3)}&&${f('amp-pw-2', 6)}?${f('amp-pw-3', 5)}`;
  inText('ini-password-with-ampersands', 'config-file', a, `db01 ansible_user=deploy ansible_become_password=${a} ansible_port=22`);
  const e = `${f('yaml-eq', 10)}=${f('yaml-eq-2', 8)}`;
  inText('yaml-password-with-equals', 'config-file', e, `users:\n  - name: ops\n    password: ${e}\n    shell: /bin/bash`);
}

// Command lines.
for (const [id, template] of [
  ['cli-gh-secret-body', (p: string) => `gh secret set SENTRY_AUTH_TOKEN --body "${p}" --repo acme/api`],
  ['cli-gh-secret-b', (p: string) => `gh secret set NPM_TOKEN -b ${p}`],
  ['cli-htpasswd-stdout', (p: string) => `htpasswd -nb deploy ${p} >> .htpasswd`],
  ['cli-freerdp-dash', (p: string) => `xfreerdp /v:10.0.0.5 /u:Administrator /p:-${p} /cert:ignore`],
  ['cli-option-digit-secret', (p: string) => `restic-backup --b2-secret ${p} --bucket nightly`],
  ['cli-echo-into-pass-file', (p: string) => `echo '${p}' > ~/.ansible/vault_pass.txt && chmod 600 ~/.ansible/vault_pass.txt`],
  ['cli-printf-into-token-file', (p: string) => `printf "%s" "${p}" > /run/secrets/api_token`],
  ['printed-cat-master-key', (p: string) => `$ cat config/credentials/production.key\n${p}`],
  ['prompt-new-password', (p: string) => `postgres=# \\password app\nEnter new password for user "app": ${p}\nEnter it again: ${p}`],
] as const) {
  const p = id === 'printed-cat-master-key' ? f(id, 32, LOWER_HEX) : id.includes('secret') || id.includes('token') ? `${f(id, 30)}3Q` : pw(id);
  inText(id, 'cli-password', p, template(p));
}

// Terraform: a sensitive output as `terraform output -json` prints it, a generated password in the state.
{
  const p = pw('tf-sensitive-output');
  inText('terraform-sensitive-output', 'config-file', p, JSON.stringify({ admin_password: { sensitive: true, type: 'string', value: p } }, null, 2));
  const r = `${f('tf-random-password', 16, `${ALNUM}_=-`)}`;
  inText(
    'terraform-random-password-state',
    'config-file',
    r,
    JSON.stringify({ mode: 'managed', type: 'random_password', name: 'db', instances: [{ attributes: { length: 16, override_special: '_=-', result: r, special: true } }] }),
  );
}

{
  const r = `${f('tf-plan-random-password', 20, `${ALNUM}_=-`)}`;
  inText(
    'terraform-random-password-plan',
    'config-file',
    r,
    JSON.stringify({ resource_changes: [{ address: 'random_password.admin', change: { actions: ['create'], after: { length: 20, result: r } } }] }),
  );
}
inText('name-sonar-login', 'key-name', f('sonar-login', 40, LOWER_HEX), `$ export SONAR_LOGIN=${f('sonar-login', 40, LOWER_HEX)}\n$ sonar-scanner`);

// A Markdown table (a wiki page, a runbook) with a column named for the secret.
{
  const p = pw('md-table-password');
  inText('md-table-password-column', 'log-password', p, `| Service | Login | Password |\n| :--- | :--- | :--- |\n| Grafana | admin | ${p} |\n| Kibana | elastic | *** |`);
  const t = `${f('md-table-token', 30)}8x`;
  inText('md-table-token-column', 'log-password', t, `| env | api token | owner |\n|---|---|---|\n| prod | ${t} | platform |`);
}

// An email address and a token, as Atlassian's APIs take them (`user:token`), in a config file.
{
  const t = `${f('email-token', 12)}=${f('email-token-2', 11, URLSAFE)}`;
  inText('email-colon-token', 'config-file', t, `credentials:\n  confluence: "ops@acme.example:${t}"`);
}

// Prose and prompts about a login.
for (const [id, template] of [
  ['prose-login-slash', (p: string) => `the test tenant's login is qa-admin / ${p} (reset weekly)`],
  ['prose-password-on-the', (p: string) => `fyi the wifi password in the lab is ${p} now`],
] as const) {
  const p = pw(id);
  inText(id, 'log-password', p, template(p));
}

// Secret names and words in other languages.
keyed('name-mot-de-passe', 'key-name', 'mot_de_passe', pw('name-mot-de-passe'));
keyed('name-contrasena', 'key-name', 'contrasena', pw('name-contrasena'));
keyed('name-passwort', 'key-name', 'passwort', pw('name-passwort'));
keyed('name-senha', 'key-name', 'senha', pw('name-senha'));
{
  const p = pw('i18n-hindi');
  inText('i18n-hi-colon', 'log-password', p, `सर्वर: 10.0.0.7\nपासवर्ड: ${p}`);
}

// A wallet's private key given to the library that signs with it.
{
  const k = `0x${f('wallet-ethers', 64, LOWER_HEX)}`;
  inText('wallet-ethers', 'vendor-token', k, `const wallet = new ethers.Wallet("${k}", provider);`);
  const v = `0x${f('wallet-viem', 64, LOWER_HEX)}`;
  inText('wallet-viem', 'vendor-token', v, `const account = privateKeyToAccount('${v}')`);
}

// An API key as a query parameter named for the app (OpenWeatherMap's `appid`), a Teams webhook
// on Office's older host, an Azure storage account key as `az storage account keys list -o table` prints it.
{
  const k = f('appid', 32, LOWER_HEX);
  inText('query-appid', 'query-string', k, `GET https://api.openweathermap.org/data/2.5/forecast?lat=52.5&lon=13.4&appid=${k}&units=metric`);
  const w = `${f('teams-old', 32, LOWER_HEX)}`;
  inText('webhook-teams-outlook', 'vendor-token', w, `https://outlook.office.com/webhook/${f('teams-g1', 8, LOWER_HEX)}-aaaa-bbbb-cccc-${f('teams-g2', 12, LOWER_HEX)}@${f('teams-g3', 8, LOWER_HEX)}-dddd-eeee-ffff-${f('teams-g4', 12, LOWER_HEX)}/IncomingWebhook/${w}/${f('teams-g5', 8, LOWER_HEX)}-1111-2222-3333-${f('teams-g6', 12, LOWER_HEX)}`);
  const s = `${f('az-table-key', 86, BASE64)}==`;
  inText('azure-keys-table', 'cloud', s, `KeyName    Permissions    Value\n---------  -------------  ------\nkey1       FULL           ${s}\n`);
}

export const FIFTH_SIBLING_SHAPES: readonly SecretShape[] = shapes;
