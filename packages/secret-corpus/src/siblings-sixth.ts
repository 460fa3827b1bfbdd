/**
 * The siblings of the kinds a sixth held-out set (2026-12-07: 532 secrets and 338 near-misses
 * weighted to HTTP dumps, stack traces, source code, database output and chat, written without
 * reading this corpus or the rules) found kept or damaged: vendor tokens by their prefix (Airtable,
 * Firecrawl, Pinecone, Cloudflare's Origin CA, LaunchDarkly, Bitbucket, HubSpot, Flutterwave,
 * LangSmith, Tavily, Neon, Typeform, Asana, Doppler's personal token, Alchemy's URL), Redis' replies
 * and MONITOR lines, mail and file protocol transcripts, a key id and its secret as two quoted
 * arguments, a header or a credential set in code, Gradle's DSL, HTML form fields and property
 * lists, a stack trace's arguments; and damage around secrets: a cookie among preferences, an
 * Authorization's scheme and parameters, a signed URL's credential scope, webhooks' ids, a Secret's
 * quoted value, a connection string in an attribute, a sentence's full stop. Generated as
 * secrets.ts generates its own (fake.ts): valid in form, useless in fact. Their near-misses are in
 * ordinary.ts ("sixth").
 */
import { ALNUM, BASE64, b64, fake, LOWER_HEX, UPPER_DIGITS } from './fake.ts';
import type { SecretKind, SecretShape } from './shape.ts';

const f = fake;
const shapes: SecretShape[] = [];
const inText = (id: string, kind: SecretKind, secret: string, text: string) => shapes.push({ id, kind, secret, text });
const LOWER_ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789';
/** A UUID of hex characters from `seed`. */
const uuid = (seed: string) => {
  const h = f(seed, 32, LOWER_HEX);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
};
/** A password as people write them: a word, digits and a symbol. */
const pw = (seed: string) => `${f(seed, 1, 'BCDFGHKLMNPRST')}${f(`${seed}-w`, 7, 'abcdefghiklmnoprstuvw')}${f(`${seed}-d`, 3, '0123456789')}${f(`${seed}-s`, 1, '!#*+-.%')}`;

// Vendor tokens known by their prefix, in code, a config file or a message.
{
  const airtable = `pat${f('airtable-id', 14)}.${f('airtable-secret', 64, LOWER_HEX)}`;
  inText('vendor-airtable-pat', 'vendor-token', airtable, `base = Api("${airtable}").base("app${f('airtable-base', 14)}")`);
  const firecrawl = `fc-${f('firecrawl', 32, LOWER_HEX)}`;
  inText('vendor-firecrawl', 'vendor-token', firecrawl, `FIRECRAWL_KEY: ${firecrawl}`);
  const pinecone = `pcsk_${f('pinecone-id', 5)}_${f('pinecone-secret', 60)}`;
  inText('vendor-pinecone', 'vendor-token', pinecone, `const pc = new Pinecone({ apiKey: getKey() ?? '${pinecone}' });`);
  const originCa = `v1.0-${f('origin-ca-id', 24, LOWER_HEX)}-${f('origin-ca-secret', 146, LOWER_HEX)}`;
  inText('vendor-cloudflare-origin-ca', 'vendor-token', originCa, `export CF_ORIGIN_CA=${originCa}`);
  const ldSdk = `sdk-${uuid('launchdarkly-sdk')}`;
  inText('vendor-launchdarkly-sdk', 'vendor-token', ldSdk, `LDClient client = new LDClient("${ldSdk}");`);
  const ldApi = `api-${uuid('launchdarkly-api')}`;
  inText('vendor-launchdarkly-api', 'vendor-token', ldApi, `curl -H "Authorization: ${ldApi}" https://app.launchdarkly.com/api/v2/flags/default`);
  const bitbucket = `ATBB${f('bitbucket', 32)}${f('bitbucket-2', 8, UPPER_DIGITS)}`;
  inText('vendor-bitbucket-app-password', 'vendor-token', bitbucket, `git clone https://ci-bot@bitbucket.org/acme/infra.git  # app password ${bitbucket}`);
  const doppler = `dp.pt.${f('doppler-pt', 43)}`;
  inText('vendor-doppler-personal', 'vendor-token', doppler, `doppler configure set token ${doppler} --scope /srv/app`);
  const hubspot = `pat-eu1-${uuid('hubspot')}`;
  inText('vendor-hubspot-private-app', 'vendor-token', hubspot, `hubspot_client = HubSpot(access_token=os.getenv("HS") or "${hubspot}")`);
  const flutterwave = `FLWSECK_TEST-${f('flutterwave', 32, LOWER_HEX)}-X`;
  inText('vendor-flutterwave-secret', 'vendor-token', flutterwave, `{"flw": {"secretKey": null, "fallback": "${flutterwave}"}}`);
  const langsmith = `lsv2_pt_${f('langsmith', 32, LOWER_HEX)}_${f('langsmith-2', 10, LOWER_HEX)}`;
  inText('vendor-langsmith', 'vendor-token', langsmith, `tracing with ${langsmith} now, the old key is revoked`);
  const tavily = `tvly-dev-${f('tavily', 32)}`;
  inText('vendor-tavily', 'vendor-token', tavily, `search = TavilySearchResults(max_results=3, tavily_api_key=cfg.get("t", "${tavily}"))`);
  const neon = `napi_${f('neon', 64, LOWER_ALNUM)}`;
  inText('vendor-neon', 'vendor-token', neon, `neonctl projects list --api-key ${neon}`);
  const typeform = `tfp_${f('typeform', 44, `${ALNUM}_`)}`;
  inText('vendor-typeform', 'vendor-token', typeform, `typeform:\n  tokens:\n    - ${typeform}`);
  const asana = `2/${f('asana-user', 16, '0123456789')}/${f('asana-app', 16, '0123456789')}:${f('asana-secret', 32, LOWER_HEX)}`;
  inText('vendor-asana-pat', 'vendor-token', asana, `client = asana.Client.access_token('${asana}')`);
  const x = `${'A'.repeat(22)}${f('x-bearer', 30)}%3D${f('x-bearer-2', 50)}`;
  inText('vendor-x-bearer-url-encoded', 'vendor-token', x, `worker-2 calling search with credential ${x} (tenant acme)`);
  const alchemy = f('alchemy', 32);
  inText('vendor-alchemy-url', 'vendor-token', alchemy, `RPC_URL=https://polygon-mainnet.g.alchemy.com/v2/${alchemy}`);
}

