import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { aggregate } from '../eval/aggregate.ts';
import { languageGap } from '../eval/languageGap.ts';
import { primaryComparisons, verdictOf } from '../eval/compare.ts';
import { exactCoverage, intervalsFor, simulatedCoverage } from '../eval/intervalCoverage.ts';
import { nightlyReport } from '../eval/nightly.ts';
import { beforeAfter, pooledComparison, poolReports } from '../eval/pooled.ts';
import { simulateNullNights } from '../eval/nullSimulation.ts';
import type { MetricInfo, QuestionResult, Report } from '../eval/report/types.ts';
import {
  bhAdjust,
  bootstrapCI,
  newcombePairedDiffCI,
  normalQuantile,
  pairedBootstrapDiffCI,
  pairedPermutationTest,
  seededRandom,
  wilsonCI,
  wilsonInterval,
} from '../eval/stats/index.ts';
import { root } from './support/paths.ts';

/** a and b whose per-question differences b − a are exactly `diffs` (a is all zeros). */
function pairsWithDiffs(diffs: number[]): [number[], number[]] {
  return [diffs.map(() => 0), [...diffs]];
}

describe('seededRandom', () => {
  it('repeats its draws for the same seed and changes them for another', () => {
    expect(seededRandom('x').uniforms(5)).toEqual(seededRandom('x').uniforms(5));
    expect(seededRandom('x').uniforms(5)).not.toEqual(seededRandom('y').uniforms(5));
  });
  it('draws uniforms in [0, 1) and indices in [0, below)', () => {
    const random = seededRandom('range');
    const u = random.uniforms(1000);
    expect(u).toHaveLength(1000);
    expect(u.every((x) => x >= 0 && x < 1)).toBe(true);
    const idx = random.indices(1000, 3);
    expect(new Set(idx)).toEqual(new Set([0, 1, 2])); // 1000 draws of 3 values hit all three
    expect(random.indices(0, 3)).toEqual([]);
  });
});

