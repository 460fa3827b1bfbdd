/**
 * The near-misses written for the held-out sets' kinds (the fourth to seventh sets; their secrets
 * are in siblings-fourth.ts … siblings-seventh.ts): ordinary payloads a redactor must leave as they
 * are. ordinary.ts adds them as the families "fourth", "fifth", "sixth", "seventh".
 */
// Near-misses of the fourth held-out set's kinds (siblings-fourth.ts): a working directory, a
// secret's size, code that reads a constant, placeholders with a vendor's prefix, documentation's
// elided key and example webhook, prose about a password option, messages about a password in
// other languages, named outputs that are not secrets, AMQP routing keys, numeric hook ids.
export const FOURTH_NEAR_MISSES: readonly string[] = [
  'HOME=/home/runner\nPWD=/srv/app\nOLDPWD=/home/runner\nSHELL=/bin/bash',
  'Data\n====\npassword:  16 bytes\nusername:  8 bytes',
  'val mapsKey = BuildConfig.MAPS_API_KEY',
  'apiKey: Secrets.Payments.STRIPE_SECRET_KEY,',
  'STRIPE_KEY=sk_test_xxxxxxxxxxxxxxxxxxxxxxxx',
  'GITHUB_TOKEN=ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX',
  '  - Token: gho_************************************',
  'Post to https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX (example)',
  '-----BEGIN RSA PRIVATE KEY-----\n...\n-----END RSA PRIVATE KEY-----',
  JSON.stringify({ env: 'DB_PASSWORD=${DB_PASSWORD}\nLOG_LEVEL=debug' }),
  JSON.stringify({ step: 'env:\n  NPM_TOKEN: ${{ secrets.NPM_TOKEN }}\nrun: npm publish' }),
  'WARNING! Using --password via the CLI is insecure. Use --password-stdin.',
  'Votre mot de passe est incorrect.',
  'Das Passwort ist abgelaufen!',
  'La contraseña debe tener al menos 12 caracteres',
  '密码错误，请重试',
  'パスワードを忘れた場合はこちら',
  '$ terraform output -raw bucket_name\nacme-artifacts-prod-2026',
  "channel.basic_publish(exchange='events', routing_key='orders.created.v2', body=payload)",
  'GET /repos/acme/api/hooks/123456789012345678901 200',
  'Cookie: session=[REDACTED]; theme=[REDACTED]',
  '{"log":{"entries":[{"request":{"url":"https://example.com/","cookies":[]}}]}}',
  'git remote add origin https://github.com/acme/payments-service.git',
];

// Near-misses of the fifth held-out set's kinds (siblings-fifth.ts): a command's subcommand after a
// secret word, prose after one, a dependency's version, a workflow's permissions, a reset link
// without a token, connection strings without a secret, scp-style remotes, placeholders and
// variables where a secret could stand, files that are not secrets, a transaction hash, WeChat's app id.
export const FIFTH_NEAR_MISSES: readonly string[] = [
  'bin/rails credentials:edit --environment production',
  'Run `rails credentials:show` to read them.',
  'password: is required (ValidationError: Path `password` is required.)',
  'token: not found in the request headers',
  'auth: login succeeded user=deploy ip=198.51.100.7',
  '{"dependencies": {"jsonwebtoken": "^9.0.2", "@types/jsonwebtoken": "~9.0.6", "keytar": "7.9.0"}}',
  'permissions:\n  contents: read\n  id-token: write\n  pull-requests: write',
  'Reset your password: https://app.example.com/account/reset-password?step=start',
  'AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=https;AccountName=acmelogs;EndpointSuffix=core.windows.net',
  'ConnectionString: Server=sql01;Database=HR;Integrated Security=true;',
  'git clone git@github.com:acme/payments-service.git',
  'scp deploy@build01.acme.example:/var/artifacts/app.tar.gz .',
  'DB_PASSWORD: !Ref DatabasePassword',
  'jdbc:postgresql://db:5432/app?user=svc&password=$DB_PASSWORD&ssl=true',
  'echo "done" > /tmp/status.txt',
  'echo "$VAULT_PASSWORD" > ~/.vault_pass && chmod 600 ~/.vault_pass',
  '$ cat VERSION\n1.42.0',
  'Enter new password for user "app": \nEnter it again: ',
  'The login is at https://app.example.com/login and the password reset at /reset.',
  'const wallet = new ethers.Wallet(process.env.PRIVATE_KEY, provider);',
  'tx 0x3f1c9a7be2d04c8f9e5a6b7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f80912 confirmed in block 19000000',
  'wx.login({ appid: "wx1234567890abcdef" })',
  'gh secret set NPM_TOKEN < token.txt',
  'htpasswd -nB deploy',
  'DB_PASSWORD=vault:secret/data/prod/db#password',
  'export DB_PASSWORD="op://Prod/Postgres/password"',
  '| Setting | Default |\n|---|---|\n| password_policy | min 12 characters |\n| token_ttl | 3600 |',
  '| env | password |\n| --- | --- |\n| prod | *** |\n| dev | (in 1Password) |',
];

