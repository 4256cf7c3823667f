import { mean, quantileSeq } from 'mathjs';
import { assertFiniteValues, resolveIterations } from './bootstrap.ts';
import type { DiffCI, PairedTestResult, PermutationOptions } from './paired.ts';
import { seededRandom } from './random.ts';

/**
 * Two independent samples: each side's scores over its own items (e.g. faithfulness over the answers
 * each generator chose to give). Pairing is impossible there: a question one side answered and the
 * other did not has one score, not two, and dropping it would compare the sides on a set neither chose.
 */

/** Number of ways to pick k of n, as a float (only compared with a limit). */
function choose(n: number, k: number): number {
  let c = 1;
  for (let i = 1; i <= k; i++) c = (c * (n - k + i)) / i;
  return c;
}

/**
 * Two-sided two-sample permutation test of the difference of means (Fisher–Pitman): under the null
 * hypothesis the labels A and B are exchangeable, so p is the share of relabellings (same sizes) whose
 * |mean B − mean A| is at least the observed one. Exact over every relabelling when there are at most
 * `exactUpTo` of them (default 20000), else Monte Carlo with the (count + 1) / (iterations + 1)
 * correction. A side with no values gives NaN: there is nothing to compare.
 */
export function unpairedPermutationTest(a: readonly number[], b: readonly number[], opts: PermutationOptions & { exactUpTo?: number } = {}): PairedTestResult {
  assertFiniteValues(a, 'a');
  assertFiniteValues(b, 'b');
  const iterations = resolveIterations(opts.iterations, 10_000);
  const na = a.length;
  const nb = b.length;
  const meanA = na ? (mean([...a]) as number) : NaN;
  const meanB = nb ? (mean([...b]) as number) : NaN;
  if (na === 0 || nb === 0) return { n: na + nb, meanA, meanB, meanDiff: meanB - meanA, p: NaN, exact: true };
  const all = [...a, ...b];
  const total = all.reduce((s, x) => s + x, 0);
  const diffOf = (sumA: number) => (total - sumA) / nb - sumA / na;
  const observed = Math.abs(meanB - meanA);
  // Relabellings that tie with the observed difference in exact arithmetic count, rounding aside.
  const threshold = observed - 1e-9 * (all.reduce((s, x) => s + Math.abs(x), 0) || 1);
  const result = { n: na + nb, meanA, meanB, meanDiff: meanB - meanA };

  if (choose(na + nb, na) <= (opts.exactUpTo ?? 20_000)) {
    let count = 0;
    let patterns = 0;
    const walk = (start: number, left: number, sum: number) => {
      if (left === 0) {
        patterns++;
        if (Math.abs(diffOf(sum)) >= threshold) count++;
        return;
      }
      for (let i = start; i <= all.length - left; i++) walk(i + 1, left - 1, sum + all[i]!);
    };
    walk(0, na, 0);
    return { ...result, p: count / patterns, exact: true };
  }

  const random = seededRandom(opts.seed);
  let count = 0;
  const xs = [...all];
  for (let it = 0; it < iterations; it++) {
    // Partial Fisher–Yates: the first na places of a uniform shuffle are a uniform A-sample.
    const u = random.uniforms(na);
    let sum = 0;
    for (let i = 0; i < na; i++) {
      const j = i + Math.floor(u[i]! * (xs.length - i));
      [xs[i], xs[j]] = [xs[j]!, xs[i]!];
      sum += xs[i]!;
    }
    if (Math.abs(diffOf(sum)) >= threshold) count++;
  }
  return { ...result, p: (count + 1) / (iterations + 1), exact: false };
}

/** Percentile bootstrap CI of mean B − mean A, resampling each side on its own. */
export function unpairedBootstrapDiffCI(a: readonly number[], b: readonly number[], opts: { iterations?: number; seed?: string; confidence?: number } = {}): DiffCI {
  assertFiniteValues(a, 'a');
  assertFiniteValues(b, 'b');
  const iterations = resolveIterations(opts.iterations, 2000);
  const confidence = opts.confidence ?? 0.95;
  const n = a.length + b.length;
  if (a.length === 0 || b.length === 0) return { n, meanDiff: NaN, low: NaN, high: NaN };
  const random = seededRandom(opts.seed);
  const resampledMean = (xs: readonly number[]) => {
    let sum = 0;
    for (const i of random.indices(xs.length, xs.length)) sum += xs[i]!;
    return sum / xs.length;
  };
  const diffs: number[] = [];
  for (let it = 0; it < iterations; it++) diffs.push(resampledMean(b) - resampledMean(a));
  diffs.sort((x, y) => x - y);
  const alpha = 1 - confidence;
  const [low, high] = quantileSeq(diffs, [alpha / 2, 1 - alpha / 2], true) as number[];
  return { n, meanDiff: (mean([...b]) as number) - (mean([...a]) as number), low: low!, high: high! };
}
