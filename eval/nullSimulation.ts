import type { StatsOptions } from './aggregate.ts';
import { ALPHA, compareRuns, primaryComparisons } from './compare.ts';
import type { MetricInfo, PrimaryMetric, QuestionResult } from './report/types.ts';
import type { RandomSource } from './stats/index.ts';

/**
 * The null simulation of #13: on a real A/B report, swap A's and B's result for each question with
 * probability ½. The two simulated runs are then exchangeable question by question (a night on which
 * nothing changed), so every "worse" the gate finds is a false alarm. Pure: the caller gives the
 * random source, and gets counts back.
 */

/** One simulated null night: per question, A and B swapped or not (questions paired by id). */
export function swapNight(a: readonly QuestionResult[], b: readonly QuestionResult[], random: RandomSource): [QuestionResult[], QuestionResult[]] {
  const byId = new Map(b.map((q) => [q.id, q]));
  const pairs = a.filter((q) => byId.has(q.id)).map((q) => [q, byId.get(q.id)!] as const);
  const coins = random.uniforms(pairs.length);
  const x: QuestionResult[] = [];
  const y: QuestionResult[] = [];
  pairs.forEach(([qa, qb], i) => {
    const swap = coins[i]! < 0.5;
    x.push(swap ? qb : qa);
    y.push(swap ? qa : qb);
  });
  return [x, y];
}

/**
 * The gate before #13: any quality metric (not ms) in any compared group worse at raw p < 0.05,
 * no correction, no minimum effect. `comparisons`: how many tests it made.
 */
export function oldGate(a: QuestionResult[], b: QuestionResult[], metrics: MetricInfo[], stats: StatsOptions): { fails: boolean; comparisons: number } {
  const rows = compareRuns(a, b, metrics, stats).filter((c) => metrics.find((m) => m.name === c.metric)?.unit !== 'ms');
  const worse = rows.filter((c) => {
    const m = metrics.find((x) => x.name === c.metric)!;
    return c.p < ALPHA && c.diff !== 0 && (m.direction === 'higher' ? c.diff < 0 : c.diff > 0);
  });
  return { fails: worse.length > 0, comparisons: rows.length };
}

/** The gate of #13: primary metrics per dataset × language, Holm, minimum effect. */
export function newGate(a: QuestionResult[], b: QuestionResult[], metrics: MetricInfo[], primary: readonly PrimaryMetric[], stats: StatsOptions): { fails: boolean; comparisons: number } {
  const rows = primaryComparisons(a, b, metrics, primary, stats);
  return { fails: rows.some((c) => c.verdict === 'worse'), comparisons: rows.length };
}

export interface NullSimulation {
  nights: number;
  oldFailures: number;
  newFailures: number;
  oldComparisons: number;
  newComparisons: number;
}

/** `nights` null nights on one A/B pair of runs: how many each gate fails. */
export function simulateNullNights(
  a: readonly QuestionResult[],
  b: readonly QuestionResult[],
  metrics: MetricInfo[],
  primary: readonly PrimaryMetric[],
  stats: StatsOptions,
  nights: number,
  random: RandomSource,
): NullSimulation {
  const out: NullSimulation = { nights, oldFailures: 0, newFailures: 0, oldComparisons: 0, newComparisons: 0 };
  for (let night = 0; night < nights; night++) {
    const [x, y] = swapNight(a, b, random);
    const before = oldGate(x, y, metrics, stats);
    const after = newGate(x, y, metrics, primary, stats);
    if (before.fails) out.oldFailures++;
    if (after.fails) out.newFailures++;
    out.oldComparisons = before.comparisons;
    out.newComparisons = after.comparisons;
  }
  return out;
}
