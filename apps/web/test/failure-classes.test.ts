import { FAILURE_CLASSES } from '@guardtrace/semconv';
import { describe, expect, it } from 'vitest';
import { classStyle, SUCCESS_COLOR } from '../src/lib/failure-classes.ts';

/** Hue in degrees (0-360) and saturation (0-1) of a #rrggbb colour. */
function hueOf(hex: string): { hue: number; saturation: number } {
  const [r, g, b] = [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16) / 255) as [number, number, number];
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const d = max - min;
  if (d === 0) return { hue: 0, saturation: 0 };
  const hue = max === r ? ((g - b) / d) % 6 : max === g ? (b - r) / d + 2 : (r - g) / d + 4;
  return { hue: (hue * 60 + 360) % 360, saturation: d / (1 - Math.abs(max + min - 1)) };
}

// Yellow-green (lime, ~85°) through green to teal (~175°): what a reader takes for "passed".
const GREENS = { from: 70, to: 180 };

describe('failure class colours', () => {
  it('the success colour is a green, and no failure class is drawn in one (a failed attempt never reads as passed)', () => {
    const success = hueOf(SUCCESS_COLOR);
    expect(success.hue).toBeGreaterThan(GREENS.from);
    expect(success.hue).toBeLessThan(GREENS.to);
    for (const cls of FAILURE_CLASSES) {
      const { hue, saturation } = hueOf(classStyle(cls).color);
      const green = saturation > 0.2 && hue >= GREENS.from && hue <= GREENS.to;
      expect(green, `${cls}: ${classStyle(cls).color} (hue ${hue.toFixed(0)}°)`).toBe(false);
    }
  });

  it('every class has a colour of its own', () => {
    const colors = FAILURE_CLASSES.map((c) => classStyle(c).color);
    expect(new Set(colors).size).toBe(colors.length);
  });
});
