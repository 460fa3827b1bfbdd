/**
 * The siblings of the kinds a fourth held-out set (2026-12-06: 588 secrets and 212 near-misses
 * written without reading this corpus or the rules) found kept or damaged: the password in other
 * languages and in Markdown, secrets printed alone by the command that reads them, session cookies
 * outside a Cookie header, HAR and cookie files, a name and its value in sibling fields (Parameter
 * Store, storage account keys), more webhooks, CLI clients and config forms. Generated as
 * secrets.ts generates its own (fake.ts): valid in form, useless in fact. Their near-misses are
 * in ordinary.ts ("fourth").
 */
import { ALNUM, BASE64, fake, LOWER_HEX, URLSAFE } from './fake.ts';
import type { SecretKind, SecretShape } from './shape.ts';

const f = fake;
const shapes: SecretShape[] = [];
const inText = (id: string, kind: SecretKind, secret: string, text: string) => shapes.push({ id, kind, secret, text });
const keyed = (id: string, kind: SecretKind, key: string, secret: string) => shapes.push({ id, kind, key, secret });
/** A password as people write them: words, a symbol and digits. */
const pw = (seed: string) => `${f(seed, 5, 'bcdfghjklmnpqrstvwxz')}${f(`${seed}-s`, 1, '!#@*-')}${f(`${seed}-w`, 6, 'abcdefghijklmnopqrstuvwxyz')}${f(`${seed}-d`, 3, '0123456789')}`;

// The password in other languages: a chat message, a ticket, a wiki page an agent reads.
for (const [id, template] of [
  ['i18n-fr-colon', (p: string) => `Accès à la base : utilisateur ops, mot de passe : ${p}`],
  ['i18n-fr-verb', (p: string) => `Le mot de passe du routeur est ${p}, merci de le changer.`],
  ['i18n-de-lautet', (p: string) => `Das Kennwort für den Server lautet ${p} (bitte vertraulich).`],
  ['i18n-es-colon', (p: string) => `Usuario: backup\nContraseña: ${p}`],
  ['i18n-pt-verb', (p: string) => `A senha do painel é ${p}`],
  ['i18n-it-english-word', (p: string) => `La password del database è ${p}`],
  ['i18n-nl-verb', (p: string) => `Het wachtwoord voor de VPN is ${p}`],
  ['i18n-pl-colon', (p: string) => `Hasło administratora: ${p}`],
  ['i18n-tr-colon', (p: string) => `Kullanıcı: deploy, şifre: ${p}`],
  ['i18n-sv-verb', (p: string) => `Lösenordet till wifi är ${p}`],
  ['i18n-ru-colon', (p: string) => `Сервер 10.1.2.3, логин root, пароль: ${p}`],
  ['i18n-zh-fullwidth', (p: string) => `数据库账号 admin，密码：${p}`],
  ['i18n-ja-fullwidth', (p: string) => `管理画面のパスワード：${p}`],
  ['i18n-ko-colon', (p: string) => `관리자 비밀번호: ${p}`],
  ['i18n-de-api-key', (p: string) => `Unser API-Schlüssel: ${p}`],
  ['i18n-fr-api-key', (p: string) => `Clé API : ${p}`],
  ['i18n-zh-api-key', (p: string) => `API密钥：${p}`],
  ['md-bold-name', (p: string) => `**Host**: db.internal\n**Password**: ${p}`],
] as const) {
  const p = id.includes('api-key') ? `${f(id, 28)}7q` : pw(id);
  inText(id, 'log-password', p, template(p));
}
// A token in prose quoted with backquotes, as Markdown writes it.
{
  const t = `${f('md-backquote-token', 34)}9z`;
  inText('md-backquoted-token', 'log-password', t, `The deploy token is \`${t}\`, rotate it monthly.`);
}

