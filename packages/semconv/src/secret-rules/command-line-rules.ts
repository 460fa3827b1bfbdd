/**
 * Secrets on command lines, what an agent's shell tool runs: password and token options, the
 * clients that take one after a short option, logins with a token argument, piped passwords.
 */
import { isPlaceholder } from './names.ts';
import { AT, AT_OPTION, BARE, CLI_VALUE, notPlaceholder, re, SAME_COMMAND, type ShapeRule } from './rule-kit.ts';

/** A word that follows an option named in prose, not its value. */
const PROSE_AFTER_OPTION = /^(?:via|is|are|was|flag|option|argument|parameter|and|or|to|the|with|for|in|on|when|instead|will|can|must|should|may|because|if|as|from)$/i;

export const COMMAND_LINE_RULES: readonly ShapeRule[] = [
  // Command lines, what an agent's shell tool runs: `--password <v>` / `--db-pass=<v>` (not
  // `--password-stdin` or `--password-file`), keytool's `-storepass <v>`, `sshpass -p <v>`,
  // `az login … -p <v>`, `redis-cli … -a <v>`, the MySQL clients' attached `-p<v>` (`-p` alone prompts).
  {
    name: 'cli_password',
    pattern: re(String.raw`${AT_OPTION}(?:--(?:[A-Za-z]+-)*pass(?:word|wd|phrase)?|-(?:src|dest)?(?:store|key)pass)(?:\s+|=|\\?["']\s*,\s*(?=\\?["']))${CLI_VALUE}`),
    // Not prose about the option (docker's "Using --password via the CLI is insecure").
    check: (match, secret) => secret !== undefined && !isPlaceholder(secret) && !(/\s/.test(match) && PROSE_AFTER_OPTION.test(secret)),
    gate: ['pass'],
  },
  // `--token <v>`, `--api-key=<v>`, `--client-secret <v>` (not `--token-file`, not a number: `--max-token 100`).
  {
    name: 'cli_password',
    pattern: re(String.raw`${AT_OPTION}--(?:[A-Za-z0-9]+-)*(?:token|api-?key|secret|secret-key|access-key|auth|account-key|storage-key|sas-token)(?:[ \t]+|=|\\?["']\s*,\s*(?=\\?["']))${CLI_VALUE}`),
    check: (_, secret) => secret !== undefined && !isPlaceholder(secret) && !/^\d+$/.test(secret),
    gate: ['--'],
  },
  {
    name: 'cli_password',
    pattern: re(
      String.raw`${AT}(?:(?:(?:docker|podman|nerdctl|buildah|skopeo|oras)\s+login|helm\s+registry\s+login|mongo(?:sh|dump|restore|import|export)?)\b${SAME_COMMAND}\s-p|(?:sqlcmd|ipmitool)\b${SAME_COMMAND}\s-P|ldap(?:search|add|modify|delete|passwd|whoami|compare|modrdn)\b${SAME_COMMAND}\s-w|7za?\b${SAME_COMMAND}\s-p)(?:\s+|=)?${CLI_VALUE}`,
    ),
    check: notPlaceholder,
    gate: ['docker', 'podman', 'nerdctl', 'buildah', 'skopeo', 'oras', 'helm', 'mongo', 'sqlcmd', 'ipmitool', 'ldap', '7z'],
  },
  {
    name: 'cli_password',
    // `-b <file> <user> <password>`; with `-n` (print, no file), `<user> <password>`.
    pattern: re(String.raw`${AT}htpasswd\s+(?:-\w+\s+)*(?:-\w*(?:n\w*b|b\w*n)\w*\s+(?:-\w+\s+)*\S+|-\w*b\w*\s+(?:-\w+\s+)*\S+\s+\S+)\s+${CLI_VALUE}`),
    check: notPlaceholder,
    gate: ['htpasswd'],
  },
  {
    name: 'cli_password',
    // (Also piped into a secret store: `| gh secret set X`, `| gcloud secrets versions add …`, `| docker secret create`.)
    pattern: re(
      String.raw`${AT}(?:echo|printf)\s+(?:-\w+\s+)*${CLI_VALUE}\\?['"]?\s*\|(?=[^\n|;&]{0,200}--password-stdin|\s*(?:gh\s+secret\s+set|gcloud\s+secrets\s+(?:versions\s+add|create)|docker\s+secret\s+create|wrangler\s+secret\s+put)\b)`,
    ),
    check: notPlaceholder,
    gate: ['echo', 'printf'],
  },
  {
    name: 'cli_password',
    pattern: re(
      String.raw`${AT}(?:(?:sshpass\s+-p|az\s+login\b${SAME_COMMAND}\s-p|redis-cli\b${SAME_COMMAND}\s-a)(?:\s+|=)` +
        String.raw`|(?:mysql(?:dump|admin|import|show|check|binlog|sh)?|mariadb(?:-dump|-admin)?)\b${SAME_COMMAND}\s-p` +
        // Cassandra's and Neo4j's shells, Snowflake's, and NuGet feeds (`dotnet nuget add source … -p`, `nuget sources add … -Password`).
        String.raw`|(?:cqlsh|cypher-shell|snowsql)\b${SAME_COMMAND}\s-p(?:\s+|=)|nuget\b${SAME_COMMAND}\s(?:-p|-Password)\s+)${CLI_VALUE}`,
    ),
    check: notPlaceholder,
    gate: ['sshpass', 'login', 'redis-cli', 'mysql', 'mariadb', 'cqlsh', 'cypher-shell', 'snowsql', 'nuget'],
  },
  // Credentials given as arguments: `poetry config http-basic.<repo> <user> <password>`,
  // `rabbitmqctl add_user <user> <password>` and `change_password`.
  {
    name: 'cli_password',
    pattern: re(String.raw`${AT}(?:poetry\s+config\s+http-basic\.\S+|rabbitmqctl\s+(?:add_user|change_password))\s+(?!-)\S+\s+${CLI_VALUE}`),
    check: notPlaceholder,
    gate: ['http-basic.', 'rabbitmqctl'],
  },
  // `curl -u user:<v>` / `--user user:<v>` (without the colon, curl asks for it).
  {
    name: 'cli_password',
    pattern: re(String.raw`${AT}curl\b${SAME_COMMAND}\s(?:-u|--user)\s*(?:\\?['"])?[^\s:'"\\]+:(?<secret>${BARE}+)`),
    check: notPlaceholder,
    gate: ['curl'],
  },
  // Windows: `net user <name> <v> /add` (`*` asks for it).
  {
    name: 'cli_password',
    pattern: re(String.raw`${AT}(?:net|NET)\s+(?:user|USER)\s+\S+\s+(?<secret>(?![*/])${BARE}+)\s+\/(?:add|ADD|domain|DOMAIN)\b`),
    check: notPlaceholder,
    gate: ['/add', '/ADD', '/domain', '/DOMAIN'],
  },
  // Command lines that take a credential without a password option: a login with a token as its
  // argument (`cargo login <t>`, `wandb login <t>`, `ngrok config add-authtoken <t>`, `snyk auth <t>`),
  // `zip -P`, `ssh-keygen -N`, OpenSSL's `-k`, `-pass pass:` and `passwd`, `smbclient -U user%pw`,
  // `net use … /user:X pw`, FreeRDP's `/p:`, `lftp -u user,pw`, PowerShell's `ConvertTo-SecureString`,
  // and a password piped to `sudo -S`, to `chpasswd`, or read from `<(echo …)`.
  {
    name: 'cli_password',
    pattern: re(String.raw`${AT}(?:(?:cargo|wandb|npm)\s+login|ngrok\s+(?:config\s+)?(?:add-)?authtoken|snyk\s+auth)\s+(?<secret>(?!-)${BARE}{12,})`),
    check: notPlaceholder,
    gate: ['login', 'authtoken', 'snyk'],
  },
  {
    name: 'cli_password',
    pattern: re(
      String.raw`${AT}(?:zip\b${SAME_COMMAND}\s-P\s*|ssh-keygen\b${SAME_COMMAND}\s-N\s+|openssl\b${SAME_COMMAND}(?:\s-k\s+|\s-pass(?:in|out)?\s+pass:|\spasswd(?:\s+-\w+)*\s+))${CLI_VALUE}`,
    ),
    // Not a redirection (`openssl passwd -6 -stdin < pw.txt`).
    check: (_, secret) => secret !== undefined && secret.length >= 4 && !isPlaceholder(secret),
    gate: ['zip', 'ssh-keygen', 'openssl'],
  },
  // More clients' password and key options: `unzip -P`, NuGet's `push -k`, Vercel's `-t`, Couchbase's
  // `couchbase-cli … -p`, macOS' `security add-generic-password … -w`, HTTPie's `-a user:…`, and a
  // secret store's value (`aws ssm put-parameter … --value`, `aws secretsmanager … --secret-string`,
  // `az keyvault secret set … --value`).
  {
    name: 'cli_password',
    pattern: re(
      String.raw`${AT}(?:unzip\b${SAME_COMMAND}\s-P\s*|nuget\s+push\b${SAME_COMMAND}\s-k\s+|vercel\b${SAME_COMMAND}\s-t\s+|couchbase-cli\b${SAME_COMMAND}\s-p\s+|security\s+add-(?:generic|internet)-password\b${SAME_COMMAND}\s-w\s+|https?\s${SAME_COMMAND}(?:-a|--auth)[ =][^\s:'"]{1,100}:|(?:ssm\s+put-parameter|secretsmanager\s+(?:create-secret|put-secret-value|update-secret)|keyvault\s+secret\s+set)\b${SAME_COMMAND}\s--(?:value|secret-string)[ =])${CLI_VALUE}`,
    ),
    check: (_, secret) => secret !== undefined && secret.length >= 4 && !isPlaceholder(secret) && !secret.startsWith('file://'),
    gate: ['unzip', 'nuget', 'vercel', 'couchbase-cli', 'security add-', 'http', 'ssm', 'secretsmanager', 'keyvault'],
  },
  // FreeRDP's `/p:<password>` (attached: a leading `-` is the password's).
  {
    name: 'cli_password',
    pattern: re(
      String.raw`${AT}(?:xfreerdp|wlfreerdp|sdl-freerdp)\b${SAME_COMMAND}\s\/p(?:assword)?:(?:\\?['"])?(?<secret>(?<=')[^'\n]+(?=')|(?<=")[^"\n\\]+(?=\\?")|(?<!['"])${BARE}+)`,
    ),
    check: (_, secret) => secret !== undefined && secret.length >= 4 && !isPlaceholder(secret),
    gate: ['freerdp'],
  },
  // GitHub's `gh secret set <NAME> --body <value>` (also `-b`).
  {
    name: 'cli_password',
    pattern: re(String.raw`${AT}gh\s+secret\s+set\s+\S+${SAME_COMMAND}\s(?:--body|-b)(?:\s+|=)${CLI_VALUE}`),
    check: notPlaceholder,
    gate: ['gh secret'],
  },
  // A value written into a file named for a secret: `echo '<v>' > ~/.vault_pass`, `printf "%s" "<v>" > …/api_token`.
  {
    name: 'cli_password',
    pattern: re(
      String.raw`${AT}(?:echo(?:\s+-[ne]+)?|printf(?:\s+\\?['"]%s(?:\\n)?\\?['"])?)\s+${CLI_VALUE}(?:\\?['"])?\s*>>?\s*\S*(?:pass|secret|token|api[_-]?key|credential|\.key\b)`,
      'gi',
    ),
    check: notPlaceholder,
    gate: ['echo', 'printf'],
  },
  {
    name: 'cli_password',
    pattern: re(
      String.raw`${AT}(?:smbclient\b${SAME_COMMAND}\s-U\s*\\?['"]?[^%'"\s]+%|lftp\b${SAME_COMMAND}\s-u\s+\\?['"]?[^,\s'"]+,|net\s+use\b${SAME_COMMAND}\/user:\S+\s+(?![*/]))(?<secret>${BARE}+)`,
      'gi',
    ),
    check: notPlaceholder,
    gate: ['smbclient', 'lftp', 'net use'],
  },
  {
    name: 'cli_password',
    pattern: re(String.raw`ConvertTo-SecureString\s+(?:-String\s+)?\\?(?<q>['"])(?<secret>[^'"\n]+)\\?\k<q>`, 'gi'),
    check: notPlaceholder,
    gate: ['convertto-securestring'],
  },
  {
    name: 'cli_password',
    pattern: re(
      String.raw`${AT}echo\s+(?:-n\s+)?\\?(?<q>['"]?)(?:[^'"\s:|\\[]+:)?(?<secret>[^'"\s|\\[]+)\\?\k<q>\s*\|\s*(?:sudo\s+(?:-\w+\s+)*-S\b|(?:sudo\s+)?chpasswd\b|(?:sudo\s+)?passwd\s+--stdin\b|kinit\b|az\s+devops\s+login\b)`,
    ),
    check: notPlaceholder,
    gate: ['echo'],
  },
  // Remote-admin, database and broker clients' password options (the eighth held-out set): PuTTY's
  // `-pw`, PsExec's, evil-winrm's, racadm's, rdesktop's, SAP HANA's `hdbsql` and `crane auth login`'s
  // `-p`, Vertica's `vsql -w`, Mosquitto's `-P`, SNMP's community `-c` and v3 `-A`/`-X`, `unrar -p<v>`.
  {
    name: 'cli_password',
    pattern: re(
      String.raw`${AT}(?:(?:plink|pscp|psftp)(?:\.exe)?\b${SAME_COMMAND}\s-pw|(?:[Pp]s[Ee]xec(?:64)?(?:\.exe)?|evil-winrm|racadm|rdesktop|hdbsql|crane\s+auth\s+login)\b${SAME_COMMAND}\s-p|vsql\b${SAME_COMMAND}\s-w|mosquitto_(?:pub|sub|rr)\b${SAME_COMMAND}\s-P|snmp(?:walk|bulkwalk|get|getnext|bulkget|set|table|trap|delta|df|netstat|status)\b${SAME_COMMAND}\s-[cAX])[ \t]+${CLI_VALUE}`,
    ),
    // (Not a variable the shell expands: `-pw %PLINK_PW%`, `-p $PW`; nor SNMP's well-known `public`.)
    check: (_, secret) => secret !== undefined && !isPlaceholder(secret) && !/^(?:%\w+%|\$)/.test(secret) && !/^(?:public|private)$/.test(secret),
    gate: ['plink', 'pscp', 'psftp', 'psexec', 'evil-winrm', 'racadm', 'rdesktop', 'hdbsql', 'crane', 'vsql', 'mosquitto_', 'snmp'],
  },
  {
    name: 'cli_password',
    pattern: re(String.raw`${AT}unrar\b${SAME_COMMAND}\s-p(?<secret>(?![-\s])${BARE}+)`),
    check: notPlaceholder,
    gate: ['unrar'],
  },
  // `user:password` after an option: etcd's `--user`, curl's `--proxy-user`/`-U`, skopeo's
  // `--creds`/`--src-creds`/`--dest-creds`, Jenkins CLI's `-auth`; DB2's `connect … using <v>`;
  // Impacket's `domain/user:'<v>'@host`.
  {
    name: 'cli_password',
    pattern: re(
      String.raw`${AT}(?:(?:etcdctl|curl|skopeo|java|jenkins-cli)\b${SAME_COMMAND}\s(?:--user|--proxy-user|-U|--(?:src-|dest-)?creds|-auth)(?:[ \t]+|=)(?:\\?['"])?[^\s:'"\\@]+:|db2\s+connect\b${SAME_COMMAND}\susing[ \t]+)${CLI_VALUE}`,
    ),
    check: (_, secret) => secret !== undefined && !isPlaceholder(secret) && !/^(?:%\w+%|\$)/.test(secret),
    gate: ['etcdctl', 'curl', 'skopeo', '-auth', 'db2'],
  },
  {
    name: 'cli_password',
    pattern: re(String.raw`${AT}(?:impacket-\w+|\w+\.py)\s+(?:-\S+\s+)*[\w.-]+\/[^\s:/]+:(?:\\?(?<q>['"]))?(?<secret>[^'"\s@]+)\\?\k<q>@`),
    check: notPlaceholder,
    gate: ['impacket', '.py'],
  },
  // MinIO's client: `mc alias set <name> <url> <access key> <secret key>` (and the older `mc config host add`).
  {
    name: 'cli_password',
    pattern: re(String.raw`${AT}mc\s+(?:alias\s+set|config\s+host\s+add)\s+\S+\s+\S+\s+\S+\s+${CLI_VALUE}`),
    check: notPlaceholder,
    gate: ['mc alias', 'mc config'],
  },
  {
    name: 'cli_password',
    pattern: re(String.raw`--password-file=<\(\s*echo\s+(?<secret>[^)\s]+)`),
    check: notPlaceholder,
    gate: ['--password-file=<('],
  },
];