describe('pairedPermutationTest, exact enumeration', () => {
  it('differences [1, 1, 1]: 2 of 8 patterns reach |mean| 1, p = 0.25', () => {
    // Sign patterns give sums ±3 (+++ and ---, |mean| = 1) or ±1 (the other six, |mean| = 1/3).
    const r = pairedPermutationTest([0, 0, 0], [1, 1, 1]);
    expect(r).toEqual({ n: 3, meanA: 0, meanB: 1, meanDiff: 1, p: 0.25, exact: true });
  });

  it('differences [1, 2, 3, 4]: 2 of 16 patterns reach |mean| 2.5, p = 0.125', () => {
    // Flipping a subset S of {1,2,3,4} gives sum 10 − 2·ΣS, |mean| = |sum| / 4:
    //   S = {}        sum 10   |mean| 2.5   <- observed
    //   S = {1}       8        2
    //   S = {2}       6        1.5
    //   S = {3}       4        1
    //   S = {4}       2        0.5
    //   S = {1,2}     4        1
    //   S = {1,3}     2        0.5
    //   S = {1,4}     0        0
    //   S = {2,3}     0        0
    //   S = {2,4}    −2        0.5
    //   S = {3,4}    −4        1
    //   S = {1,2,3}  −2        0.5
    //   S = {1,2,4}  −4        1
    //   S = {1,3,4}  −6        1.5
    //   S = {2,3,4}  −8        2
    //   S = {1,2,3,4} −10      2.5
    // |mean| ≥ 2.5: S = {} and S = {1,2,3,4}, so p = 2/16.
    const r = pairedPermutationTest([1, 1, 1, 1], [2, 3, 4, 5]);
    expect(r.p).toBe(0.125);
    expect(r.exact).toBe(true);
    expect(r.meanDiff).toBe(2.5);
  });

  it('one negative difference: d = [3, 2, −1], p = 4/8 = 0.5', () => {
    // Observed sum 4 (|mean| 4/3). Sums of ±3 ±2 ±1: +++ 6, ++− 4, +−+ 2, +−− 0,
    // −++ 0, −+− −2, −−+ −4, −−− −6. |sum| ≥ 4: 6, 4, −4, −6, so p = 4/8.
    const r = pairedPermutationTest([0, 0, 1], [3, 2, 0]);
    expect(r.meanA).toBeCloseTo(1 / 3, 12);
    expect(r.meanB).toBeCloseTo(5 / 3, 12);
    expect(r.meanDiff).toBeCloseTo(4 / 3, 12);
    expect(r.p).toBe(0.5);
    expect(r.exact).toBe(true);
  });

  it('zero differences are not flipped but still count in n and the means', () => {
    // d = [0, 0, 1, 1, 1]: m = 3 non-zero, so the same 2/8 as [1, 1, 1]; meanDiff = 3/5.
    const r = pairedPermutationTest([5, 5, 0, 0, 0], [5, 5, 1, 1, 1]);
    expect(r.n).toBe(5);
    expect(r.meanDiff).toBeCloseTo(3 / 5, 12);
    expect(r.p).toBe(0.25);
  });

  it('a direction-free test: swapping a and b negates meanDiff and keeps p', () => {
    const a = [0.2, 0.5, 0.9, 0.1, 0.4];
    const b = [0.6, 0.5, 1.0, 0.3, 0.0];
    const ab = pairedPermutationTest(a, b);
    const ba = pairedPermutationTest(b, a);
    expect(ba.meanDiff).toBeCloseTo(-ab.meanDiff, 12);
    expect(ba.p).toBe(ab.p);
  });

  it('counts float ties with the observed value: d = [−0.7, 0.6, −0.6], p = 6/8 = 0.75', () => {
    // Observed sum −0.7, |sum| 0.7. Sums of ±0.7 ±0.6 ±0.6: +++ 1.9, ++− 0.7, +−+ 0.7, +−− −0.5,
    // −++ 0.5, −+− −0.7, −−+ −0.7, −−− −1.9. |sum| ≥ 0.7: six patterns, four of them ties.
    // In floats |−0.7 + 0.6 − 0.6| = 0.7 but |0.7 + 0.6 − 0.6| = 0.6999999999999998, so without
    // the tolerance two of the ties are lost and p would be 4/8.
    const [a, b] = pairsWithDiffs([-0.7, 0.6, -0.6]);
    expect(pairedPermutationTest(a, b).p).toBe(0.75);
  });

  it('enumerates only the non-zero differences: 3 of 20 non-zero stays exact at exactUpTo 16', () => {
    const [a, b] = pairsWithDiffs([...Array(17).fill(0), 1, 1, 1]);
    expect(pairedPermutationTest(a, b)).toMatchObject({ n: 20, p: 0.25, exact: true });
  });

  it('all differences zero gives p = 1', () => {
    const r = pairedPermutationTest([0.3, 0.7, 1], [0.3, 0.7, 1]);
    expect(r).toEqual({ n: 3, meanA: 2 / 3, meanB: 2 / 3, meanDiff: 0, p: 1, exact: true });
  });

  it('empty input gives n = 0 and NaN', () => {
    const r = pairedPermutationTest([], []);
    expect(r.n).toBe(0);
    expect(r.p).toBeNaN();
    expect(r.meanDiff).toBeNaN();
  });
});

