/**
 * Ordinary agent payloads: what tool arguments, results and feedback hold on a normal day.
 * None is a secret; a redactor that changes one has a false positive.
 */
import { createHash } from 'node:crypto';
import { b64, fake, grouped, ibanPrinted, LOWER_HEX, nonIbanNumber, nonLuhnNumber } from './fake.ts';
import {
  EIGHTH_NEAR_MISSES,
  FIFTH_NEAR_MISSES,
  FOURTH_NEAR_MISSES,
  NINTH_NEAR_MISSES,
  SEVENTH_NEAR_MISSES,
  SIXTH_NEAR_MISSES,
  TENTH_NEAR_MISSES,
} from './ordinary-held-out.ts';

export interface OrdinaryPayload {
  id: string;
  text: string;
}

const items: OrdinaryPayload[] = [];
const add = (family: string, texts: string[]) => {
  for (const [i, text] of texts.entries()) items.push({ id: `${family}-${i}`, text });
};
const sha1 = (s: string) => createHash('sha1').update(s).digest('hex');
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const uuid = (s: string) => {
  const h = sha256(s);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
};
const n = (count: number) => Array.from({ length: count }, (_, i) => i);

add('path', [
  'src/components/Button.tsx',
  '/home/agent/work/repo/packages/sdk/src/index.ts',
  'C:\\Users\\dev\\Documents\\report-2026.xlsx',
  './config/settings.yaml',
  '/var/log/nginx/access.log',
  'apps/web/app/sessions/[id]/page.tsx',
  '../fixtures/invoice-0042.pdf',
  '/etc/ssl/certs/ca-certificates.crt',
  'src/auth/password-reset.ts',
  'tests/secret-manager.test.ts',
  'docs/api/tokens.md',
  'lib/keys/public_key.pem',
]);
add('sql', [
  'SELECT id, email, created_at FROM users WHERE id = $1',
  "UPDATE orders SET status = 'shipped' WHERE order_id = 'ORD-2026-118842'",
  'INSERT INTO invoices (customer_id, amount_cents) VALUES ($1, $2) RETURNING id',
  'SELECT count(*) FROM sessions WHERE started_at > now() - interval \'1 day\'',
  'ALTER TABLE users ADD COLUMN password_hash text NOT NULL',
  'CREATE INDEX idx_tokens_user ON api_tokens (user_id)',
  'SELECT u.name, sum(o.total) FROM users u JOIN orders o ON o.user_id = u.id GROUP BY u.name',
  'DELETE FROM carts WHERE updated_at < $1',
  'SELECT * FROM products WHERE sku = ANY($1) ORDER BY price DESC LIMIT 20',
  'WITH recent AS (SELECT * FROM events LIMIT 100) SELECT type, count(*) FROM recent GROUP BY type',
]);
add('code', [
  'function add(a: number, b: number) { return a + b; }',
  'const password = await prompt("Password: ");',
  'if (!user.passwordHash) throw new Error("no password set");',
  'export const MAX_TOKENS = 4096;',
  'for i in range(10):\n    print(i)',
  'def check_password(plain, hashed):\n    return bcrypt.checkpw(plain, hashed)',
  'const token = req.headers.authorization?.split(" ")[1];',
  'import { createHash } from "node:crypto";',
  'fn main() { println!("hello"); }',
  'SELECT_KEY = "select"\nSECRET_NAME = os.environ["SECRET_NAME"]',
  'const apiKey = process.env.OPENAI_API_KEY;',
  '<input type="password" name="password" autocomplete="current-password" />',
]);
add('uuid', n(20).map((i) => uuid(`u${i}`)));
add('git-sha', n(20).map((i) => sha1(`commit ${i}`)));
add('sha256', n(10).map((i) => `sha256:${sha256(`blob ${i}`)}`));
add('short-sha', n(5).map((i) => `fixed in ${sha1(`s${i}`).slice(0, 7)}`));
add('iso-date', n(10).map((i) => `2026-${String((i % 12) + 1).padStart(2, '0')}-${String(i + 3).padStart(2, '0')}T1${i}:30:00.000Z`));
add('price', ['$19.99', '€1.234,56', 'USD 4,200.00', 'total: 1299.95', '£0.50', 'price 12 999 Kč', 'amount_cents: 250000', '0.0042 BTC', '¥3,980', 'subtotal=88.10']);
add('phone', ['+1 (415) 555-0134', '+44 20 7946 0958', '030 901820', '+49 170 1234567', '555-0199', '+33 1 42 68 53 00', '(212) 555-0175', '+81 3-1234-5678']);
add('order-id', n(10).map((i) => `ORD-2026-${String(100000 + i * 7919)}`));
add('long-number', [
  ...n(12).map((i) => nonLuhnNumber(`nl${i}`, '4', 16)),
  ...n(4).map((i) => grouped(nonLuhnNumber(`nls${i}`, '5', 16), ' ')),
  ...n(4).map((i) => grouped(nonLuhnNumber(`nld${i}`, '37', 15), '-')),
  '1764504000123456789',
  '9007199254740993',
  'tracking 1Z999AA10123456784',
  // the documented example IBAN with its check digits changed: not an account (issue 26)
  'IBAN DE88 3704 0044 0532 0130 00',
]);
add('text', [
  'Please reset your password using the link we sent.',
  'The password must be at least 12 characters long.',
  'Forgot password? Click here.',
  'The API token was rotated last week, no action needed.',
  'Secrets are stored in the vault, never in the repo.',
  'Use a password manager for every account.',
  'The user changed their password on Monday.',
  'Token usage for this session: 18,000 input, 900 output.',
  'Missing required field "content"',
  'File not found: componets/Button.tsx. Did you mean components/Button.tsx?',
  'The key to success is consistency.',
  'Basic information about the order is attached.',
  'Bearer bonds were common in the 19th century.',
  'The secret sauce is the retry policy.',
  'Authorization failed: the session expired, sign in again.',
  'Your password: keep it safe and never share it.',
]);
add('schema', [
  JSON.stringify({ type: 'object', properties: { username: { type: 'string' }, password: { type: 'string', minLength: 12 } }, required: ['username', 'password'] }),
  JSON.stringify({ name: 'login', parameters: { type: 'object', properties: { email: { type: 'string', format: 'email' }, password: { type: 'string', description: 'the user password' } } } }),
  JSON.stringify({ $schema: 'https://json-schema.org/draft/2020-12/schema', properties: { apiKey: { type: 'string', pattern: '^sk-' } } }),
  JSON.stringify({ fields: [{ name: 'token', type: 'string', secret: true }, { name: 'secret', type: 'boolean' }] }),
  JSON.stringify({ openapi: '3.1.0', components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } } }),
]);
add('tool-args', [
  JSON.stringify({ path: 'src/index.ts', content: 'export {};\n' }),
  JSON.stringify({ query: 'SELECT 1', database: 'analytics' }),
  JSON.stringify({ to: 'ops@example.com', subject: 'Weekly report', body: 'All green.' }),
  JSON.stringify({ invoice_id: 'INV-2026-0042', amount: 129.5, currency: 'EUR' }),
  JSON.stringify({ url: 'https://api.example.com/v1/items?page=2&limit=50', method: 'GET' }),
  JSON.stringify({ command: 'npm test -- --run', cwd: '/work/repo' }),
  JSON.stringify({ max_tokens: 4096, temperature: 0.2, model: 'gpt-4.1-mini' }),
  JSON.stringify({ input_tokens: 4000, output_tokens: 120, total_tokens: 4120 }),
  JSON.stringify({ password_policy: { min_length: 12, require_symbol: true } }),
  JSON.stringify({ next_page_token: null, items: [{ id: 1 }, { id: 2 }] }),
  JSON.stringify({ has_password: true, password_set_at: '2026-03-04T10:00:00Z' }),
  JSON.stringify({ key: 'user:42:profile', ttl: 3600 }),
  JSON.stringify({ idempotency_key: 'idk_7f3a9c', attempt: 2 }),
  JSON.stringify({ token_count: 5120, tokenizer: 'o200k_base' }),
  JSON.stringify({ secret_name: 'prod/db', rotation_days: 30 }),
  JSON.stringify({ args: JSON.stringify({ path: 'README.md', lines: [1, 40] }) }),
]);
add('url', [
  'https://example.com/a/b?c=d',
  'https://github.com/org/repo/pull/42',
  'http://localhost:3000/sessions/abc',
  'https://docs.example.com/auth/tokens#rotate',
  'postgres://db.example.com:5432/app',
  'https://user@git.example.com/org/repo.git',
  'https://api.example.com/v1/password-reset?email=a%40b.com',
  'mailto:support@example.com',
]);
add('log', [
  '2026-11-30T12:00:01.123Z INFO request completed status=200 duration_ms=42',
  'WARN retry 2/3 after 429 Too Many Requests',
  'ERROR connection refused: db.example.com:5432',
  'GET /api/users/42 200 12ms',
  'worker-3 processed 1,024 jobs in 9.8s',
  'level=info msg="token bucket refilled" tokens=400',
  'user logged in user_id=42 method=password',
  'cache miss key=session:7a1f ttl=300',
]);
add('hex-and-ids', [
  ...n(5).map((i) => sha256(`trace ${i}`).slice(0, 32)),
  ...n(5).map((i) => sha256(`span ${i}`).slice(0, 16)),
  ...n(5).map((i) => `sess_${fake(`sess${i}`, 12, LOWER_HEX)}`),
  ...n(5).map((i) => `req_${fake(`req${i}`, 24)}`),
]);
add('base64', [
  // A 1x1 PNG and GIF, and small encoded texts with nothing secret in them.
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7',
  `data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==`,
  b64('hello world, this is a note'),
  b64(JSON.stringify({ page: 2, sort: 'desc' })),
]);

