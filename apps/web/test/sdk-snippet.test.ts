import fs from 'node:fs';
import { expect, it } from 'vitest';
import { sdkSnippet } from '../src/lib/sdk-snippet.ts';

it('the empty state shows README’s SDK snippet, with the advertised collector as endpoint', () => {
  const readme = fs.readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
  expect(readme).toContain(`\`\`\`ts\n${sdkSnippet('http://127.0.0.1:4318')}\n\`\`\``);
  const elsewhere = sdkSnippet('https://otel.example.com');
  expect(elsewhere).toContain("endpoint: 'https://otel.example.com'");
  expect(elsewhere).not.toContain('127.0.0.1');
});