describe('pairedPermutationTest, Monte Carlo', () => {
  // m = 20 non-zero differences with mixed signs, so p is moderate rather than tiny.
  const diffs = [3, -1, 2, 0.5, -2, 1, 4, -3, 1.5, 2, -0.5, 1, 2.5, -1.5, 3, 0.5, -2.5, 1, 2, -1];
  const [a, b] = pairsWithDiffs(diffs);

  it('switches to Monte Carlo above exactUpTo and lands within 0.02 of the exact p', () => {
    const exact = pairedPermutationTest(a, b, { exactUpTo: 20 }); // all 2^20 patterns
    expect(exact.exact).toBe(true);
    expect(exact.p).toBeGreaterThan(0.05); // a case where the estimate has room to be wrong
    expect(exact.p).toBeLessThan(0.95);
    const mc = pairedPermutationTest(a, b, { iterations: 20_000, seed: 'mc' });
    expect(mc.exact).toBe(false);
    expect(Math.abs(mc.p - exact.p)).toBeLessThan(0.02);
  });

  it('is reproducible from its seed', () => {
    const opts = { iterations: 2000, exactUpTo: 0 };
    const first = pairedPermutationTest(a, b, { ...opts, seed: 's1' });
    expect(pairedPermutationTest(a, b, { ...opts, seed: 's1' })).toEqual(first);
    const others = ['s2', 's3', 's4'].map((seed) => pairedPermutationTest(a, b, { ...opts, seed }).p);
    expect(others.some((p) => p !== first.p)).toBe(true);
  });

  it('applies the (count + 1) / (iterations + 1) correction, so p is never 0', () => {
    // Twenty differences of 1: only 2 of 2^20 patterns reach the observed |mean|; 1000 draws with
    // this seed hit neither, so p = (0 + 1) / (1000 + 1).
    const [a1, b1] = pairsWithDiffs(Array(20).fill(1));
    const r = pairedPermutationTest(a1, b1, { iterations: 1000, seed: 'correction' });
    expect(r.exact).toBe(false);
    expect(r.p).toBe(1 / 1001);
  });
});

describe('bootstrapCI', () => {
  it('a constant sample has low = high = the constant', () => {
    expect(bootstrapCI([0.7, 0.7, 0.7, 0.7])).toEqual({ n: 4, mean: 0.7, low: 0.7, high: 0.7 });
  });

  it('[0, 1]: resampled means are 0 (1/4), 0.5 (1/2), 1 (1/4), so the 95% interval is [0, 1]', () => {
    // The 2.5% quantile lies inside the quarter of means that are 0, the 97.5% inside the quarter
    // that are 1 (about 500 of 2000 each, far from the 50 the quantiles need).
    expect(bootstrapCI([0, 1])).toEqual({ n: 2, mean: 0.5, low: 0, high: 1 });
  });

  it('[0, 1] at 40% confidence: the 30% and 70% quantiles both fall among the 0.5 means', () => {
    // P(mean ≤ 0) = 1/4 < 0.3 and P(mean ≤ 0.5) = 3/4 ≥ 0.7, so the interval is [0.5, 0.5].
    expect(bootstrapCI([0, 1], { confidence: 0.4 })).toMatchObject({ low: 0.5, high: 0.5 });
  });

  it('brackets the mean of a spread sample and narrows with lower confidence', () => {
    const values = [0, 0.1, 0.25, 0.4, 0.5, 0.55, 0.7, 0.8, 0.9, 1];
    const wide = bootstrapCI(values);
    const narrow = bootstrapCI(values, { confidence: 0.5 });
    expect(wide.mean).toBeCloseTo(0.52, 12);
    expect(wide.low).toBeLessThan(wide.mean);
    expect(wide.high).toBeGreaterThan(wide.mean);
    expect(narrow.low).toBeGreaterThan(wide.low);
    expect(narrow.high).toBeLessThan(wide.high);
  });

  it('is reproducible from its seed', () => {
    const values = Array.from({ length: 20 }, (_, i) => i * i);
    const first = bootstrapCI(values, { seed: 'a', iterations: 500 });
    expect(bootstrapCI(values, { seed: 'a', iterations: 500 })).toEqual(first);
    const others = ['b', 'c', 'd'].map((seed) => bootstrapCI(values, { seed, iterations: 500 }));
    expect(others.some((r) => r.low !== first.low || r.high !== first.high)).toBe(true);
  });

  it('empty input gives n = 0 and NaN', () => {
    expect(bootstrapCI([])).toEqual({ n: 0, mean: NaN, low: NaN, high: NaN });
  });

  it('rejects NaN and null with the offending index', () => {
    expect(() => bootstrapCI([1, NaN, 2])).toThrow(/values\[1\] is NaN/);
    expect(() => bootstrapCI([1, 2, null] as unknown as number[])).toThrow(/values\[2\] is null/);
  });

  it('rejects bad options', () => {
    expect(() => bootstrapCI([1], { confidence: 1 })).toThrow(/confidence/);
    expect(() => bootstrapCI([1], { iterations: 0 })).toThrow(/iterations/);
  });
});

