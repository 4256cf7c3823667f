import { ascendingFinite } from './holm.ts';

/**
 * Benjamini–Hochberg step-up adjustment (Benjamini & Hochberg 1995): controls the false discovery
 * rate (the expected share of false findings among those declared) over m tests that are
 * independent or positively dependent. The i-th smallest p (1-based) is multiplied by m / i, made
 * monotone from the largest down (never above a later adjusted p) and capped at 1. Returned in the
 * input's order; NaN stays NaN and is left out of the family. Meant for exploratory tables; a gate
 * that must not fail by chance uses Holm (family-wise error).
 */
export function bhAdjust(ps: readonly number[]): number[] {
  const order = ascendingFinite(ps);
  const m = order.length;
  const out = ps.map(() => Number.NaN);
  let running = 1;
  for (let rank = m - 1; rank >= 0; rank--) {
    const { p, i } = order[rank]!;
    running = Math.min(running, (m / (rank + 1)) * p);
    out[i] = running;
  }
  return out;
}
