import type { StatsOptions } from './aggregate.ts';
import type { LatencyComparison, QuestionResult } from './report/types.ts';
import { pairedMedianDiffCI } from './stats/median.ts';

/**
 * B − A total latency paired by question over the questions both ran without error and timed, as a median
 * difference with a bootstrap CI; undefined when no question pairs. Judge time is left out: the
 * judge is the harness's, not the system's.
 */
export function compareLatency(
  a: QuestionResult[],
  b: QuestionResult[],
  stats: StatsOptions,
  how: Pick<LatencyComparison, 'order' | 'warmup'>,
): LatencyComparison | undefined {
  const byId = new Map(b.filter((q) => !q.error).map((q) => [q.id, q]));
  const xs: number[] = [];
  const ys: number[] = [];
  for (const q of a) {
    const other = byId.get(q.id);
    if (q.error || !other) continue;
    const [x, y] = [systemLatency(q), systemLatency(other)];
    // A report without a total (hand-made, or older) has nothing to pair on that question.
    if (!Number.isFinite(x) || !Number.isFinite(y)) continue;
    xs.push(x);
    ys.push(y);
  }
  if (xs.length === 0) return undefined;
  const ci = pairedMedianDiffCI(xs, ys, { iterations: stats.bootstrap, seed: `${stats.seed}:latency` });
  return { ...how, ...ci, relative: ci.medianDiff / ci.medianA, significant: ci.low > 0 || ci.high < 0 };
}

/** What `ask()` cost: the total minus the judge's share. */
export function systemLatency(q: QuestionResult): number {
  return (q.latency.total ?? NaN) - (q.latency.judge ?? 0);
}