describe('pairedBootstrapDiffCI', () => {
  it('identical arrays give [0, 0]', () => {
    const a = [0.1, 0.9, 0.4, 0.6];
    expect(pairedBootstrapDiffCI(a, [...a])).toEqual({ n: 4, meanDiff: 0, low: 0, high: 0 });
  });

  it('keeps pairs together: B = A + 2 on every question gives exactly [2, 2]', () => {
    // Resampling a and b independently would mix 1 with 15 and give a wide interval.
    const a = [1, 5, 9, 13];
    const r = pairedBootstrapDiffCI(a, a.map((x) => x + 2));
    expect(r).toEqual({ n: 4, meanDiff: 2, low: 2, high: 2 });
  });

  it('[0, 1] differences give the same interval as bootstrapCI([0, 1])', () => {
    expect(pairedBootstrapDiffCI([0, 0], [0, 1])).toEqual({ n: 2, meanDiff: 0.5, low: 0, high: 1 });
  });
});

describe('input errors', () => {
  it('refuses samples of different lengths', () => {
    expect(() => pairedPermutationTest([1, 2], [1])).toThrow(/a has 2 values, b has 1/);
    expect(() => pairedBootstrapDiffCI([1], [1, 2])).toThrow(/a has 1 values, b has 2/);
  });
  it('refuses NaN and null, naming the sample and index', () => {
    expect(() => pairedPermutationTest([1, NaN], [1, 2])).toThrow(/a\[1\] is NaN/);
    expect(() => pairedBootstrapDiffCI([1, 2], [null, 2] as unknown as number[])).toThrow(/b\[0\] is null/);
  });
  it('refuses an exactUpTo that cannot be enumerated', () => {
    expect(() => pairedPermutationTest([1], [2], { exactUpTo: 31 })).toThrow(/exactUpTo/);
  });
});

// ---------------------------------------------------------------------------------------------
// #13 item 1: corrected statistics.

describe('Benjamini–Hochberg', () => {
  it('adjusts step-up, monotone, capped at 1, in input order (as R p.adjust(method = "BH"))', () => {
    // Sorted 0.005, 0.01, 0.03, 0.04 (m = 4): ×4/1 0.02, ×4/2 0.02, ×4/3 0.04, ×4/4 0.04.
    expect(bhAdjust([0.01, 0.04, 0.03, 0.005]).map((p) => +p.toFixed(6))).toEqual([0.02, 0.04, 0.04, 0.02]);
    // Step-up: a large p later in the order never raises an earlier one above it.
    expect(bhAdjust([0.04, 0.045]).map((p) => +p.toFixed(6))).toEqual([0.045, 0.045]);
    expect(bhAdjust([0.9, Number.NaN, 0.8])).toEqual([0.9, Number.NaN, 0.9]);
    expect(bhAdjust([])).toEqual([]);
  });
});