// Redis: a reply to CONFIG GET, MONITOR's AUTH with its password alone, a hash field named for a secret.
{
  const p = pw('redis-masterauth');
  inText('redis-config-get-masterauth', 'config-file', p, `redis> CONFIG GET masterauth\n1) "masterauth"\n2) "${p}"\nredis> `);
  const a = `${f('redis-monitor-auth', 18)}7`;
  inText('redis-monitor-auth-password', 'config-file', a, `1733500000.120001 [0 172.18.0.4:40122] "AUTH" "${a}"\n1733500000.120300 [0 172.18.0.4:40122] "PING"`);
  const h = `${f('redis-monitor-hset', 28)}4x`;
  inText('redis-monitor-hset-token', 'config-file', h, `1733500011.004100 [3 10.1.0.9:51200] "HSET" "user:77" "name" "Ana" "refresh_token" "${h}"`);
}

// Mail and file protocol transcripts.
{
  const p = pw('pop3-pass');
  inText('pop3-pass-transcript', 'log-password', p, `C: USER ana@acme.example\nS: +OK\nC: PASS ${p}\nS: -ERR [AUTH] Authentication failed.`);
  const plain = b64(`\0deploy@acme.example\0${pw('smtp-auth-plain')}`);
  inText('smtp-auth-plain', 'log-password', plain, `[smtp] >>> AUTH PLAIN ${plain}\n[smtp] <<< 535 5.7.8 Authentication credentials invalid`);
}

// A key id and its secret as two quoted arguments; a header or a credential set in code; Gradle's DSL; a form; a plist.
{
  const aws = `${f('aws-pair-quoted', 40, BASE64)}`;
  inText('aws-pair-quoted-arguments', 'cloud', aws, `AWSCredentials creds = new BasicAWSCredentials("AKIA${f('aws-pair-id', 16, UPPER_DIGITS)}", "${aws}");`);
  const ali = f('alibaba-pair', 30);
  inText('alibaba-pair-quoted-arguments', 'cloud', ali, `client = AcsClient('LTAI${f('alibaba-id', 20)}', '${ali}', 'cn-shanghai')`);
  const header = f('header-set-in-code', 40);
  inText('header-set-request-header', 'header', header, `xhr.setRequestHeader("X-Auth-Token", "${header}");`);
  const appended = `${f('header-append', 30)}9Q`;
  inText('header-append-api-key', 'header', appended, `headers.append('x-api-key', '${appended}');`);
  const azure = f('azure-key-credential', 32, LOWER_HEX);
  inText('azure-key-credential', 'cloud', azure, `var client = new SearchClient(endpoint, "docs", new AzureKeyCredential("${azure}"));`);
  const gradle = pw('gradle-key-password');
  inText('gradle-key-password', 'config-file', gradle, `android {\n    signingConfigs {\n        upload {\n            keyAlias 'upload'\n            keyPassword '${gradle}'\n        }\n    }\n}`);
  const form = `${f('html-form-token', 36, LOWER_HEX)}`;
  inText('html-hidden-field-token', 'config-file', form, `<form action="/sync" method="post"><input name="access_token" type="hidden" value="${form}"><button>Sync</button></form>`);
  const plist = `${f('plist-token', 30)}5k`;
  inText('plist-api-token', 'config-file', plist, `<plist version="1.0">\n<dict>\n  <key>SegmentWriteToken</key>\n  <string>${plist}</string>\n</dict>\n</plist>`);
  const pdo = pw('pdo-stack-trace');
  inText(
    'stack-trace-pdo-arguments',
    'log-password',
    pdo,
    `#0 /srv/app/vendor/illuminate/database/Connectors/Connector.php(70): PDO->__construct('pgsql:host=db;dbname=app', 'app', '${pdo}', Array)\n#1 {main}`,
  );
}

