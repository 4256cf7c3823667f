import { groupsOf, inGroup, type StatsOptions } from './aggregate.ts';
import type { Comparison, Group, MetricInfo, QuestionResult } from './report/types.ts';
import { pairedBootstrapDiffCI, pairedPermutationTest } from './stats/index.ts';
import { unpairedBootstrapDiffCI, unpairedPermutationTest } from './stats/unpaired.ts';

export const ALPHA = 0.05;

/** Groups compared: all, per language, and language × kind (enough to see where a change helps or hurts). */
function comparedGroups(questions: QuestionResult[]): Group[] {
  return groupsOf(questions).filter((g) => g.source === undefined && (g.kind === undefined || g.lang !== undefined));
}

const numbers = (xs: (number | null | undefined)[]) => xs.filter((v): v is number => typeof v === 'number' && Number.isFinite(v));

/** Share of the questions with an answer record that were answered (not "not found"); NaN without any. */
function answeredRate(questions: QuestionResult[]): number {
  const xs = numbers(questions.map((q) => q.metrics['answer.answered']));
  return xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : NaN;
}

/**
 * B against A, paired by question id over the questions where both have the metric: a two-sided
 * paired permutation test and a paired bootstrap CI of the mean difference. A difference is
 * significant at p < 0.05, in either direction; `better`/`worse` follow the metric's direction.
 * A metric defined only on a side's answers (`over: 'answers'`, e.g. faithfulness) is compared over
 * each side's own answers instead (unpaired test and CI), with each side's answered rate beside: over
 * the questions both answered, a side answering 8/8 with 0% faithfulness would look the same.
 */
export function compareRuns(a: QuestionResult[], b: QuestionResult[], metrics: MetricInfo[], stats: StatsOptions): Comparison[] {
  const byId = new Map(b.map((q) => [q.id, q]));
  const pairs = a.filter((q) => byId.has(q.id)).map((q) => [q, byId.get(q.id)!] as const);
  const out: Comparison[] = [];
  for (const group of comparedGroups(pairs.map(([q]) => q))) {
    const members = pairs.filter(([q]) => inGroup(q, group));
    for (const m of metrics) {
      if (m.over === 'answers') {
        const own = compareOwnAnswers(m, group, members, stats);
        if (own) out.push(own);
        continue;
      }
      const both = members
        .map(([x, y]) => [x.metrics[m.name], y.metrics[m.name]] as const)
        .filter((p): p is readonly [number, number] => typeof p[0] === 'number' && typeof p[1] === 'number');
      if (both.length === 0) continue;
      const xs = both.map((p) => p[0]);
      const ys = both.map((p) => p[1]);
      const seed = `${stats.seed}:${m.name}:${JSON.stringify(group)}`;
      const test = pairedPermutationTest(xs, ys, { iterations: stats.permutations, seed });
      const ci = pairedBootstrapDiffCI(xs, ys, { iterations: stats.bootstrap, seed });
      const significant = test.p < ALPHA && test.meanDiff !== 0;
      const gain = m.direction === 'higher' ? test.meanDiff > 0 : test.meanDiff < 0;
      out.push({
        metric: m.name,
        group,
        n: both.length,
        meanA: test.meanA,
        meanB: test.meanB,
        diff: test.meanDiff,
        low: ci.low,
        high: ci.high,
        p: test.p,
        verdict: significant ? (gain ? 'better' : 'worse') : 'same',
      });
    }
  }
  return out;
}

/** One answer metric over each side's own answers; null when neither side has a value in the group. */
function compareOwnAnswers(m: MetricInfo, group: Group, members: (readonly [QuestionResult, QuestionResult])[], stats: StatsOptions): Comparison | null {
  const xs = numbers(members.map(([x]) => x.metrics[m.name]));
  const ys = numbers(members.map(([, y]) => y.metrics[m.name]));
  if (xs.length + ys.length === 0) return null;
  const seed = `${stats.seed}:${m.name}:${JSON.stringify(group)}`;
  const test = unpairedPermutationTest(xs, ys, { iterations: stats.permutations, seed });
  const ci = unpairedBootstrapDiffCI(xs, ys, { iterations: stats.bootstrap, seed });
  const significant = test.p < ALPHA && test.meanDiff !== 0;
  const gain = m.direction === 'higher' ? test.meanDiff > 0 : test.meanDiff < 0;
  return {
    metric: m.name,
    group,
    n: xs.length + ys.length,
    own: { nA: xs.length, nB: ys.length, answeredA: answeredRate(members.map(([x]) => x)), answeredB: answeredRate(members.map(([, y]) => y)) },
    meanA: test.meanA,
    meanB: test.meanB,
    diff: test.meanDiff,
    low: ci.low,
    high: ci.high,
    p: test.p,
    verdict: significant ? (gain ? 'better' : 'worse') : 'same',
  };
}