describe('Wilson score intervals', () => {
  it('normalQuantile inverts the normal CDF', () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959963985, 8);
    expect(normalQuantile(0.5)).toBeCloseTo(0, 10);
  });

  it('bounds are where the score test just rejects (plain) or, with the continuity correction, |p̂ − p| − 1/(2n)', () => {
    const z = 1.959963984540054;
    for (const [x, n] of [[3, 10], [9, 10], [27, 30], [50, 100]] as const) {
      const ph = x / n;
      const plain = wilsonInterval(x, n, { continuity: false });
      for (const p of [plain.low, plain.high]) expect(Math.abs(ph - p) / Math.sqrt((p * (1 - p)) / n)).toBeCloseTo(z, 8);
      const cc = wilsonInterval(x, n);
      for (const p of [cc.low, cc.high]) expect((Math.abs(ph - p) - 1 / (2 * n)) / Math.sqrt((p * (1 - p)) / n)).toBeCloseTo(z, 8);
      expect(cc.low).toBeLessThan(plain.low);
      expect(cc.high).toBeGreaterThan(plain.high);
    }
  });

  it('never has zero width at 0% or 100%: 2 of 2 is not "100.0 [100.0, 100.0]"', () => {
    expect(wilsonCI([1, 1])).toMatchObject({ n: 2, mean: 1, high: 1 });
    expect(wilsonCI([1, 1]).low).toBeLessThan(0.5);
    expect(wilsonCI([0, 0, 0])).toMatchObject({ mean: 0, low: 0 });
    expect(wilsonCI([0, 0, 0]).high).toBeGreaterThan(0.4);
    expect(wilsonCI([])).toMatchObject({ n: 0 });
    expect(() => wilsonCI([1, 0.5])).toThrow(/0 or 1/);
  });

  it('the reports use it for 0/1 metrics and keep the bootstrap for the others', () => {
    const q = (id: string, m: number, r: number) => ({ ...resultOf(id, 'en'), metrics: { acc: m, mrr: r } });
    const aggs = aggregate([q('1', 1, 1), q('2', 1, 0.5)], ['acc', 'mrr'], { seed: 's', bootstrap: 200, permutations: 200 });
    const all = (metric: string) => aggs.find((a) => a.metric === metric && Object.keys(a.group).length === 0)!;
    // Before: the percentile bootstrap of [1, 1] was [1, 1].
    expect(all('acc')).toMatchObject({ mean: 1, high: 1, interval: 'wilson' });
    expect(all('acc').low).toBeLessThan(0.5);
    expect(all('mrr')).toMatchObject({ mean: 0.75, interval: 'bootstrap' });
  });
});

describe('Newcombe paired difference of proportions', () => {
  const a = [1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1];
  const b = [1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1];
  it('holds the difference, stays within [−1, 1], and turns over when A and B swap', () => {
    const ci = newcombePairedDiffCI(a, b);
    expect(ci.n).toBe(12);
    expect(ci.meanDiff).toBeCloseTo(-2 / 12, 12);
    expect(ci.low).toBeLessThan(ci.meanDiff);
    expect(ci.high).toBeGreaterThan(ci.meanDiff);
    expect(ci.low).toBeGreaterThanOrEqual(-1);
    const back = newcombePairedDiffCI(b, a);
    expect(back.low).toBeCloseTo(-ci.high, 12);
    expect(back.high).toBeCloseTo(-ci.low, 12);
  });
  it('is narrower when the pairs agree (positive correlation) than when they are independent', () => {
    // Same margins (pA = pB = 0.5): agreeing pairs, then pairs that disagree half the time.
    const agree = newcombePairedDiffCI([1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 1, 0], [1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1]);
    const mixed = newcombePairedDiffCI([1, 1, 1, 0, 0, 0, 1, 1, 1, 0, 0, 0], [1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1]);
    expect(agree.high - agree.low).toBeLessThan(mixed.high - mixed.low);
  });
  it('has width when one side is all right: 10/10 vs 10/10 is not [0, 0]', () => {
    const ones = Array(10).fill(1);
    const ci = newcombePairedDiffCI(ones, ones);
    expect(ci.low).toBeLessThan(-0.1);
    expect(ci.high).toBeGreaterThan(0.1);
    expect(() => newcombePairedDiffCI([0.5], [1])).toThrow(/0 or 1/);
  });
});

