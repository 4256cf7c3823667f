import type { StatsOptions } from './aggregate.ts';
import type { GapRow, QuestionResult } from './report/types.ts';
import { DEFAULT_MIN_EFFECT, verdictOf } from './compare.ts';
import { metricInfo } from './suites/catalogue.ts';
import { comparePaired, holmAdjust } from './stats/index.ts';

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
      const c = comparePaired(
        complete.filter((p) => p.en.dataset === dataset).map((p) => [p.en.metrics[metric], p.es.metrics[metric]] as const),
        { seed: `${stats.seed}:gap:${dataset}:${metric}`, permutations: stats.permutations, bootstrap: stats.bootstrap },
      );
      if (!c) continue;
      rows.push({ metric, dataset, n: c.n, meanEn: c.meanA, meanEs: c.meanB, diff: c.diff, low: c.low, high: c.high, interval: c.interval, p: c.p });
    }
  }
  const adjusted = holmAdjust(rows.map((r) => r.p));
  return rows.map((r, i) => ({
    ...r,
    pHolm: adjusted[i]!,
    verdict: adjusted[i]! < GAP_ALPHA && verdictOf(r.diff, adjusted[i]!, metricInfo(r.metric), stats.minEffect ?? DEFAULT_MIN_EFFECT) !== 'same' ? 'gap' : 'none',
  }));
}