add('iban-like', [
  // Codes of an IBAN's form whose check digits fail, product codes, and text about IBANs.
  ...n(4).map((i) => `ref ${nonIbanNumber(`ni${i}`, 'DE', '999999999999999999')}`),
  ...n(3).map((i) => `account ${ibanPrinted(nonIbanNumber(`nig${i}`, 'GB', 'AAAA99999999999999'))}`),
  'SKU AB12CDEF3456789XYZ in stock',
  'part number FR12 3456 7890 (rev B)',
  'Enter your IBAN (e.g. DE followed by 20 digits).',
  'serial GB00 0000 0000 0000 0000 00',
]);
add('sql-role', [
  'ALTER ROLE app SET search_path = app, public',
  'CREATE ROLE readonly NOLOGIN',
  "ALTER USER bob VALID UNTIL 'infinity'",
  'ALTER ROLE bob PASSWORD NULL',
  'GRANT SELECT ON ALL TABLES IN SCHEMA public TO readonly',
  'UPDATE users SET password_changed_at = now() WHERE id = $1',
  'SELECT rolname, rolpassword IS NOT NULL AS has_password FROM pg_authid',
  'CREATE USER app IDENTIFIED EXTERNALLY',
  "SELECT user, host FROM mysql.user WHERE plugin = 'caching_sha2_password'",
  'ALTER USER app IDENTIFIED BY ?',
]);
add('log-auth', [
  "login failed for user 'bob': wrong password",
  'password reset requested for alice@example.com',
  "user 'carol' changed her password at 09:12",
  'authentication with password disabled, use SSO',
  'level=warn msg="password expired" user=dave',
  "login failed for user 'erin' with password '***'",
  'Invalid password: expected at least 12 characters',
  "sshd: Failed password for invalid user admin from 203.0.113.9 port 52114",
]);
add('command-line', [
  'mysql -h db.internal -u root -p shop',
  'mysql -P 3306 -h db.internal app -e "SHOW TABLES"',
  'ssh -p 2222 deploy@10.0.0.12 uptime',
  'psql -h db -p 5432 -U app -c "select 1"',
  'redis-cli -p 6379 ping',
  'echo "$CR_PAT" | docker login ghcr.io -u ci-bot --password-stdin',
  './migrate --db-password-file /run/secrets/db --dry-run',
  'deploy --password $DEPLOY_PASSWORD --env staging',
  'curl -sS -u admin https://jenkins.example.com/api/json',
  'net user svc_backup * /add',
  'rsync --bypass-cache -a build/ web1:/srv/app/',
  'git log -p -3 -- src/auth/password.ts',
  'git config --global user.name "Dana Doe"',
  'npm config set registry https://registry.example.com/',
  'aws configure set region eu-west-1 --profile ci',
  'git config --global github.token $GH_TOKEN',
]);
add('config-file', [
  // biome-ignore lint/suspicious/noTemplateCurlyInString: Maven's placeholder, written as Maven writes it
  '<server><id>nexus</id><username>deploy</username><password>${env.NEXUS_PASSWORD}</password></server>',
  '<passwordPolicy>strict</passwordPolicy><tokenizer>o200k_base</tokenizer>',
  '<appSettings><add key="Environment" value="Production" /><add key="MaxRetries" value="3" /></appSettings>',
  '<div class="secret-banner">Keep your password safe</div>',
  'machine api.example.com login ops@example.com',
  '<password></password><token_count>512</token_count>',
]);
add('env-config', [
  'PASSWORD_MIN_LENGTH=12',
  'TOKEN_TTL_SECONDS=3600',
  'SECRET_KEY=$SECRET_KEY',
  'PUBLIC_KEY_BASE64_URL=https://keys.example.com/jwks.json',
  'SECRET_KEY_BASE_PATH=/run/secrets',
  'SECRET_NAME=prod/db',
]);