describe('interval coverage (the figure of #13: ≥ 93% at n = 10, 30, 100 and p = 0.5, 0.9, 0.97)', () => {
  it('the continuity-corrected Wilson interval covers ≥ 95% exactly and ≥ 93% by seeded simulation; the old bootstrap does not', () => {
    for (const n of [10, 30, 100]) {
      const wilson = intervalsFor('wilson-cc', n);
      for (const p of [0.5, 0.9, 0.97]) {
        expect(exactCoverage(wilson, n, p), `exact n=${n} p=${p}`).toBeGreaterThanOrEqual(0.95);
        expect(simulatedCoverage(wilson, n, p, 400, seededRandom(`cov:${n}:${p}`)), `simulated n=${n} p=${p}`).toBeGreaterThanOrEqual(0.93);
      }
    }
    // The percentile bootstrap of the reports before: at n = 10 and p = 0.97, a quarter of the time.
    const boot = intervalsFor('bootstrap', 10, { iterations: 500, seed: 't' });
    expect(exactCoverage(boot, 10, 0.97)).toBeLessThan(0.5);
    // Plain Wilson misses 93% by a hair at n = 10, p = 0.9 (92.98%): why the correction is used.
    expect(exactCoverage(intervalsFor('wilson', 10), 10, 0.9)).toBeLessThan(0.93);
  });
});

const SHARE = (name: string): MetricInfo => ({ name, label: name, direction: 'higher', unit: 'share', description: '' });

function resultOf(id: string, lang: 'en' | 'es', dataset = 'd'): QuestionResult {
  return {
    id,
    dataset,
    lang,
    kind: 'k',
    expectedSource: 'code',
    question: id,
    gold: { files: [], issues: [] },
    metrics: {},
    route: { top: 'code', weights: { docs: 0, code: 1, issues: 0 } },
    slots: { docs: 0, code: 0, issues: 0 },
    ranked: [],
    latency: {},
  };
}

describe('the nightly gate: primary metrics, Holm, minimum effect', () => {
  it('a difference below the minimum effect is never worse, whatever its p', () => {
    expect(verdictOf(-0.019, 0.0001, SHARE('r'), 2)).toBe('same');
    expect(verdictOf(-0.02, 0.0001, SHARE('r'), 2)).toBe('worse');
    expect(verdictOf(-0.5, 0.06, SHARE('r'), 2)).toBe('same');
    expect(verdictOf(0.3, 0.01, SHARE('r'), 2)).toBe('better');
  });

  it('tests each primary metric per dataset × language, Holm over that family only', () => {
    // Dataset x: 8 questions per language; r drops on all 8 English ones (exact p = 2/256).
    const a: QuestionResult[] = [];
    const b: QuestionResult[] = [];
    for (const lang of ['en', 'es'] as const)
      for (const ds of ['x', 'y'])
        for (let i = 0; i < 8; i++) {
          const id = `${ds}-${lang}-${i}`;
          a.push({ ...resultOf(id, lang, ds), metrics: { r: 1, s: 1 } });
          b.push({ ...resultOf(id, lang, ds), metrics: { r: ds === 'x' && lang === 'en' ? 0 : 1, s: 0 } });
        }
    const rows = primaryComparisons(a, b, [SHARE('r'), SHARE('s')], [{ metric: 'r' }], { seed: 's', bootstrap: 100, permutations: 1000 });
    expect(rows.map((r) => `${r.group.dataset}/${r.group.lang}`)).toEqual(['x/en', 'x/es', 'y/en', 'y/es']);
    const hit = rows.find((r) => r.group.dataset === 'x' && r.group.lang === 'en')!;
    expect(hit.p).toBeCloseTo(2 / 256, 12);
    expect(hit.pAdjusted).toBeCloseTo(4 * (2 / 256), 12); // Holm, m = 4
    expect(hit).toMatchObject({ adjustment: 'holm', verdict: 'worse', interval: 'newcombe' });
    // Restricted to a dataset and a language: one comparison, so no adjustment.
    const one = primaryComparisons(a, b, [SHARE('r')], [{ metric: 'r', datasets: ['x'], langs: ['en'] }], { seed: 's', bootstrap: 100, permutations: 1000 });
    expect(one).toHaveLength(1);
    expect(one[0]!.pAdjusted).toBeCloseTo(2 / 256, 12);
  });

  it('a secondary metric, however much worse, does not fail the night; a primary one does', () => {
    const report = (metrics: Record<string, number>[], primary: string) =>
      ({
        version: 1,
        kind: 'run',
        meta: { stats: { seed: 's', bootstrap: 100, permutations: 1000, primary: [{ metric: primary }] } },
        metrics: [SHARE('r'), SHARE('s')],
        runs: [{ label: 'x', configHash: 'h', questions: metrics.map((m, i) => ({ ...resultOf(String(i), 'en'), metrics: m })) }],
      }) as unknown as Report;
    const base = Array.from({ length: 12 }, () => ({ r: 1, s: 1 }));
    const now = Array.from({ length: 12 }, () => ({ r: 1, s: 0 }));
    // Before #13 every quality metric gated: s, 12 of 12 worse (p = 2/4096), failed the night.
    const secondary = nightlyReport(report(base, 'r'), report(now, 'r'), 'b.json');
    expect(secondary.verdict).toMatchObject({ status: 'pass', regressions: [] });
    expect(secondary.comparisons!.find((c) => c.metric === 's' && Object.keys(c.group).length === 0)).toMatchObject({ verdict: 'worse', adjustment: 'bh' });
    const primary = nightlyReport(report(base, 's'), report(now, 's'), 'b.json');
    expect(primary.verdict!.status).toBe('fail');
    expect(primary.verdict!.regressions.map((c) => c.metric)).toEqual(['s']);
    // A declared family that matches nothing would be a gate that cannot fail: an error instead.
    expect(() => nightlyReport(report(base, 'nope'), report(now, 'nope'), 'b.json')).toThrow(/eval\.primary/);
  });
});