// Near-misses of the sixth held-out set's kinds (siblings-sixth.ts): a secret word at a line's end
// and the next line, code that passes a credential's variable, placeholders of cmd and argparse,
// YAML's null, a model's tokens, a redirect, a reference to a Secret by name, a dependency pinned to
// a major version, cookies that hold preferences, a cookie's deletion, an Authorization quoted in
// prose, the armor lines named in a sentence, a number after a slash, a signature header's fields.
export const SIXTH_NEAR_MISSES: readonly string[] = [
  '# host:port:database:user:password\n# (one line per server; see pgpass(5))',
  '/run/secrets/db-password\n/run/secrets/api-token\n~/.config/app/settings.toml',
  'module Billing::Auth::Session; end',
  'final api = GitHubClient(token: githubToken, baseUrl: baseUrl);',
  'client = OpenAI(api_key=settings.api_key_value, timeout=30)',
  '$securePwd = ConvertTo-SecureString $plainPwd -AsPlainText -Force',
  'await fetch("/api/me", { credentials: "same-origin", headers: { accept: "application/json" } });',
  'set DB_PASSWORD=%DB_PASSWORD%\nrunner.exe --password %DB_PASSWORD%',
  'usage: deploy [-h] [--api-token API_TOKEN] [--region REGION]',
  'cache:\n  password: ~\n  ttl: 300',
  '{"token":" token","logprob":-1.93,"top_logprobs":[{"token":" secret","logprob":-2.2}]}',
  'npm login --auth-type=web < /dev/null',
  'auth:\n  existingSecret: grafana-admin\n  userKey: admin-user',
  '[dependencies]\ntoken = "1"\nsecret-service = "3"',
  'Cookie: locale=fr-FR; theme=dark; sidebar=open',
  'Cookie: _ga=GA1.2.1234567890.1700000000; _gid=GA1.2.987654321.1700000000',
  'Set-Cookie: auth_session=; Max-Age=0; Path=/; Secure',
  'Send it as `Authorization: Bearer <token>` or `Authorization: Bearer eyJhbGciOi...` (shortened).',
  'A key file starts with -----BEGIN RSA PRIVATE KEY----- and ends with -----END RSA PRIVATE KEY----- lines.',
  'https://admin.shopify.com/store/acme/orders/5311999101239 and gid://shopify/Order/5311999101239',
  'DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=example.org; s=sel1; h=from:to:subject',
];

