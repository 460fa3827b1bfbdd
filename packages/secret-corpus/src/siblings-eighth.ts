/**
 * The siblings of the kinds an eighth held-out set (2026-12-07: 618 secrets and 140 near-misses:
 * passwords in prose in two dozen languages and in English phrasings, admin tools' command lines,
 * wallets and second factors, written without reading this corpus or the rules) found kept or cut:
 * a password after the word for it and the verb of Polish, Turkish, Italian, Korean, Hindi,
 * Arabic, Vietnamese, Indonesian, Malay, Greek, Hebrew, Thai, Persian, Tagalog, Swahili, Bengali
 * and Romanian; English's `password for the … db:`, `pw for … is`, `the pass is`, `… -> …`;
 * remote-admin and database clients' password options (PuTTY's `-pw`, PsExec, evil-winrm, racadm,
 * rdesktop, HANA, Vertica, Mosquitto, etcd, unrar, DB2's `using`, Jenkins' `-auth`, Impacket's
 * `user:'pw'@host`), SNMP communities, LDAP bind passwords in nslcd and sssd, a proxy's user,
 * container registry creds; a Solana keypair as its byte array, a Bitcoin WIF key, a TOTP seed
 * shown for manual entry, a seed phrase after the words that name it, an Ethereum key under a
 * `…_KEY` name or in Hardhat's `accounts`, a value masked in a GitHub
 * Actions log, a legacy Vault token; a Slack refresh token with `_`, a SQL Server JDBC password
 * with `@`. Generated as secrets.ts generates its own (fake.ts). Their near-misses are in
 * ordinary-held-out.ts ("eighth").
 */
import { ALNUM, fake } from './fake.ts';
import type { SecretKind, SecretShape } from './shape.ts';

const f = fake;
const shapes: SecretShape[] = [];
const inText = (id: string, kind: SecretKind, secret: string, text: string) => shapes.push({ id, kind, secret, text });
/** A password as people write them: a capital, letters and digits (no symbol: the harder case for prose). */
const pw = (seed: string) => `${f(seed, 1, 'BCDFGHKLMNPRST')}${f(`${seed}-w`, 3, 'abcdefghiklmnoprstuvw')}${f(`${seed}-d`, 2, '0123456789')}${f(`${seed}-x`, 4, 'abcdefghkmnpqrstwxyz')}${f(`${seed}-e`, 1, '0123456789')}`;

// Passwords in prose: the word for it, then the language's verb or particle.
const prose: [string, (v: string) => string][] = [
  ['pl-to', (v) => `Hasło do serwera to ${v}, zmień je po logowaniu.`],
  ['tr-no-verb', (v) => `Sunucunun şifresi ${v} olarak ayarlandı.`],
  ['it-di-accesso', (v) => `Password di accesso: ${v}`],
  ['ja-de', (v) => `パスワード ${v} でログインしてください`],
  ['ko-neun', (v) => `관리자 비밀번호는 ${v} 입니다.`],
  ['hi-hai', (v) => `सर्वर का पासवर्ड ${v} है।`],
  ['ar-hiya', (v) => `كلمة المرور هي ${v}`],
  ['vi-la', (v) => `Mật khẩu là ${v}`],
  ['id-adalah', (v) => `Kata sandi wifi kantor adalah ${v}`],
  ['ms-ialah', (v) => `Kata laluan ialah ${v}`],
  ['el-einai', (v) => `Ο κωδικός πρόσβασης είναι ${v}`],
  ['he-hi', (v) => `הסיסמה היא ${v}`],
  ['th-khue', (v) => `รหัสผ่านคือ ${v}`],
  ['fa-colon', (v) => `رمز عبور: ${v}`],
  ['tl-ay', (v) => `Ang password ay ${v}`],
  ['sw-ni', (v) => `Nenosiri ni ${v}`],
  ['bn-hol', (v) => `পাসওয়ার্ড হল ${v}`],
  ['ro-este', (v) => `Parola este ${v}`],
  ['ko-no-particle', (v) => `비밀번호 ${v} 로 접속하세요`],
  ['hi-hai-before', (v) => `मेरा पासवर्ड है ${v}`],
  ['ar-kalimat-al-sirr', (v) => `كلمة السر: ${v}`],
  // English phrasings.
  ['en-for-db-colon', (v) => `password for the staging db: ${v}`],
  ['en-pw-for-is', (v) => `pw for prod is ${v}`],
  ['en-the-pass-is', (v) => `The pass is ${v} btw`],
  ['en-was-changed-to', (v) => `password was changed to '${v}' at 10:42`],
  ['en-arrow', (v) => `admin password -> ${v}`],
  ['en-apostrophe-s', (v) => `my password's ${v} lol`],
];
for (const [id, text] of prose) inText(`prose-${id}`, 'log-password', pw(`eighth-${id}`), text(pw(`eighth-${id}`)));
const withEquals = `${f('eighth-eq-a', 3, 'abcdefghkmnpqrstwxyz')}=${f('eighth-eq-b', 7, ALNUM)}4`;
inText('prose-en-value-with-equals', 'log-password', withEquals, `The password is ${withEquals}`);
const roEquals = `mL1uV=${f('eighth-ro-eq', 6, ALNUM)}#6`;
inText('prose-ro-value-with-equals', 'log-password', roEquals, `Parola este ${roEquals}`);

