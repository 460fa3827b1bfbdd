/**
 * Vendor token shapes, recognisable by their prefix and length alone: one alternation of the
 * secret rules (shapes.ts, `api_key`). A shape here needs no name beside it to be a secret.
 */
export const VENDOR_TOKENS: readonly string[] = [
  'sk-(?:ant-(?:api|admin|sid)\\d\\d-|proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}',
  'gh[pousr]_[A-Za-z0-9]{30,}',
  'github_pat_[A-Za-z0-9_]{40,}',
  'gl(?:pat|dt|rt|ptt|ft|cbt|oas)-[A-Za-z0-9_-]{20,}',
  'GR1348941[A-Za-z0-9_-]{20,}',
  'xox[abposre]-[A-Za-z0-9_-]{10,}',
  'xapp-\\d-[A-Za-z0-9-]{20,}',
  '(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}',
  'whsec_[A-Za-z0-9+/=]{24,}',
  'AIza[0-9A-Za-z_-]{35}',
  'GOCSPX-[A-Za-z0-9_-]{20,}',
  'ya29\\.[A-Za-z0-9_.-]{20,}',
  'hf_[A-Za-z0-9]{30,}',
  'gsk_[A-Za-z0-9]{40,}',
  // Cerebras; JFrog Artifactory's API key; 1Password's account Secret Key.
  'csk-[a-z0-9]{40,}',
  'AKCp[A-Za-z0-9]{60,80}(?![A-Za-z0-9])',
  'A3-[A-Z0-9]{6}-[A-Z0-9]{6}-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}',
  // Resend, Mandrill (with a digit and a capital: CSS classes also start `md-`), Dropbox, Adafruit IO,
  // SonarQube, Prefect Cloud.
  're_[A-Za-z0-9]{8}_[A-Za-z0-9]{24}(?![A-Za-z0-9_])',
  'md-(?=[A-Za-z0-9_-]{0,21}\\d)(?=[A-Za-z0-9_-]{0,21}[A-Z])[A-Za-z0-9_-]{22}(?![A-Za-z0-9_-])',
  'sl\\.[A-Za-z0-9_-]{130,}',
  'aio_[A-Za-z0-9]{28}(?![A-Za-z0-9])',
  'sq[uap]_[a-f0-9]{40}(?![a-f0-9])',
  'pnu_[A-Za-z0-9]{36}(?![A-Za-z0-9])',
  'r8_[A-Za-z0-9]{30,}',
  'pplx-[A-Za-z0-9]{40,}',
  'xai-[A-Za-z0-9]{60,}',
  'npm_[A-Za-z0-9]{36}',
  'pypi-AgE[A-Za-z0-9_-]{50,}',
  'SG\\.[A-Za-z0-9_-]{16,}\\.[A-Za-z0-9_-]{16,}',
  'SK[0-9a-f]{32}',
  'key-[0-9a-f]{32}',
  'shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}',
  'lin_api_[A-Za-z0-9]{40}',
  'ntn_[A-Za-z0-9]{40,}',
  'PMAK-[a-f0-9]{24}-[a-f0-9]{34}',
  'glsa_[A-Za-z0-9]{32}_[a-f0-9]{8}',
  'glc_[A-Za-z0-9+/_-]{32,}={0,2}',
  'NRAK-[A-Z0-9]{27}',
  'sq0(?:atp|csp)-[A-Za-z0-9_-]{22,}',
  'sk\\.eyJ[A-Za-z0-9_-]{10,}\\.[A-Za-z0-9_-]{10,}',
  'AGE-SECRET-KEY-1[0-9A-Z]{58}',
  'do[por]_v1_[a-f0-9]{64}',
  'hv[sb]\\.[A-Za-z0-9_-]{24,}',
  'pul-[a-f0-9]{40}',
  'dp\\.(?:st|ct|sa|scim|audit|pt)\\.[A-Za-z0-9_.-]{40,}',
  'fo1_[A-Za-z0-9_-]{40,}',
  'tskey-[a-z]+-[A-Za-z0-9]{8,}-[A-Za-z0-9]{20,}',
  'sbp_[a-f0-9]{40}',
  'dapi[a-f0-9]{32}',
  'dckr_pat_[A-Za-z0-9_-]{27,}',
  'gt_[A-Za-z0-9_-]{30,}',
  // Discord bot token: three dotted parts.
  '[MN][A-Za-z0-9]{23,25}\\.[A-Za-z0-9_-]{6}\\.[A-Za-z0-9_-]{27,38}',
  // Notion's older integration secret, Atlassian API
  // token, Square / Meta access token, Braintree, Sentry user and org tokens, Netlify, Figma,
  // Fly.io, Heroku, Google's OAuth refresh token, Confluent's key:secret pair, Render, Supabase's
  // new secret key, Dynatrace, Alibaba and Tencent Cloud access key ids.
  'secret_[A-Za-z0-9]{43}',
  'ATATT3[A-Za-z0-9_=-]{50,}',
  'EAA[A-Za-z0-9_-]{40,}',
  'access_token\\$production\\$[a-z0-9]{16}\\$[a-f0-9]{32}',
  'sntry[us]_[A-Za-z0-9_=+/-]{40,}',
  'nfp_[A-Za-z0-9]{36,}',
  'figd_[A-Za-z0-9_-]{30,}',
  '(?:FlyV1\\s+)?fm\\d_[A-Za-z0-9_+/=-]{40,}',
  'HRKU-[A-Za-z0-9_-]{20,}',
  '1//0[A-Za-z0-9_-]{30,}',
  '[A-Z0-9]{16}:[A-Za-z0-9+/]{64}',
  'rnd_[A-Za-z0-9]{32}',
  'sb_secret_[A-Za-z0-9_-]{20,}',
  'dt0[a-z]\\d{2}\\.[A-Z0-9]{24}\\.[A-Z0-9]{64}',
  'LTAI[A-Za-z0-9]{12,20}',
  'AKID[A-Za-z0-9]{32}',
  // Airtable's personal access token, Firecrawl, Pinecone, Cloudflare's Origin CA key, LaunchDarkly's
  // SDK and API keys (a UUID behind the prefix), Bitbucket's app password, HubSpot's private app
  // token, Flutterwave's secret key, LangSmith, Tavily, Neon, Typeform, Asana.
  'pat[A-Za-z0-9]{14}\\.[0-9a-f]{64}(?![0-9a-f])',
  'fc-[0-9a-f]{32}(?![0-9a-f])',
  'pcsk_[A-Za-z0-9]{4,10}_[A-Za-z0-9]{30,}',
  'v1\\.0-[0-9a-f]{24}-[0-9a-f]{100,}',
  '(?:sdk|api)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?![0-9a-f-])',
  'ATBB[A-Za-z0-9_=.-]{32,}',
  'pat-(?:na|eu|ap)\\d-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}',
  'FLWSECK(?:_TEST)?-[0-9a-f]{32}-X',
  'lsv2_(?:sk|pt)_[0-9a-f]{32}_[0-9a-f]{10}',
  'tvly-(?:dev-|prod-)?[A-Za-z0-9]{30,}',
  'napi_[A-Za-z0-9]{40,}',
  'tfp_[A-Za-z0-9_-]{40,}',
  // Asana's personal access token (`2/<user id>/<app id>:<32 hex>`; the older `1/<digits>:<hex>`).
  '[0-9]/[0-9]{10,20}(?:/[0-9]{10,20})?:[0-9a-f]{32}(?![0-9a-f])',
];

