/**
 * Holm's step-down adjustment (Holm 1979): controls the family-wise error rate over m tests without
 * assuming independence. The i-th smallest p (1-based) is multiplied by m − i + 1, made monotone
 * (never below an earlier adjusted p) and capped at 1. Returned in the input's order; NaN stays NaN
 * and is left out of the family.
 */
export function holmAdjust(ps: readonly number[]): number[] {
  const order = ascendingFinite(ps);
  const m = order.length;
  const out = ps.map(() => Number.NaN);
  let running = 0;
  order.forEach(({ p, i }, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * p));
    out[i] = running;
  });
  return out;
}

/** The finite p-values with their input positions, smallest first (ties in input order): the family both adjustments rank. */
export function ascendingFinite(ps: readonly number[]): { p: number; i: number }[] {
  return ps
    .map((p, i) => ({ p, i }))
    .filter((x) => Number.isFinite(x.p))
    .sort((a, b) => a.p - b.p || a.i - b.i);
}