// Near-misses of the seventh held-out set's kinds (siblings-seventh.ts): a log line's next pair after
// a password word, Rust's NotPresent, files that hold a credential (a path, systemd's LoadCredential,
// git's signing key id), Terraform references, masked values, placeholders, SASL mechanism names,
// Mapbox's public token, a verb at the start of a word in German prose, an
// environment table's ordinary variables.
export const SEVENTH_NEAR_MISSES: readonly string[] = [
  '2026-03-02T08:15:44Z WARN auth rejected user=mika reason=expired_password retries=4 src=198.51.100.23',
  'level=info msg="login" reason=wrong_password attempt_no=2',
  "thread 'main' panicked at src/config.rs:18:9:\nenv var STRIPE_SECRET_KEY: NotPresent",
  'GOOGLE_APPLICATION_CREDENTIALS=/etc/gcp/service-account.json\nTLS_KEY=/etc/ssl/private/api.key',
  '[Service]\nLoadCredential=api-token:/etc/credstore/api-token\nLoadCredentialEncrypted=db-pass:/etc/credstore.encrypted/db-pass',
  '[user]\n\tname = Ops Bot\n\tsigningkey = 3AA5C34371567BD2\n[gpg]\n\tformat = openpgp',
  'git config user.signingkey ~/.ssh/id_ed25519.pub',
  'master_password = data.aws_secretsmanager_secret_version.rds.secret_string\nroot_token = module.vault_init.root_token',
  'client_secret: "●●●●●●●●●●●●"\napi_token: "•••••••••"',
  'SESSION_SECRET=change-me\nADMIN_PASSWORD=change_me\nKEYSTORE_PASS=changeit',
  '250-AUTH PLAIN LOGIN CRAM-MD5 XOAUTH2\n250 SMTPUTF8\nAUTH LOGIN\n334 VXNlcm5hbWU6',
  '* OK [CAPABILITY IMAP4rev1 SASL-IR AUTH=PLAIN AUTH=XOAUTH2 AUTH=SCRAM-SHA-256] ready',
  "new mapboxgl.Map({ container: 'map', accessToken: 'pk.eyJ1IjoiZXhhbXBsZSIsImEiOiJjbHh5ejEyMzQifQ.Qm9uam91ci1tYXBib3g' });",
  'Das Passwort für den Jenkins-Agenten ist abgelaufen, bitte neu setzen.',
  'Name                           Value\n----                           -----\nMAX_TOKENS                     4096\nTOKEN_ENDPOINT                 https://login.example.com/oauth2/token',
  'API_TOKEN_HEADER X-Api-Token\nSECRET_KEY_FILE /run/secrets/app-key',
  'Never paste your private key: the wallet signs locally.\ncommit 7d0a1c9e5b3f2a8d4c6e0b9a7f1d3c5e8b2a4f6d0c9e7b1a3d5f8c2e4a6b0d9f rotate private key loader',
  'xpub6CUGRUonZSQ4TWtTMmzXdrXDtypWKiKrhko4egpiMZbpiaQL2jkwSB1icqYh2cfDfVxdx4df189oLKnC5fSwqPfgyP3hooxujYzAu3fDVmz',
  'Le mot de passe est trop court & doit contenir 12 caractères.',
  'mc alias set local http://127.0.0.1:9000 minioadmin $MINIO_ROOT_PASSWORD',
  'relayhost = [email-smtp.us-east-1.amazonaws.com]:587\nsmtp_sasl_auth_enable = yes\nsmtp_sasl_password_maps = hash:/etc/postfix/sasl_passwd',
  'redirect_uri: https://app.example.com/callback?state=af0ifjsldkj&lang=en\nscope: openid email',
];