// Command lines of remote-admin tools, database and broker clients.
const cli: [string, (v: string) => string][] = [
  ['plink-pw', (v) => `plink.exe -ssh admin@10.0.0.7 -pw ${v} uptime`],
  ['pscp-pw-quoted', (v) => `pscp -pw "${v}" backup.tar admin@10.0.0.7:/srv/`],
  ['psexec-p', (v) => `PsExec.exe \\\\web01 -u CORP\\Administrator -p ${v} cmd`],
  ['evil-winrm-p', (v) => `evil-winrm -i 10.10.11.5 -u svc_sql -p '${v}'`],
  ['racadm-p', (v) => `racadm -r 10.0.0.50 -u root -p ${v} getsysinfo`],
  ['rdesktop-p', (v) => `rdesktop -u Administrator -p ${v} 10.0.0.30`],
  ['hdbsql-p', (v) => `hdbsql -n hana01:30015 -u SYSTEM -p ${v} "SELECT 1 FROM DUMMY"`],
  ['vsql-w', (v) => `vsql -h vertica01 -U dbadmin -w ${v}`],
  ['mosquitto-P', (v) => `mosquitto_pub -h mqtt.example.org -u sensor01 -P ${v} -t t -m 1`],
  ['etcdctl-user', (v) => `etcdctl --user root:${v} get /registry --prefix`],
  ['unrar-p', (v) => `unrar x -p${v} archive.rar`],
  ['curl-proxy-user', (v) => `curl -x http://proxy:3128 --proxy-user jdoe:${v} https://ifconfig.me`],
  ['skopeo-src-creds', (v) => `skopeo copy --src-creds ci:${v} docker://registry.example.org/app:1 dir:/tmp/app`],
  ['crane-auth-login', (v) => `crane auth login registry.example.org -u ci -p ${v}`],
  ['snmpwalk-c', (v) => `snmpwalk -v2c -c ${v} 10.20.0.1 system`],
  ['db2-using', (v) => `db2 connect to SAMPLE user db2inst1 using ${v}`],
  ['jenkins-cli-auth', (v) => `java -jar jenkins-cli.jar -s https://ci.example.org/ -auth admin:${v} list-jobs`],
  ['impacket-quoted', (v) => `impacket-psexec corp.local/administrator:'${v}'@10.0.0.12`],
  ['nslcd-bindpw', (v) => `# /etc/nslcd.conf\nbinddn cn=reader,dc=example,dc=org\nbindpw ${v}`],
  ['sssd-authtok', (v) => `[domain/example.org]\nldap_default_bind_dn = cn=reader,dc=example,dc=org\nldap_default_authtok = ${v}`],
];
for (const [id, text] of cli) inText(`cli-${id}`, 'cli-password', pw(`eighth-${id}`), text(pw(`eighth-${id}`)));

