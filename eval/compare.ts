import { groupsOf, inGroup, type StatsOptions } from './aggregate.ts';
import type { Comparison, Group, MetricInfo, PrimaryMetric, QuestionResult } from './report/types.ts';
import { bhAdjust, holmAdjust, pairedDiffInterval, pairedPermutationTest } from './stats/index.ts';
import { unpairedBootstrapDiffCI, unpairedPermutationTest } from './stats/unpaired.ts';

export const ALPHA = 0.05;

/**
 * Smallest difference, in percentage points of a share metric, that can be called better or worse
 * (`eval.minEffect`). 2 pp is below one question in every dataset × language cell we have (1/76 =
 * 1.3 pp is the smallest possible step, 1/46 = 2.2 pp in the largest primary cell), so it hides no
 * real one-question change today; it stops a large dataset, where a 0.5 pp difference can reach
 * p < 0.05, from failing the night on a change nobody would act on.
 */
export const DEFAULT_MIN_EFFECT = 2;

/** The primary metrics when the config declares none: file ranking for code, doc ranking for docs. */
export const DEFAULT_PRIMARY: PrimaryMetric[] = [{ metric: 'file.recall@5' }, { metric: 'file.acc@1' }, { metric: 'doc.recall@10' }];

type Pair = readonly [QuestionResult, QuestionResult];

/** Groups compared: all, per language, and language × kind (enough to see where a change helps or hurts). */
function comparedGroups(questions: QuestionResult[]): Group[] {
  return groupsOf(questions).filter((g) => g.source === undefined && (g.kind === undefined || g.lang !== undefined));
}

function pairsOf(a: QuestionResult[], b: QuestionResult[]): Pair[] {
  const byId = new Map(b.map((q) => [q.id, q]));
  return a.filter((q) => byId.has(q.id)).map((q) => [q, byId.get(q.id)!] as const);
}

function inCell(q: QuestionResult, g: Group): boolean {
  return inGroup(q, g) && (g.dataset === undefined || q.dataset === g.dataset);
}

const numbers = (xs: (number | null | undefined)[]) => xs.filter((v): v is number => typeof v === 'number' && Number.isFinite(v));

/** Share of the questions with an answer record that were answered (not "not found"); NaN without any. */
function answeredRate(questions: QuestionResult[]): number {
  const xs = numbers(questions.map((q) => q.metrics['answer.answered']));
  return xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : NaN;
}

type Unadjusted = Omit<Comparison, 'pAdjusted' | 'adjustment' | 'verdict'>;

/**
 * A metric defined only on a side's answers (`over: 'answers'`, e.g. faithfulness), compared over
 * each side's own answers (two-sample permutation test, bootstrap CI), with each side's answered rate
 * beside: over the questions both answered, a side answering 8/8 with 0% faithfulness would look the same.
 */
function compareOwnAnswers(pairs: readonly Pair[], m: MetricInfo, group: Group, stats: StatsOptions): Unadjusted | undefined {
  const members = pairs.filter(([q]) => inCell(q, group));
  const xs = numbers(members.map(([x]) => x.metrics[m.name]));
  const ys = numbers(members.map(([, y]) => y.metrics[m.name]));
  if (xs.length + ys.length === 0) return undefined;
  const seed = `${stats.seed}:${m.name}:${JSON.stringify(group)}`;
  const test = unpairedPermutationTest(xs, ys, { iterations: stats.permutations, seed });
  const ci = unpairedBootstrapDiffCI(xs, ys, { iterations: stats.bootstrap, seed });
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
    interval: 'bootstrap',
    p: test.p,
  };
}

/** One test, before any adjustment: paired permutation p, and a score interval for 0/1 metrics (bootstrap otherwise); metrics of answers over each side's own. */
function compareOne(pairs: readonly Pair[], m: MetricInfo, group: Group, stats: StatsOptions): Unadjusted | undefined {
  if (m.over === 'answers') return compareOwnAnswers(pairs, m, group, stats);
  const both = pairs
    .filter(([q]) => inCell(q, group))
    .map(([x, y]) => [x.metrics[m.name], y.metrics[m.name]] as const)
    .filter((p): p is readonly [number, number] => typeof p[0] === 'number' && typeof p[1] === 'number');
  if (both.length === 0) return undefined;
  const xs = both.map((p) => p[0]);
  const ys = both.map((p) => p[1]);
  const seed = `${stats.seed}:${m.name}:${JSON.stringify(group)}`;
  const test = pairedPermutationTest(xs, ys, { iterations: stats.permutations, seed });
  const ci = pairedDiffInterval(xs, ys, { iterations: stats.bootstrap, seed });
  return { metric: m.name, group, n: both.length, meanA: test.meanA, meanB: test.meanB, diff: test.meanDiff, low: ci.low, high: ci.high, interval: ci.method, p: test.p };
}