describe('the null simulation (#13): random per-question A/B swaps on a real report', () => {
  it('the new gate fails on ≤ 5% of null nights; the old one (raw p < 0.05 on every comparison) on far more', () => {
    const ab = JSON.parse(fs.readFileSync(path.join(root, 'reports/ab-model.json'), 'utf8')) as Report;
    const primary = [{ metric: 'file.recall@5' }, { metric: 'file.acc@1' }, { metric: 'doc.recall@10' }];
    // Modest sizes keep the test near 10 s: 20 nights, 200 permutations (bench/eval-null.ts runs 200 × 1000).
    const s = simulateNullNights(ab.runs[0]!.questions, ab.runs[1]!.questions, ab.metrics, primary, { seed: 'cita', bootstrap: 100, permutations: 200 }, 20, seededRandom('null-test'));
    expect(s.oldComparisons).toBeGreaterThan(100);
    // The family: each primary metric per dataset × language where it applies (3 × 3 × 2 at most here).
    const datasets = new Set(ab.runs[0]!.questions.map((q) => q.dataset)).size;
    expect(s.newComparisons).toBeLessThanOrEqual(primary.length * datasets * 2);
    expect(s.newFailures / s.nights).toBeLessThanOrEqual(0.05);
    expect(s.oldFailures / s.nights).toBeGreaterThanOrEqual(0.2);
  }, 120_000);
});

describe('the language gap under the new scheme', () => {
  it('is paired on the parallel questions, and a consistent gap smaller than the minimum effect is not a gap', () => {
    const rs: QuestionResult[] = [];
    for (let i = 0; i < 12; i++) {
      // MRR 1 pp lower in Spanish on every one of 12 pairs: exact p = 2/4096, yet below 2 pp.
      rs.push({ ...resultOf(`q${i}-en`, 'en'), pair: `q${i}`, metrics: { 'file.mrr': 0.5, 'file.acc@1': 1 } });
      rs.push({ ...resultOf(`q${i}-es`, 'es'), pair: `q${i}`, metrics: { 'file.mrr': 0.49, 'file.acc@1': 0 } });
    }
    const rows = languageGap(rs, { seed: 's', bootstrap: 200, permutations: 1000 }, ['file.mrr', 'file.acc@1']);
    const mrr = rows.find((r) => r.metric === 'file.mrr')!;
    expect(mrr.pHolm).toBeLessThan(0.05);
    expect(mrr).toMatchObject({ n: 12, verdict: 'none', interval: 'bootstrap' });
    expect(rows.find((r) => r.metric === 'file.acc@1')).toMatchObject({ verdict: 'gap', interval: 'newcombe' });
  });
});

