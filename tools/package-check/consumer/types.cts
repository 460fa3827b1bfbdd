// Type-checked (never run) as CommonJS under moduleResolution node16 and node10: the .d.cts files.
import { type FailureClass, Guardtrace } from '@guardtrace/sdk';
import { fileExists } from '@guardtrace/sdk/guards/files';
import { guardtraceSpanProcessor } from '@guardtrace/sdk/setup';
import { FAILURE_CLASSES } from '@guardtrace/semconv';

export const gt = new Guardtrace({ tracing: false });
export const guard = fileExists({ root: '.', paths: (a: { path: string }) => a.path });
export const processor = guardtraceSpanProcessor({ endpoint: 'http://x', apiKey: 'k' });
export const classes: readonly FailureClass[] = FAILURE_CLASSES;
// @ts-expect-error not a failure class: the types are real, not `any`
export const wrong: FailureClass = 'not_a_class';