// Damage around secrets: what surrounds one must come back as it was.
{
  const sid = `${f('cookie-among-prefs', 40, `${ALNUM}-_`)}`;
  inText('cookie-session-among-preferences', 'header', sid, `Cookie: theme=light; session_id=${sid}; lang=de-DE`);
  const set = `${f('set-cookie-attrs', 48, `${ALNUM}-_`)}`;
  inText('set-cookie-with-attributes', 'header', set, `Set-Cookie: auth_session=${set}; Path=/; Secure; HttpOnly; SameSite=Strict`);
  const harSid = f('har-second-cookie', 32, 'abcdefghijklmnopqrstuvwxyz0123456789');
  inText(
    'har-cookie-after-another',
    'header',
    harSid,
    `"cookies": [\n  { "name": "csrf_token", "value": "${f('har-first-cookie', 32)}" },\n  { "name": "sid", "value": "${harSid}", "httpOnly": true }\n]`,
  );
  const fcm = `AAAA${f('fcm-header-id', 7)}:APA91b${f('fcm-header-key', 134, `${ALNUM}_-`)}`;
  inText('authorization-key-parameter', 'header', fcm, `-H "Authorization: key=${fcm}"`);
  const ssws = `00${f('okta-ssws', 40, `${ALNUM}_-`)}`;
  inText('authorization-ssws', 'header', ssws, `Authorization: SSWS ${ssws}`);
  const digest = f('digest-response', 32, LOWER_HEX);
  inText(
    'authorization-digest-response',
    'header',
    digest,
    `Authorization: Digest username="svc", realm="api", nonce="${f('digest-nonce', 32, LOWER_HEX)}", uri="/status", response="${digest}", qop=auth, nc=00000002`,
  );
  const keyId = `AKIA${f('presign-key-id', 16, UPPER_DIGITS)}`;
  inText(
    'presigned-url-credential',
    'cloud',
    keyId,
    `https://acme-data.s3.eu-central-1.amazonaws.com/x.csv?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=${keyId}%2F20261201%2Feu-central-1%2Fs3%2Faws4_request&X-Amz-Expires=600`,
  );
  const discord = f('discord-webhook-token', 68, `${ALNUM}_-`);
  inText('webhook-discord-token', 'vendor-token', discord, `curl -X POST https://discord.com/api/webhooks/${f('discord-id', 19, '0123456789')}/${discord} -d '{"content":"deployed"}'`);
  const slack = f('slack-services-last', 24);
  inText('webhook-slack-services-last', 'vendor-token', slack, `SLACK_HOOK: https://hooks.slack.com/services/T${f('slack-t', 10, UPPER_DIGITS)}/B${f('slack-b', 10, UPPER_DIGITS)}/${slack}`);
  const secretData = `sk-proj-${f('k8s-quoted', 48, `${ALNUM}_-`)}`;
  inText('k8s-string-data-quoted', 'config-file', secretData, `apiVersion: v1\nkind: Secret\nmetadata:\n  name: model-keys\nstringData:\n  MODEL_KEY: '${secretData}'`);
  const sas = `${f('servicebus-key', 43, BASE64)}=`;
  inText(
    'connection-string-in-attribute',
    'connection-string',
    sas,
    `<add name="Events" connectionString="Endpoint=sb://acme-events.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey=${sas}" />`,
  );
  const sentence = `${f('token-before-full-stop', 30)}7Z`;
  inText('token-before-full-stop', 'log-password', sentence, `Your new access token is ${sentence}. It replaces the old one.`);
}

export const SIXTH_SIBLING_SHAPES: readonly SecretShape[] = shapes;
