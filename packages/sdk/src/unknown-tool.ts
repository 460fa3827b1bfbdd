import { distance } from 'fastest-levenshtein';

/** Valid tool names, closest first by edit distance (ties alphabetical). */
export function rankNames(name: string, valid: readonly string[], limit = 10): string[] {
  const lower = name.toLowerCase();
  return [...valid]
    .map((v) => ({ v, d: distance(lower, v.toLowerCase()) }))
    .sort((a, b) => a.d - b.d || a.v.localeCompare(b.v))
    .slice(0, limit)
    .map((x) => x.v);
}

export function unknownToolFeedback(name: string, ranked: readonly string[]): string {
  return [
    `TOOL CALL REJECTED: Unknown tool "${name}".`,
    'Valid tools (closest first):',
    ...ranked.map((n) => `- ${n}`),
    '',
    'Call one of the valid tools above.',
  ].join('\n');
}