/**
 * Better or worse only when the adjusted p is below 0.05 AND the difference is at least the
 * minimum effect (points, for share metrics; any non-zero difference for ms and counts).
 */
export function verdictOf(diff: number, pAdjusted: number, m: MetricInfo, minEffect: number = DEFAULT_MIN_EFFECT): Comparison['verdict'] {
  const large = m.unit === 'share' ? Math.abs(diff) >= minEffect / 100 - 1e-12 : diff !== 0;
  if (!(pAdjusted < ALPHA) || !large || diff === 0) return 'same';
  return (m.direction === 'higher' ? diff > 0 : diff < 0) ? 'better' : 'worse';
}

function adjust(rows: Unadjusted[], metrics: MetricInfo[], adjustment: 'holm' | 'bh', minEffect: number): Comparison[] {
  const adjusted = (adjustment === 'holm' ? holmAdjust : bhAdjust)(rows.map((r) => r.p));
  return rows.map((r, i) => {
    const m = metrics.find((x) => x.name === r.metric)!;
    return { ...r, pAdjusted: adjusted[i]!, adjustment, verdict: verdictOf(r.diff, adjusted[i]!, m, minEffect) };
  });
}

/**
 * The exploratory table: B against A, paired by question id, for every metric in the groups all,
 * per language and language × kind. p is a two-sided paired permutation test; the table is one
 * family under Benjamini–Hochberg (false discovery rate), so a "better"/"worse" here is a lead
 * to look at, not a gate.
 */
export function compareRuns(a: QuestionResult[], b: QuestionResult[], metrics: MetricInfo[], stats: StatsOptions): Comparison[] {
  const pairs = pairsOf(a, b);
  const rows = comparedGroups(pairs.map(([q]) => q)).flatMap((group) => metrics.map((m) => compareOne(pairs, m, group, stats)).filter((r) => r !== undefined));
  return adjust(rows, metrics, 'bh', stats.minEffect ?? DEFAULT_MIN_EFFECT);
}

/** Rejects a primary metric or dataset the harness does not know, naming the ones it does. */
export function checkPrimary(primary: readonly PrimaryMetric[], metrics: readonly MetricInfo[], datasets: readonly string[]): void {
  for (const p of primary) {
    if (!metrics.some((m) => m.name === p.metric))
      throw new Error(`eval.primary: unknown metric ${JSON.stringify(p.metric)}; known metrics: ${metrics.map((m) => m.name).join(', ')}`);
    const unknown = (p.datasets ?? []).filter((d) => !datasets.includes(d));
    if (unknown.length) throw new Error(`eval.primary: ${p.metric} names unknown dataset ${unknown.join(', ')}; configured: ${datasets.join(', ')}`);
  }
}

/**
 * The gate's family: each declared primary metric in each dataset × language where it applies
 * (and the entry's datasets/languages allow), B against A, Holm-adjusted over the whole family
 * (family-wise error ≤ 5%: on a night where nothing changed, the gate fails with probability
 * ≤ 0.05 whatever the number of comparisons).
 */
export function primaryComparisons(a: QuestionResult[], b: QuestionResult[], metrics: MetricInfo[], primary: readonly PrimaryMetric[], stats: StatsOptions): Comparison[] {
  const pairs = pairsOf(a, b);
  const cells = new Map<string, Group>();
  for (const [q] of pairs) cells.set(`${q.dataset}\u0000${q.lang}`, { dataset: q.dataset, lang: q.lang });
  const sorted = [...cells.values()].sort((x, y) => `${x.dataset} ${x.lang}`.localeCompare(`${y.dataset} ${y.lang}`));
  const rows: Unadjusted[] = [];
  const seen = new Set<string>();
  for (const p of primary) {
    const m = metrics.find((x) => x.name === p.metric);
    if (!m) throw new Error(`eval.primary: unknown metric ${JSON.stringify(p.metric)}; known metrics: ${metrics.map((x) => x.name).join(', ')}`);
    for (const cell of sorted) {
      if (p.datasets && !p.datasets.includes(cell.dataset!)) continue;
      if (p.langs && !p.langs.includes(cell.lang!)) continue;
      const key = `${m.name}\u0000${cell.dataset}\u0000${cell.lang}`;
      if (seen.has(key)) continue; // declared twice: one test, not two
      seen.add(key);
      const row = compareOne(pairs, m, cell, stats);
      if (row) rows.push(row);
    }
  }
  return adjust(rows, metrics, 'holm', stats.minEffect ?? DEFAULT_MIN_EFFECT);
}
