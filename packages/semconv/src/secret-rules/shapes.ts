/**
 * Secret shapes: secrets found by their form anywhere in a string, whatever name they sit
 * under. Each rule has a name (the collector writes `[REDACTED:<name>]`), a global regex and
 * an optional second look at the match. Order matters: a rule sees what earlier ones left
 * (the vendor shapes before `Token <value>`, an AWS secret beside its key id before the key id).
 */
import { CODE_RULES } from './code-rules.ts';
import { COMMAND_LINE_RULES } from './command-line-rules.ts';
import { CONFIG_RULES } from './config-rules.ts';
import type { ShapeRule } from './rule-kit.ts';
import { SERVER_RULES } from './server-rules.ts';
import { TEXT_RULES } from './text-rules.ts';
import { TOKEN_RULES } from './token-rules.ts';

export { type ShapeRule, START_CONDITIONS } from './rule-kit.ts';

export const SHAPE_RULES: readonly ShapeRule[] = [...TOKEN_RULES, ...TEXT_RULES, ...SERVER_RULES, ...COMMAND_LINE_RULES, ...CONFIG_RULES, ...CODE_RULES];