// What the rules added on 2026-12-06 (names apart from values, prose, short options, hashes, encodings) must leave.
add('near-secret', [
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell placeholder, as .env files write it
  'DB_PASSWORD=${DB_PASSWORD}',
  'auth: ok',
  'password: missing',
  "SyntaxError: Unexpected token '<', \"<!DOCTYPE \"... is not valid JSON",
  'token count: 1532 (prompt 1200, completion 332)',
  'llm --max-token 100 --model gpt-4o "hi"',
  'password is required',
  'the password must be at least 12 characters and contain a digit',
  'password reset link sent to dana@example.com',
  'secret manager arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db-AbCdEf',
  'api key rotation scheduled for 2026-12-06T10:00:00Z',
  '[{"name":"REGION","value":"eu-west-1"},{"name":"LOG_LEVEL","value":"debug"}]',
  'env:\n  - name: PORT\n    value: "8080"',
  'bypass: true',
  'compass heading 270 degrees',
  'spin: 3',
  'pin: true',
  'at 08:15:42:117:ready the worker started',
  'https://example.com/search?q=reset%20password%20help&page=2',
  '&lt;p&gt;Forgot your password? &lt;a href=&quot;/reset&quot;&gt;Reset it&lt;/a&gt;&lt;/p&gt;',
  "print('{\\'status\\': \\'ok\\', \\'count\\': 3}')",
  'docker login registry.example.com',
  'mongosh --port 27017 --quiet',
  'psql -h db.internal -p 5432 -U app shop',
  '7z x archive.7z -o/tmp/out',
  'ldapsearch -x -b dc=example,dc=com "(uid=dana)"',
  'echo hello | wc -l',
  'token 50256 is the end-of-text token',
  'AUTH is handled by the gateway',
  'cost: $1.25 for 1,000 tokens; $2.50 output',
  'the secret sauce is caching',
  'sp_helpuser is a system procedure',
  'CONNECT BY PRIOR employee_id = manager_id',
  "INSERT INTO users (email, name) VALUES ('dana@example.com', 'Dana')",
  'INSERT INTO users (email, password_hash) VALUES ($1, $2)',
  // Near the call, arrow, index and Kubernetes forms: code and manifests that hold no secret.
  '{"type":"object","required":["password","email"],"properties":{"password":{"type":"string"}}}',
  "define('WP_DEBUG', false);",
  "config.get('password_policy', 'strict')",
  'tokens.map(token => token.trim())',
  'const check = (password) => validate(password)',
  "if (rows[0]['password'] == null) return",
  "headers['Authorization'] = `Bearer ${token}`",
  "'password_min_length' => 12,",
  'apiVersion: v1\nkind: ConfigMap\ndata:\n  LOG_LEVEL: debug\n  REGION: eu-west-1\n',
  '{"data":{"items":[1,2,3]},"kind":"List"}',
  'kind: Secret\nmetadata:\n  name: app-tls\ntype: kubernetes.io/tls\n',
  // Code and placeholders near the third held-out set's kinds: values that are code (a call, an
  // index, a type, an f-string, a template literal), references and examples' placeholders.
  'pw = getpass.getpass("Password: ")',
  'token := os.Getenv("API_TOKEN")',
  'var secret = config["Jwt:Secret"];',
  'const [token, setToken] = useState("")',
  'password: z.string().min(8),',
  'def login(password: str, remember: bool = False):',
  'headers["Authorization"] = f"Bearer {access_token}"',
  'fetch(url, { headers: { Authorization: `Bearer ${token}` } })',
  'Authorization: Bearer <token>',
  'curl -H "Authorization: Bearer $API_TOKEN" https://api.example.com/v1/me',
  'GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}',
  'TOKEN=$(gh auth token)',
  'password=%(db_password)s',
  'Token: (none)',
  'api_key: !ENV OPENAI_API_KEY',
  'token = var.github_token',
  'API_KEY=your_api_key_here',
  'token: "REPLACE_ME"',
  'DB_PASSWORD=changeme',
  'OPENAI_API_KEY=sk-...',
  'ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx',
  'DATABASE_URL=postgres://user:password@localhost:5432/app',
  'auth = HTTPBasicAuth(user, password)',
  'server.login(username, password)',
  'jwt.sign(payload, process.env.JWT_SECRET)',
  'UPDATE users SET password_hash = $1 WHERE id = $2',
  "ssh-keygen -t ed25519 -N '' -f ~/.ssh/id_ed25519",
  'openssl passwd -6 -stdin < pw.txt',
  'zip -P "$ZIP_PASSWORD" backup.zip data/',
  'echo "$PASSWORD" | sudo -S true',
  'md-button-primary-large',
  're_compile_pattern_for_matching_lines',
  'Recovery codes: stored in the team vault',
  'const client = new OpenAI({ apiKey: process.env.OPENAI_API_KEY })',
  'client = httpx.Client(base_url="https://api.example.com/v1", timeout=30)',
  'es = Elasticsearch("http://localhost:9200"); es.search(index="orders_2026_12_06_archive")',
  '{"kty":"EC","crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}',
]);

// Near-misses of the held-out sets' kinds (ordinary-held-out.ts).
add('fourth', [...FOURTH_NEAR_MISSES]);
add('fifth', [...FIFTH_NEAR_MISSES]);
add('sixth', [...SIXTH_NEAR_MISSES]);
add('seventh', [...SEVENTH_NEAR_MISSES]);
add('eighth', [...EIGHTH_NEAR_MISSES]);
add('ninth', [...NINTH_NEAR_MISSES]);
add('tenth', [...TENTH_NEAR_MISSES]);

export const ORDINARY_PAYLOADS: readonly OrdinaryPayload[] = items;