inText('cli-echo-passwd-stdin', 'cli-password', pw('eighth-passwd-stdin'), `echo '${pw('eighth-passwd-stdin')}' | passwd --stdin deploy`);
const trailingEq = `${f('eighth-trail-eq', 11, ALNUM)}3=`;
inText('log-password-trailing-equals', 'log-password', trailingEq, `SSH in as deploy, password ${trailingEq}`);

// Wallets and second factors.
const bytes = Array.from({ length: 64 }, (_, i) => Number.parseInt(f(`eighth-sol-${i}`, 2, '0123456789abcdef'), 16));
const solana = `[${bytes.join(',')}]`;
inText('solana-keypair-bytes', 'private-key', solana, `$ cat ~/.config/solana/id.json\n${solana}`);
inText('solana-keypair-env', 'private-key', solana, `SOLANA_KEYPAIR=${solana}`);
const wif = `L${f('eighth-wif', 51, '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz')}`;
inText('bitcoin-wif-importprivkey', 'private-key', wif, `bitcoin-cli importprivkey ${wif} "cold" false`);
inText('bitcoin-wif-bare', 'private-key', wif, `wallet key: ${wif}`);
const totp = f('eighth-totp', 32, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567');
inText('totp-manual-entry', 'vendor-token', totp, `Can't scan the QR code? Enter this key manually: ${totp}`);
inText('totp-pyotp', 'vendor-token', totp, `totp = pyotp.TOTP("${totp}")\nprint(totp.now())`);
inText('totp-oathtool', 'cli-password', totp, `oathtool --totp -b ${totp}`);
const ethKey = `0x${f('eighth-eth', 64, '0123456789abcdef')}`;
inText('eth-key-env-name', 'private-key', ethKey, `DEPLOYER_KEY=${ethKey}`);
inText('eth-key-hardhat-accounts', 'private-key', ethKey, `networks: { mainnet: { url: RPC, accounts: ["${ethKey}"] } }`);
const words = ['explain', 'that', 'crew', 'swim', 'name', 'drift', 'coconut', 'foam', 'guide', 'taste', 'artist', 'squeeze'];
const phrase = Array.from({ length: 12 }, (_, i) => words[Number.parseInt(f(`eighth-bip-${i}`, 1, '0123456789ab'), 16)]).join(' ');
inText('seed-phrase-prose', 'private-key', phrase, `my seed phrase is ${phrase}`);
inText('seed-phrase-mnemonic-flag', 'private-key', phrase, `cast wallet import deployer --mnemonic "${phrase}"`);
inText('seed-phrase-keygen', 'private-key', phrase, `Save this seed phrase and your BIP39 passphrase to recover your new keypair:\n${phrase}\n====`);
const mask = f('eighth-mask', 24, ALNUM);
inText('gha-add-mask', 'log-password', mask, `echo "::add-mask::${mask}"`);
const vault = `s.${f('eighth-vault', 24, ALNUM)}`;
inText('vault-legacy-login', 'vendor-token', vault, `vault login ${vault}`);

// Tokens and URLs cut short.
const xoxe = `xoxe-1-${f('eighth-xoxe', 40, ALNUM)}_${f('eighth-xoxe-2', 3, ALNUM)}_${f('eighth-xoxe-3', 16, ALNUM)}`;
inText('slack-refresh-underscore', 'vendor-token', xoxe, `token ${xoxe}`);
const jdbcPw = `${pw('eighth-jdbc')}@${f('eighth-jdbc-2', 6, ALNUM)}`;
inText('jdbc-sqlserver-at', 'connection-string', jdbcPw, `jdbc:sqlserver://sql01:1433;databaseName=erp;user=app;password=${jdbcPw};encrypt=true`);

// A seed phrase under other words: a numbered list, `fromPhrase("…")`, Spanish, a JSON `words`
// member, "the 12 words from …", "the following 24 words:".
const numbered = phrase.split(' ').map((w, i) => `${i + 1}. ${w}`).join('\n');
inText('seed-phrase-numbered', 'private-key', numbered, `Backup words (write these down!):\n${numbered}`);
inText('seed-phrase-from-phrase', 'private-key', phrase, `const wallet = ethers.Wallet.fromPhrase("${phrase}");`);
inText('seed-phrase-es', 'private-key', phrase, `Mi frase semilla es: ${phrase}`);
inText('seed-phrase-json-words', 'private-key', phrase, `{"wallet":{"words":"${phrase}","path":"m/44'/60'/0'/0/0"}}`);
inText('seed-phrase-n-words', 'private-key', phrase, `ok here are the 12 words from metamask: ${phrase}. can you derive the address?`);

// Second-factor recovery codes and account keys.
const gh = Array.from({ length: 6 }, (_, i) => `${f(`eighth-gh-rc-${i}`, 5, '0123456789abcdef')}-${f(`eighth-gh-rc2-${i}`, 5, '0123456789abcdef')}`);
for (const [i, code] of gh.entries()) if (i < 2) inText(`recovery-codes-github-${i}`, 'log-password', code, `Your recovery codes:\n${gh.join('\n')}`);
const google = Array.from({ length: 4 }, (_, i) => `${f(`eighth-g-rc-${i}`, 4, '0123456789')} ${f(`eighth-g-rc2-${i}`, 4, '0123456789')}`);
inText('recovery-codes-google', 'log-password', google[0] as string, `Backup codes\n${google.map((c, i) => `${i + 1}. ${c}`).join('\n')}`);
const appCodes = Array.from({ length: 4 }, (_, i) => f(`eighth-app-rc-${i}`, 10, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'));
inText('recovery-codes-json', 'log-password', appCodes[1] as string, `{"recovery_codes":[${appCodes.map((c) => `"${c}"`).join(',')}]}`);
const discord = Array.from({ length: 6 }, (_, i) => f(`eighth-discord-rc-${i}`, 8, 'abcdefghijklmnopqrstuvwxyz0123456789'));
inText('recovery-codes-inline', 'log-password', discord[2] as string, `Discord backup codes: ${discord.join(', ')}`);
inText('seed-phrase-cast-new', 'private-key', phrase, `Successfully generated a new mnemonic.\nPhrase:\n${phrase}\n\nAccounts:\n- Account 0:`);
const onePassword = `A3-${f('eighth-1p-a', 6, 'ABCDEFGHJKLMNPQRSTVWXYZ23456789')}-${f('eighth-1p-b', 6, 'ABCDEFGHJKLMNPQRSTVWXYZ23456789')}-${f('eighth-1p-c', 5, 'ABCDEFGHJKLMNPQRSTVWXYZ23456789')}-${f('eighth-1p-d', 5, 'ABCDEFGHJKLMNPQRSTVWXYZ23456789')}-${f('eighth-1p-e', 5, 'ABCDEFGHJKLMNPQRSTVWXYZ23456789')}-${f('eighth-1p-f', 5, 'ABCDEFGHJKLMNPQRSTVWXYZ23456789')}`;
inText('onepassword-secret-key', 'vendor-token', onePassword, `Emergency Kit\nSecret Key: ${onePassword}`);
const cerebras = `csk-${f('eighth-csk', 48, 'abcdefghijklmnopqrstuvwxyz0123456789')}`;
inText('cerebras-key', 'vendor-token', cerebras, `CEREBRAS: ${cerebras}`);
const jfrog = `AKCp${f('eighth-akcp', 69, ALNUM)}`;
inText('jfrog-art-api', 'vendor-token', jfrog, `curl -H "X-JFrog-Art-Api: ${jfrog}" https://example.jfrog.io/artifactory/api/repositories`);
const fnKey = f('eighth-fn-key', 40, ALNUM);
inText('azure-functions-key-header', 'header', fnKey, `> POST /api/ingest HTTP/1.1\n> x-functions-key: ${fnKey}`);

// Admin tools' output and config lines.
const out: [string, (v: string) => string][] = [
  ['wpa-passphrase', (v) => `wpa_passphrase "HomeNet" '${v}' >> /etc/wpa_supplicant.conf`],
  ['netsh-key-content', (v) => `    Authentication         : WPA2-Personal\n    Key Content            : ${v}`],
  ['vault-unseal-key', (v) => `Unseal Key 1: ${v}x/Qm+Zr\nUnseal Key 2: ${v}y/Qn+Ab`],
  ['vault-operator-unseal', (v) => `vault operator unseal ${v}x/Qm+Zr`],
  ['crackmapexec-pwned', (v) => `SMB  10.0.0.5  445  DC01  [+] CORP\\Administrator:${v} (Pwn3d!)`],
  ['snmpd-rocommunity', (v) => `# /etc/snmp/snmpd.conf\nrocommunity ${v} 10.0.0.0/8`],
  ['sendmail-authinfo', (v) => `AuthInfo:smtp.gmail.com "U:root" "I:alerts@example.org" "P:${v}" "M:PLAIN"`],
  ['ps-cookie', (v) => `$c = New-Object System.Net.Cookie("JSESSIONID", "${v}", "/", "portal.example.org")`],
  ['selenium-cookie', (v) => `driver.add_cookie({"name": "session", "value": "${v}"})`],
];
for (const [id, text] of out) inText(`out-${id}`, 'log-password', pw(`eighth-${id}`), text(pw(`eighth-${id}`)));
// A name and its value in fields apart: CloudFormation's parameters, a 1Password item's fields,
// KeePass' XML export, a variable set by name on Windows.
const apart: [string, (v: string) => string][] = [
  ['cfn-parameters', (v) => `[{"ParameterKey":"DBPassword","ParameterValue":"${v}"},{"ParameterKey":"Env","ParameterValue":"prod"}]`],
  ['op-item-fields', (v) => `{"fields":[{"id":"username","type":"STRING","value":"admin"},{"id":"password","type":"CONCEALED","purpose":"PASSWORD","label":"password","value":"${v}"}]}`],
  ['keepass-xml', (v) => `<String><Key>Title</Key><Value>Prod DB</Value></String><String><Key>Password</Key><Value ProtectInMemory="True">${v}</Value></String>`],
  ['ps-set-environment-variable', (v) => `[Environment]::SetEnvironmentVariable("DB_PASSWORD", "${v}", "User")`],
  ['setx', (v) => `setx DB_PASS "${v}"`],
];
for (const [id, text] of apart) inText(`apart-${id}`, 'config-file', pw(`eighth-${id}`), text(pw(`eighth-${id}`)));
const mcpKey = f('eighth-mcp-args', 40, ALNUM);
inText('mcp-args-api-key', 'cli-password', mcpKey, `{"mcpServers":{"acme":{"command":"npx","args":["-y","@acme/mcp-server","--api-key","${mcpKey}"]}}}`);
inText('mcp-args-password', 'cli-password', pw('eighth-mcp-pw'), `{"command":"uvx","args":["mcp-server-postgres","--password","${pw('eighth-mcp-pw')}"]}`);
inText('redis-acl-user', 'config-file', pw('eighth-redis-acl'), `# users.acl\nuser app on >${pw('eighth-redis-acl')} ~app:* +@read +@write`);
inText('redis-acl-setuser', 'cli-password', pw('eighth-redis-setuser'), `127.0.0.1:6379> ACL SETUSER alice on >${pw('eighth-redis-setuser')} ~cached:* +get`);
inText('neo4j-set-password', 'sql-password', pw('eighth-neo4j'), `ALTER CURRENT USER SET PASSWORD FROM 'neo4j' TO '${pw('eighth-neo4j')}'`);
// A secret printed on the line after the command that makes or reads it, or after a tool's label.
const b64 = (seed: string, n: number) => `${f(seed, n, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/')}=`;
const after: [string, string, (v: string) => string][] = [
  ['elastic-reset', pw('eighth-elastic'), (v) => `$ bin/elasticsearch-reset-password -u elastic\nPassword for the [elastic] user successfully reset.\nNew value: ${v}`],
  ['jenkins-initial', f('eighth-jenkins', 32, '0123456789abcdef'), (v) => `Jenkins initial setup is required.\nPlease use the following password to proceed to installation:\n\n${v}\n\nThis may also be found at: /var/jenkins_home/secrets/initialAdminPassword`],
  ['argocd-initial', pw('eighth-argocd'), (v) => `$ argocd admin initial-password -n argocd\n${v}\n\n This password must be only used for first time login.`],
  ['python-token-urlsafe', f('eighth-urlsafe', 43, `${ALNUM}_-`), (v) => `$ python -c "import secrets; print(secrets.token_urlsafe(32))"\n${v}`],
  ['pwgen', pw('eighth-pwgen'), (v) => `$ pwgen -s 20 1\n${v}`],
  ['urandom-base64', b64('eighth-urandom', 43), (v) => `$ head -c 32 /dev/urandom | base64\n${v}`],
  ['wg-genkey-cat', b64('eighth-wg', 43), (v) => `$ wg genkey | tee privatekey | wg pubkey > publickey\n$ cat privatekey\n${v}`],
  ['kubectl-jsonpath', b64('eighth-kubectl', 27), (v) => `$ kubectl get secret db-creds -o jsonpath='{.data.password}'\n${v}`],
  ['security-find-password', pw('eighth-keychain'), (v) => `$ security find-generic-password -a deploy -s prod-db -w\n${v}`],
  ['pass-show', pw('eighth-pass-show'), (v) => `$ pass show servers/prod-db\n${v}\nuser: postgres`],
  ['secret-tool', pw('eighth-secret-tool'), (v) => `$ secret-tool lookup service smtp user alerts\n${v}`],
  ['vercel-env-add', f('eighth-vercel', 32, ALNUM), (v) => `$ vercel env add STRIPE_SECRET production\n? What's the value of STRIPE_SECRET? ${v}\n✅  Added Environment Variable STRIPE_SECRET`],
  ['wrangler-secret', f('eighth-wrangler', 32, ALNUM), (v) => `$ npx wrangler secret put API_KEY\n✔ Enter a secret value: … ${v}\n🌀 Creating the secret for the Worker "api"`],
  ['wireguard-psk', b64('eighth-psk', 43), (v) => `[Peer]\nPublicKey = Jv6jS2Uqc6dvmA+2zE2K9B+4sjqR3UfigR2fm4vR4eI=\nPresharedKey = ${v}\nAllowedIPs = 10.8.0.3/32`],
];
for (const [id, secret, text] of after) inText(`after-${id}`, 'config-file', secret, text(secret));
const ovpn = Array.from({ length: 4 }, (_, i) => f(`eighth-ovpn-${i}`, 32, '0123456789abcdef')).join('\n');
inText('openvpn-static-key', 'private-key', ovpn, `#\n# 2048 bit OpenVPN static key\n#\n-----BEGIN OpenVPN Static key V1-----\n${ovpn}\n-----END OpenVPN Static key V1-----`);
const consul = `${f('eighth-consul-a', 8, '0123456789abcdef')}-${f('eighth-consul-b', 4, '0123456789abcdef')}-4${f('eighth-consul-c', 3, '0123456789abcdef')}-a${f('eighth-consul-d', 3, '0123456789abcdef')}-${f('eighth-consul-e', 12, '0123456789abcdef')}`;
inText('consul-acl-bootstrap', 'config-file', consul, `AccessorID:       4d123dff-f460-73c3-02c4-8dd64d136e01\nSecretID:         ${consul}\nDescription:      Bootstrap Token (Global Management)`);
inText('nomad-acl-bootstrap', 'config-file', consul, `Accessor ID  = 5b7fd453-d3f7-6814-81dc-fcfe6daedea5\nSecret ID    = ${consul}\nName         = Bootstrap Token`);

export const EIGHTH_SIBLING_SHAPES: readonly SecretShape[] = shapes;
