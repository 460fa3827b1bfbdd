/**
 * Deterministic randomness for the seed: one generator per session, made from the run's seed
 * and the session's index, so a session is the same whatever order or concurrency it is
 * generated in, and a smaller run is a prefix of a bigger one.
 */
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';

type Generator = ReturnType<typeof xoroshiro128plus>;

const HEX = '0123456789abcdef';

export class Rng {
  readonly #g: Generator;

  constructor(seed: number, stream: number) {
    // Golden-ratio spread of the stream number: neighbouring sessions get unrelated states.
    this.#g = xoroshiro128plus((seed ^ Math.imul(stream + 1, 0x9e3779b1)) | 0);
  }

  /** An integer in [from, to], both included. */
  int(from: number, to: number): number {
    return uniformInt(this.#g, from, to);
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return uniformInt(this.#g, 0, 999_999) < p * 1_000_000;
  }

  pick<T>(xs: readonly T[]): T {
    return xs[uniformInt(this.#g, 0, xs.length - 1)] as T;
  }

  /** One of `choices`, each drawn with probability proportional to its weight. */
  weighted<T>(choices: readonly (readonly [T, number])[]): T {
    const total = choices.reduce((n, [, w]) => n + w, 0);
    let r = uniformInt(this.#g, 0, total - 1);
    for (const [v, w] of choices) {
      if (r < w) return v;
      r -= w;
    }
    return (choices[choices.length - 1] as readonly [T, number])[0];
  }

  /** `chars` lowercase hex digits. */
  hex(chars: number): string {
    let s = '';
    for (let i = 0; i < chars; i++) s += HEX[uniformInt(this.#g, 0, 15)];
    return s;
  }
}