// Secrets printed alone, on the line after the command that reads them.
for (const [id, template] of [
  ['printed-kubectl-base64', (p: string) => `$ kubectl -n prod get secret api-keys -o jsonpath="{.data.token}" | base64 --decode\n${p}`],
  ['printed-terraform-raw', (p: string) => `$ terraform output -raw db_password\n${p}`],
  ['printed-op-read', (p: string) => `$ op read op://Infra/Redis/credential\n${p}`],
  ['printed-vault-field', (p: string) => `$ vault kv get -mount=secret -field=api_key payments\n${p}`],
  ['printed-gcloud-access', (p: string) => `$ gcloud secrets versions access latest --secret=stripe-key\n${p}`],
  ['printed-aws-text', (p: string) => `$ aws secretsmanager get-secret-value --secret-id prod/app --query SecretString --output text\n${p}`],
  ['printed-openssl-rand', (p: string) => `$ openssl rand -hex 32\n${p}`],
] as const) {
  const p = id === 'printed-openssl-rand' ? f(id, 64, LOWER_HEX) : `${f(id, 30, URLSAFE)}4k`;
  inText(id, 'config-file', p, template(p));
}
{
  const key = `${f('wg-genkey', 43, BASE64)}=`;
  inText('printed-wg-genkey', 'private-key', key, `$ wg genkey | tee /etc/wireguard/private.key\n${key}`);
  const mini = `RWQ${f('minisign', 150, BASE64)}==`;
  inText('minisign-secret-key', 'private-key', mini, `untrusted comment: minisign encrypted secret key\n${mini}`);
}

// Session cookies outside a Cookie header, and files of cookies.
for (const [id, template] of [
  ['cookie-rack-session', (v: string) => `Set rack.session=${v} for the test client`],
  ['cookie-connect-sid', (v: string) => `curl -b "connect.sid=${v}" https://app.example.com/me`],
  ['cookie-phpsessid', (v: string) => `PHPSESSID=${v}; path=/`],
  ['cookie-django-dict', (v: string) => `request.COOKIES = {'sessionid': '${v}', 'theme': 'dark'}`],
  ['cookie-rails-session', (v: string) => `_storefront_session=${v}`],
  ['cookie-remember-token', (v: string) => `remember_user_token=${v}`],
  ['cookie-netscape-file', (v: string) => `# Netscape HTTP Cookie File\nshop.example.com\tFALSE\t/\tTRUE\t1798761600\tsession_token\t${v}`],
  ['cookie-har-entry', (v: string) => JSON.stringify({ log: { entries: [{ request: { url: 'https://app.example.com/api', cookies: [{ name: 'auth', value: v, httpOnly: true }] } }] } })],
] as const) {
  const v = `${f(id, 30, URLSAFE)}2b`;
  inText(id, 'header', v, template(v));
}

// A name and its value in sibling fields, and other config forms.
{
  const ssm = `${f('ssm-secure', 24, URLSAFE)}8h`;
  inText(
    'ssm-secure-string',
    'config-file',
    ssm,
    JSON.stringify({ Parameter: { Name: '/prod/payments/stripe', Type: 'SecureString', Value: ssm, Version: 7 } }, null, 2),
  );
  const storage = `${f('azure-storage-key', 86, BASE64)}==`;
  inText('azure-storage-keys-list', 'cloud', storage, JSON.stringify([{ creationTime: '2026-01-02T03:04:05Z', keyName: 'key2', permissions: 'FULL', value: storage }], null, 2));
  const routing = f('pagerduty-routing', 32, LOWER_HEX);
  inText('pagerduty-routing-key', 'config-file', routing, JSON.stringify({ routing_key: routing, event_action: 'trigger', payload: { summary: 'queue stuck' } }));
  const bundler = `${f('bundler', 20, URLSAFE)}3p`;
  inText('bundler-source-credentials', 'env', bundler, `BUNDLE_ENTERPRISE__KIDEKIQ__COM=ci-bot:${bundler}`);
  const prop = `${f('java-setproperty', 18)}5x`;
  inText('java-set-property', 'config-file', prop, `Properties props = new Properties();\nprops.setProperty("mail.smtp.password", "${prop}");`);
  const put = `${f('java-map-put', 18)}6y`;
  inText('java-map-put', 'config-file', put, `settings.put("apiToken", "${put}");`);
  const bc = `${f('android-buildconfig', 32)}1c`;
  inText('android-build-config-field', 'config-file', bc, `buildConfigField("String", "PAYMENTS_API_KEY", "\\"${bc}\\"")`);
  const dbi = `${f('perl-dbi', 16)}2m`;
  inText('perl-dbi-connect', 'config-file', dbi, `my $dbh = DBI->connect($dsn, 'reporter', '${dbi}', { RaiseError => 1 });`);
  const aws = f('aws-configure-prompt', 40, BASE64);
  inText('aws-configure-prompt', 'cloud', aws, `AWS Access Key ID [****************ABCD]: \nAWS Secret Access Key [****************wxyz]: ${aws}\nDefault region name [eu-west-1]:`);
  const cohere = `${f('cohere-v2', 38)}4d`;
  inText('client-v2-literal-key', 'vendor-token', cohere, `co = cohere.ClientV2("${cohere}")`);
  const fury = `${f('gemfury-userinfo', 30)}9Q`;
  inText('url-token-as-user', 'connection-string', fury, `source "https://${fury}@repo.fury.io/acme/"`);
  const sf = `00D${f('sf-org', 12)}!${f('salesforce-session', 90, `${ALNUM}._`)}`;
  inText('salesforce-session-id', 'vendor-token', sf, `Access Token     ${sf}\nInstance Url     https://acme.my.salesforce.com`);
}
for (const key of ['GITHUB_PAT', 'AZURE_DEVOPS_EXT_PAT', 'SEGMENT_WRITE_KEY', 'tempauth']) {
  keyed(`name-${key.toLowerCase()}`, 'key-name', key, `${f(`name4-${key}`, 20)}K2`);
}

