/**
 * A SQL template tag for node-postgres: `plainSql\`a = ${x} AND ${fragment}\`` gives `{ text, values }`
 * with `$1`-style parameters, fragments flattened into it (as Prisma.sql does, without Prisma).
 */
export class PlainSql {
  readonly strings: string[];
  readonly values: unknown[];

  constructor(strings: readonly string[], values: readonly unknown[]) {
    this.strings = [strings[0] ?? ''];
    this.values = [];
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      const next = strings[i + 1] ?? '';
      if (v instanceof PlainSql) {
        this.strings[this.strings.length - 1] += v.strings[0] ?? '';
        for (let j = 0; j < v.values.length; j++) {
          this.values.push(v.values[j]);
          this.strings.push(v.strings[j + 1] ?? '');
        }
        this.strings[this.strings.length - 1] += next;
      } else {
        this.values.push(v);
        this.strings.push(next);
      }
    }
  }

  /** The statement with `$1`, `$2` ... for its values. */
  get text(): string {
    return this.strings.reduce((acc, s, i) => `${acc}$${i}${s}`);
  }
}

export const plainSql = (strings: readonly string[], ...values: unknown[]): PlainSql => new PlainSql(strings, values);
