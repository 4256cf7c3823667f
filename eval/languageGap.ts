import type { StatsOptions } from './aggregate.ts';
import type { GapRow, QuestionResult } from './report/types.ts';
import { DEFAULT_MIN_EFFECT, verdictOf } from './compare.ts';
import { METRICS } from './suites/catalogue.ts';
import { holmAdjust, pairedDiffInterval, pairedPermutationTest } from './stats/index.ts';

/** The metrics whose Spanish–English gap is tested: ranking quality and whether the answer is right. */
export const GAP_METRICS = ['file.recall@5', 'file.acc@1', 'file.mrr', 'answer.answered', 'answer.right', 'answer.abstained'] as const;

export const GAP_ALPHA = 0.05;

/**
 * Spanish against English on the questions asked in both languages (same `pair` id), per dataset:
 * a paired permutation test of es − en (the pairs are the unit: the test is of the gap itself, not
 * of two separate means) and its paired CI (Newcombe's score interval for 0/1 metrics, else the
 * paired bootstrap), with Holm's correction over every row of the table (one family), so a "gap" is
 * one that survives the number of tests made; like the gate, it also needs the minimum effect.
 */
export function languageGap(questions: readonly QuestionResult[], stats: StatsOptions, metrics: readonly string[] = GAP_METRICS): GapRow[] {
  const pairs = new Map<string, { en?: QuestionResult; es?: QuestionResult }>();
  for (const q of questions) {
    if (!q.pair || q.error) continue;
    const key = `${q.dataset}\u0000${q.pair}`;
    const p = pairs.get(key) ?? {};
    p[q.lang] = q;
    pairs.set(key, p);
  }
  const complete = [...pairs.values()].filter((p): p is { en: QuestionResult; es: QuestionResult } => Boolean(p.en && p.es));
  const datasets = [...new Set(complete.map((p) => p.en.dataset))].sort();
  const rows: Omit<GapRow, 'pHolm' | 'verdict'>[] = [];
  for (const dataset of datasets) {
    for (const metric of metrics) {
      const both = complete
        .filter((p) => p.en.dataset === dataset)
        .map((p) => [p.en.metrics[metric], p.es.metrics[metric]] as const)
        .filter((v): v is readonly [number, number] => typeof v[0] === 'number' && typeof v[1] === 'number');
      if (both.length === 0) continue;
      const en = both.map((v) => v[0]);
      const es = both.map((v) => v[1]);
      const seed = `${stats.seed}:gap:${dataset}:${metric}`;
      const test = pairedPermutationTest(en, es, { iterations: stats.permutations, seed });
      const ci = pairedDiffInterval(en, es, { iterations: stats.bootstrap, seed });
      rows.push({ metric, dataset, n: both.length, meanEn: test.meanA, meanEs: test.meanB, diff: test.meanDiff, low: ci.low, high: ci.high, interval: ci.method, p: test.p });
    }
  }
  const adjusted = holmAdjust(rows.map((r) => r.p));
  const info = (name: string) => METRICS.find((m) => m.name === name) ?? { name, label: name, direction: 'higher' as const, unit: 'share' as const, description: '' };
  return rows.map((r, i) => ({
    ...r,
    pHolm: adjusted[i]!,
    verdict: adjusted[i]! < GAP_ALPHA && verdictOf(r.diff, adjusted[i]!, info(r.metric), stats.minEffect ?? DEFAULT_MIN_EFFECT) !== 'same' ? 'gap' : 'none',
  }));
}