// Near-misses of the eighth held-out set's kinds (siblings-eighth.ts): the set's four false
// positives (a PowerShell variable after `-P`, a credentials file's path, an ODBC DSN's name, a
// CLI's prompt), prose about a password without one, options named without a value, wallet
// addresses, transaction ids and signatures, and masks of variables.
export const EIGHTH_NEAR_MISSES: readonly string[] = [
  'sqlcmd -S sql01 -U sa -P "$env:SA_PASSWORD" -Q "SELECT 1"',
  'mount -t cifs //nas/share /mnt -o credentials=/root/.smbcred,uid=1000',
  'DSN=Warehouse;Trusted_Connection=Yes;',
  '$ databricks configure --token\nDatabricks Host (should begin with https://): https://adb-123.azuredatabricks.net',
  'Parola este greșită, încearcă din nou.',
  'Hasło do serwera to tajemnica, zapytaj admina.',
  'The pass is valid until Friday 2026-12-11.',
  'pw for prod is in the vault under ops/prod',
  'password for the staging db: see 1Password',
  'Sunucunun şifresi değiştirildi.',
  'plink.exe -ssh admin@10.0.0.7 -pw %PLINK_PW% uptime',
  'evil-winrm -i 10.10.11.5 -u svc_sql -H $NTHASH',
  'snmpwalk -v2c -c public 10.20.0.1 system',
  'unrar x -p- archive.rar',
  'tx 5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW confirmed; from 7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV',
  'pixels = [0,0,0,255,255,255,12,34,56,78]',
  'echo "::add-mask::$API_TOKEN"',
  'vault login -method=oidc role=dev',
  'Enter this code in the app: 482 913',
  'The seed phrase is the 12 or 24 words your wallet showed when you made it; never share it.',
  'db_password: ENC[AES256_GCM,data:c0Wl25rSpwYgWnJy,iv:xzFWODti+Tdtd60ogmg53z0G4kqUlnAR,tag:Jkbl5HXGlkDNWzuHkCZTpQ==,type:str]',
  'TX_HASH=0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060 block 19000000',
  'The following words are reserved: select from where group order limit offset having union except',
  'rocommunity public 10.0.0.0/8\nsyslocation "Server room"',
  '{"name": "theme", "value": "dark-mode-2024"}',
  'Secret ID: see the vault entry ops/consul',
  'Recovery codes are shown once; store them safely.\nBackup codes: regenerate them in Settings.',
  'wpa_passphrase "HomeNet" < /run/wifi-pass',
  'setx PATH "%PATH%;C:\\tools"\n[Environment]::SetEnvironmentVariable("JAVA_HOME", "C:\\jdk", "Machine")',
  '[{"ParameterKey":"Env","ParameterValue":"prod"},{"ParameterKey":"InstanceType","ParameterValue":"t3.medium"}]',
  '<String><Key>UserName</Key><Value>admin</Value></String><String><Key>URL</Key><Value>https://db.example.org</Value></String>',
  '{"mcpServers":{"acme":{"command":"npx","args":["-y","@acme/mcp-server","--api-key","${ACME_API_KEY}"]}}}',
  'user default on nopass ~* &* +@all',
  '$ pwgen --help\nUsage: pwgen [ OPTIONS ] [ pw_length ] [ num_pw ]',
  '$ pass show servers/\nservers\n├── prod-db',
  "$ kubectl get secret db-creds -o jsonpath='{.data}'\nmap[password:...]",
  'VALIDATOR_PUBKEY=0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060',
  'Phrase: hello world (the greeting the bot answers with)',
];

// Near-misses of the ninth held-out set's kinds (siblings-ninth.ts): test runners' PASS lines, a
// URI scheme's word before an address, an image's tag before its digest, a package's version, git's
// ssh address, a transaction hash and a public key, JSON keys that are names, firmware names, codes
// of an IBAN's form (dotted, lower case) that fail its check, hashes and paths that are no base64 of text.
export const NINTH_NEAR_MISSES: readonly string[] = [
  'PASS  src/app.test.ts (2.1 s)\nPASS  src/api.test.ts\nTests: 12 passed, 12 total',
  'Contact mailto:ops@example.com or sip:desk@pbx.example.com',
  'docker pull node:20-alpine@sha256:9f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b1a0',
  'npm:react@18.2.0 resolved from registry.npmjs.org',
  'git clone git@github.com:acme/api.git && cd api',
  'meeting at 10:30@conference.example.com tomorrow',
  'tx hash 0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318 confirmed',
  'public key 0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318',
  JSON.stringify({ key: 'user_profile_settings', value: 1 }),
  JSON.stringify({ key: 'ArrowDown', code: 'ArrowDown' }),
  JSON.stringify({ key: 'reports/2026/q3/summary.pdf', bucket: 'acme-artifacts' }),
  'flash fw_updateAvailableForDevice and reboot',
  'version DE12.3456.7890.1234.5678.90 of the parts list',
  'order gb00 abcd 1234 5678 9012 34 shipped',
  'commit 3f2a9c1e8b7d6f5a4c3b2a1908f7e6d5c4b3a291 by dana',
  'see 550e8400-e29b-41d4-a716-446655440000 in /usr/local/lib/node_modules/typescript/lib/tsc.js',
  'Command refused: SGVsbG8gd29ybGQsIHRoaXMgaXMgYSBwbGFpbiBtZXNzYWdlLg== (not allowed)',
  'KEYBOARD_LAYOUT=us\nLANG=en_US.UTF-8',
  'EXEC sp_helplogins; EXEC sp_who2',
  'db.getUsers()\ndb.changeUserPassword(user, passwordPrompt())',
];