describe('an A/B pooled over several reports (eval/pooled.ts)', () => {
  /** A report of 8 question pairs, ids q0…q7 in both languages (the same ids in every report), B right where A was not on `wins` English questions. */
  const report = (instance: string, wins: number, dataset = 'docs'): Report => {
    const run = (b: boolean) => ({
      questions: Array.from({ length: 8 }, (_, i) =>
        (['en', 'es'] as const).map((lang) => ({
          ...resultOf(`q${i}-${lang}`, lang, dataset),
          pair: `q${i}`,
          metrics: { 'file.acc@1': lang === 'es' ? 0 : b && i < wins ? 1 : 0 },
        })),
      ).flat(),
    });
    return { kind: 'ab', meta: { instance, stats: { seed: 's', bootstrap: 200, permutations: 2000 } }, runs: [run(false), run(true)] } as unknown as Report;
  };
  const stats = { seed: 's', bootstrap: 200, permutations: 2000 };

  it('keeps two repositories’ questions of the same id apart and tells a change no single report can', () => {
    const pooled = poolReports([report('one', 4), report('two', 4)]);
    expect(pooled).toHaveLength(32);
    expect(new Set(pooled.map((q) => q.a.id)).size).toBe(32);
    expect(new Set(pooled.map((q) => q.a.pair)).size).toBe(16);
    // One report: 4 wins of 8 English questions, exact p = 2/16, not a change.
    const alone = pooledComparison(poolReports([report('one', 4)]), ['file.acc@1'], stats).find((r) => r.lang === 'en')!;
    expect(alone).toMatchObject({ n: 8, verdict: 'same' });
    expect(alone.p).toBeCloseTo(2 / 16, 12);
    // Both: 8 wins of 16, exact p = 2/256, Holm over 3 rows (all, en, es) still < 0.05.
    const rows = pooledComparison(pooled, ['file.acc@1'], stats);
    const en = rows.find((r) => r.lang === 'en')!;
    expect(en).toMatchObject({ n: 16, a: 0, b: 0.5, verdict: 'better' });
    expect(en.p).toBeCloseTo(2 / 256, 12);
    expect(en.pHolm).toBeCloseTo(Math.min(1, 3 * (2 / 256)), 12);
    expect(rows.find((r) => r.lang === 'es')).toMatchObject({ diff: 0, verdict: 'same' });
    // The gap is paired within each repository's pairs.
    const gap = languageGap(pooled.map((q) => ({ ...q.b, dataset: 'pooled' })), stats, ['file.acc@1']);
    expect(gap[0]).toMatchObject({ n: 16, meanEn: 0.5, meanEs: 0 });
  });

  it('pools only the datasets asked for, and refuses a report that is not an A/B or a question pooled twice', () => {
    expect(poolReports([report('one', 4, 'docs'), report('two', 4, 'code')], new Set(['docs']))).toHaveLength(16);
    expect(() => poolReports([{ ...report('one', 4), kind: 'run' } as unknown as Report])).toThrow(/not an A\/B report/);
    // Two A/Bs of one instance over the same questions would count each twice.
    expect(() => poolReports([report('one', 4), report('one', 2)])).toThrow(/question q0-en of one is in two of the reports/);
  });

  it('reads a change of code as an A/B: the last run of the report before it against the last run of the one after', () => {
    const before = report('one', 0); // its B side: nothing right
    const after = { ...report('one', 3), kind: 'run', runs: [report('one', 3).runs[1]!] } as unknown as Report; // an eval's only run
    const en = pooledComparison(poolReports([beforeAfter(before, after)]), ['file.acc@1'], stats).find((r) => r.lang === 'en')!;
    expect(en).toMatchObject({ n: 8, a: 0, b: 3 / 8 });
    expect(() => beforeAfter(before, report('two', 3))).toThrow(/different instances/);
  });
});