/**
 * Vendor shapes that begin with a run of a character class (a lookup at every word of every string
 * in the one alternation, half its cost when they were in it), each with the literal it holds: a
 * rule of their own (shapes.ts), tried only on a string that has it. Terraform Cloud's token, an
 * Azure AD client secret (`~` after `Q`), Mailchimp's key (its data centre after the dash),
 * Salesforce's session id.
 */
export const GATED_VENDOR_TOKENS: readonly { pattern: string; gate: string }[] = [
  { pattern: '[A-Za-z0-9]{14}\\.atlasv1\\.[A-Za-z0-9_=-]{60,}', gate: '.atlasv1.' },
  { pattern: '[A-Za-z0-9_~.]{3}\\dQ~[A-Za-z0-9_~.-]{31,34}', gate: 'Q~' },
  { pattern: '[0-9a-f]{32}-us\\d{1,2}', gate: '-us' },
  // Salesforce's session id (`00D<org id>!<session>`, what `sf org display` prints as its access token).
  { pattern: '00D[A-Za-z0-9]{12,15}![A-Za-z0-9._]{40,}', gate: '00D' },
  // AWS STS session tokens (their base64 starts with the same bytes, `!\n\torigin_ec…`; the older `FwoG…`).
  { pattern: 'IQoJb3JpZ2luX2Vj[A-Za-z0-9+/=]{100,}', gate: 'IQoJb3JpZ2luX2Vj' },
  { pattern: 'FwoGZXIvYXdzE[A-Za-z0-9+/=]{100,}', gate: 'FwoGZXIvYXdzE' },
  // Firebase Cloud Messaging's legacy server key.
  { pattern: 'AAAA[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{100,}', gate: 'APA91b' },
  // Base64 of a Google service account's JSON (`{"type": "service_account"`, compact or indented)
  // and of a registry's `auths` (a Kubernetes `.dockerconfigjson`): a private key, a registry password.
  { pattern: 'ewogICJ0eXBlIjogInNlcnZpY2VfYWNjb3VudC[A-Za-z0-9+/=]{20,}', gate: 'ewogICJ0eXBlIjogInNlcnZpY2VfYWNjb3VudC' },
  { pattern: 'eyJ0eXBlIjogInNlcnZpY2VfYWNjb3VudC[A-Za-z0-9+/=]{20,}', gate: 'eyJ0eXBlIjogInNlcnZpY2VfYWNjb3VudC' },
  { pattern: 'eyJ0eXBlIjoic2VydmljZV9hY2NvdW50[A-Za-z0-9+/=]{20,}', gate: 'eyJ0eXBlIjoic2VydmljZV9hY2NvdW50' },
  { pattern: 'eyJhdXRocyI6[A-Za-z0-9+/=]{20,}', gate: 'eyJhdXRocyI6' },
  // AI and agent platforms of 2025-2026: Together, ElevenLabs (`sk_` and 48 hex digits), Voyage (`pa-`),
  // Vercel's AI Gateway, Cursor's admin key, E2B, Apify, LlamaCloud, Browserbase, Mem0.
  { pattern: 'tgp_v1_[A-Za-z0-9_-]{30,}', gate: 'tgp_v1_' },
  { pattern: 'sk_[0-9a-f]{48}(?![0-9a-f])', gate: 'sk_' },
  { pattern: 'pa-(?=[A-Za-z0-9_-]{0,59}\\d)(?=[A-Za-z0-9_-]{0,59}[A-Z])[A-Za-z0-9_-]{40,60}(?![A-Za-z0-9_-])', gate: 'pa-' },
  { pattern: 'vck_[A-Za-z0-9]{40,}', gate: 'vck_' },
  { pattern: 'key_[0-9a-f]{64}(?![0-9a-f])', gate: 'key_' },
  { pattern: 'e2b_[0-9a-f]{40}(?![0-9a-f])', gate: 'e2b_' },
  { pattern: 'apify_api_[A-Za-z0-9]{30,}', gate: 'apify_api_' },
  { pattern: 'llx-[A-Za-z0-9]{40,}', gate: 'llx-' },
  { pattern: 'bb_(?:live|test)_[A-Za-z0-9_-]{20,}', gate: 'bb_' },
  { pattern: 'm0-(?=[A-Za-z0-9]{0,59}\\d)(?=[A-Za-z0-9]{0,59}[A-Z])[A-Za-z0-9]{40,60}(?![A-Za-z0-9])', gate: 'm0-' },
  // Observability: Honeycomb's ingest key, Axiom's API and personal tokens.
  { pattern: 'hcaik_[A-Za-z0-9]{40,}', gate: 'hcaik_' },
  { pattern: 'hcxik_[A-Za-z0-9]{40,}', gate: 'hcxik_' },
  { pattern: 'xaat-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}', gate: 'xaat-' },
  { pattern: 'xapt-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}', gate: 'xapt-' },
  // Payments: Paddle, Mollie (`live_`/`test_` and 30 characters, with a digit and a capital), Checkout.com's sandbox.
  { pattern: 'pdl_(?:live|sdbx)_apikey_[A-Za-z0-9_]{30,}', gate: 'pdl_' },
  // (Gated by its prefix, not `_`: a one-character gate would try this rule on every identifier.)
  { pattern: 'live_(?=[A-Za-z0-9]{0,29}\\d)(?=[A-Za-z0-9]{0,29}[A-Z])[A-Za-z0-9]{30}(?![A-Za-z0-9])', gate: 'live_' },
  { pattern: 'test_(?=[A-Za-z0-9]{0,29}\\d)(?=[A-Za-z0-9]{0,29}[A-Z])[A-Za-z0-9]{30}(?![A-Za-z0-9])', gate: 'test_' },
  { pattern: 'sk_sbox_[a-z0-9]{26,}', gate: 'sk_sbox_' },
  // CI, packages and app platforms: 1Password service accounts, NuGet, Statsig's server secret,
  // Trigger.dev, Stytch, PlanetScale, DataStax Astra, Convex's deploy key.
  { pattern: 'ops_eyJ[A-Za-z0-9+/=_-]{50,}', gate: 'ops_eyJ' },
  { pattern: 'oy2[a-z0-9]{43}(?![a-z0-9])', gate: 'oy2' },
  { pattern: 'secret-(?:(?:live|test)-[A-Za-z0-9_=+/-]{20,}|(?=[A-Za-z0-9]{0,59}\\d)(?=[A-Za-z0-9]{0,59}[A-Z])[A-Za-z0-9]{40,60}(?![A-Za-z0-9]))', gate: 'secret-' },
  { pattern: 'tr_prod_[A-Za-z0-9]{20,}', gate: 'tr_prod_' },
  { pattern: 'tr_dev_[A-Za-z0-9]{20,}', gate: 'tr_dev_' },
  { pattern: 'tr_stg_[A-Za-z0-9]{20,}', gate: 'tr_stg_' },
  { pattern: 'pscale_(?:pw|tkn|oauth)_[A-Za-z0-9_.-]{30,}', gate: 'pscale_' },
  { pattern: 'AstraCS:[A-Za-z0-9]{20,}:[0-9a-f]{64}', gate: 'AstraCS:' },
  { pattern: '(?:prod|dev|preview):[a-z0-9-]+\\|eyJ[A-Za-z0-9+/=_-]{20,}', gate: '|eyJ' },
  // Wallets and keys: a Nostr private key, a Tor onion service's key, an LND macaroon in a header.
  { pattern: 'nsec1[02-9ac-hj-np-z]{58}', gate: 'nsec1' },
  { pattern: 'ED25519-V3:[A-Za-z0-9+/]{86}', gate: 'ED25519-V3:' },
  // Fireworks AI's API key (with a digit and a capital: firmware names also start `fw_`).
  { pattern: 'fw_(?=[A-Za-z0-9]{0,39}\\d)(?=[A-Za-z0-9]{0,39}[A-Z])[A-Za-z0-9]{20,40}(?![A-Za-z0-9_])', gate: 'fw_' },
];