// Webhooks whose path or query is the credential.
for (const [id, template] of [
  ['webhook-slack-trigger', (t: string) => `https://hooks.slack.com/triggers/T024BE7LD/7321400823410/${t}`],
  ['webhook-mattermost', (t: string) => `https://mattermost.example.org/hooks/${t}`],
  ['webhook-rocketchat', (t: string) => `https://rocket.example.org/hooks/${f('rc-id', 17)}/${t}`],
  ['webhook-ifttt', (t: string) => `curl -X POST https://maker.ifttt.com/trigger/backup_done/with/key/${t}`],
  ['webhook-feishu', (t: string) => `https://open.feishu.cn/open-apis/bot/v2/hook/${t}`],
  ['webhook-wecom', (t: string) => `https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=${t}`],
] as const) {
  const t = id === 'webhook-feishu' || id === 'webhook-wecom' ? `${f(id, 8, LOWER_HEX)}-${f(`${id}-2`, 4, LOWER_HEX)}-4${f(`${id}-3`, 3, LOWER_HEX)}-a${f(`${id}-4`, 3, LOWER_HEX)}-${f(`${id}-5`, 12, LOWER_HEX)}` : `${f(id, 26, 'abcdefghijklmnopqrstuvwxyz0123456789')}`;
  inText(id, 'query-string', t, template(t));
}
{
  const escaped = `${f('slack-escaped', 24)}`;
  inText('webhook-slack-php-escaped', 'query-string', escaped, `{"url":"https:\\/\\/hooks.slack.com\\/services\\/T0001\\/B0001\\/${escaped}"}`);
}

// Command-line clients that take a password after a short option or as an argument.
for (const [id, template] of [
  ['cli-cqlsh', (p: string) => `cqlsh cassandra.internal 9042 -u app -p ${p}`],
  ['cli-cypher-shell', (p: string) => `cypher-shell -a bolt://neo4j:7687 -u neo4j -p '${p}'`],
  ['cli-dotnet-nuget', (p: string) => `dotnet nuget add source https://nuget.example.com/v3/index.json -n internal -u build -p ${p}`],
  ['cli-poetry-http-basic', (p: string) => `poetry config http-basic.internal deployer ${p}`],
  ['cli-rabbitmqctl-add-user', (p: string) => `rabbitmqctl add_user billing ${p}`],
  ['cli-rabbitmqctl-change-password', (p: string) => `rabbitmqctl change_password guest ${p}`],
] as const) {
  const p = `${f(id, 14)}R6`;
  inText(id, 'cli-password', p, template(p));
}

export const FOURTH_SIBLING_SHAPES: readonly SecretShape[] = shapes;
