import type { LatencyComparison, LatencyGate } from './report/types.ts';

/** The nightly default: a slowdown must exceed 25% (with its whole CI) to fail the night. */
export const DEFAULT_LATENCY_TOLERANCE = 0.25;

/**
 * The nightly latency verdict. Baseline and current ran at different times, maybe on a differently
 * loaded machine, so the gate is deliberately conservative: it fails only when even the low end of
 * the 95% CI of the paired median slowdown is more than `tolerance` of the baseline's median, i.e.
 * the run is confidently slower by more than the tolerance, not merely slower. A tolerance of 0
 * turns the gate off (reported, never failing); no paired question passes with a note.
 */
export function latencyGate(c: LatencyComparison | undefined, tolerance: number): LatencyGate {
  if (!(tolerance >= 0)) throw new RangeError(`eval.latencyTolerance must be a share ≥ 0 (0.25 = 25%), got ${tolerance}`);
  if (tolerance === 0) return { status: 'off', tolerance, reason: 'eval.latencyTolerance is 0: latency is reported, not gated' };
  if (!c || c.n === 0 || !(c.medianA > 0)) return { status: 'pass', tolerance, reason: 'no question ran without error in both runs' };
  const lowShare = c.low / c.medianA;
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  return lowShare > tolerance
    ? { status: 'fail', tolerance, reason: `median latency slower by ${pct(c.relative)} (95% CI from +${pct(lowShare)}), beyond the tolerance of ${pct(tolerance)}` }
    : { status: 'pass', tolerance, reason: `median latency ${c.relative >= 0 ? '+' : ''}${pct(c.relative)} (95% CI low end ${pct(lowShare)}); fails only past +${pct(tolerance)} with the whole CI` };
}
