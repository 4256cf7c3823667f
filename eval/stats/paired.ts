import { mean } from 'mathjs';
import { assertFiniteValues, bootstrapCI, resolveIterations, type BootstrapOptions } from './bootstrap.ts';
import { seededRandom } from './random.ts';

export interface PermutationOptions {
  /** Monte Carlo sign patterns when enumeration is too large; 10000 by default. */
  iterations?: number;
  /** Seed for the Monte Carlo patterns; a fixed default keeps reports reproducible. */
  seed?: string;
  /** Enumerate all 2^m patterns when the m non-zero differences number at most this; 16 by default. */
  exactUpTo?: number;
}

export interface PairedTestResult {
  n: number;
  meanA: number;
  meanB: number;
  /** Mean of the per-question differences b − a. */
  meanDiff: number;
  /** Two-sided p-value. */
  p: number;
  /** True when every sign pattern was enumerated, false for a Monte Carlo estimate. */
  exact: boolean;
}

export interface DiffCI {
  n: number;
  meanDiff: number;
  low: number;
  high: number;
}

/** 2^30 patterns is far past any useful run time; the cap also keeps bit masks 32-bit safe. */
const MAX_EXACT = 30;

/** Per-question differences b − a; both systems must have scored the same questions, in order. */
export function pairedDifferences(a: readonly number[], b: readonly number[]): number[] {
  if (a.length !== b.length) {
    throw new RangeError(
      `paired samples differ in length: a has ${a.length} values, b has ${b.length}; ` +
        'both need one score per question, in the same order',
    );
  }
  assertFiniteValues(a, 'a');
  assertFiniteValues(b, 'b');
  return b.map((v, i) => v - a[i]!);
}

/**
 * Two-sided paired randomization test (sign-flip test; Fisher 1935, Smucker et al., CIKM 2007).
 * Under the null hypothesis that A and B are exchangeable on each question, every difference is
 * as likely to have either sign, so p is the share of sign patterns whose |mean difference| is at
 * least the observed one. Zero differences are the same under any sign, so only the m non-zero
 * ones are flipped: exactly over all 2^m patterns when m ≤ exactUpTo, otherwise by Monte Carlo
 * with the (count + 1) / (iterations + 1) correction, which counts the observed pattern and so
 * never reports p = 0 (Phipson & Smyth 2010). All differences zero gives p = 1; empty input gives
 * n = 0 and NaN everywhere else.
 */
export function pairedPermutationTest(
  a: readonly number[],
  b: readonly number[],
  opts: PermutationOptions = {},
): PairedTestResult {
  const diffs = pairedDifferences(a, b);
  const iterations = resolveIterations(opts.iterations, 10_000);
  const exactUpTo = opts.exactUpTo ?? 16;
  if (!Number.isInteger(exactUpTo) || exactUpTo < 0 || exactUpTo > MAX_EXACT) {
    throw new RangeError(`exactUpTo must be an integer from 0 to ${MAX_EXACT}, got ${exactUpTo}`);
  }
  const n = diffs.length;
  if (n === 0) return { n: 0, meanA: NaN, meanB: NaN, meanDiff: NaN, p: NaN, exact: true };
  const means = {
    n,
    meanA: mean([...a]) as number,
    meanB: mean([...b]) as number,
    meanDiff: mean(diffs) as number,
  };

  const nonZero = diffs.filter((d) => d !== 0);
  const m = nonZero.length;
  if (m === 0) return { ...means, p: 1, exact: true };

  // Sums stand in for means: n is the same for every pattern. The tolerance keeps patterns that tie
  // with the observed sum in exact arithmetic but land a rounding error below it.
  const observed = Math.abs(nonZero.reduce((s, d) => s + d, 0));
  const threshold = observed - 1e-9 * nonZero.reduce((s, d) => s + Math.abs(d), 0);

  if (m <= exactUpTo) {
    const patterns = 2 ** m;
    let count = 0;
    for (let mask = 0; mask < patterns; mask++) {
      let sum = 0;
      for (let i = 0; i < m; i++) sum += (mask >>> i) & 1 ? -nonZero[i]! : nonZero[i]!;
      if (Math.abs(sum) >= threshold) count++;
    }
    return { ...means, p: count / patterns, exact: true };
  }

  const random = seededRandom(opts.seed);
  let count = 0;
  for (let it = 0; it < iterations; it++) {
    const u = random.uniforms(m);
    let sum = 0;
    for (let i = 0; i < m; i++) sum += u[i]! < 0.5 ? -nonZero[i]! : nonZero[i]!;
    if (Math.abs(sum) >= threshold) count++;
  }
  return { ...means, p: (count + 1) / (iterations + 1), exact: false };
}

/**
 * Percentile bootstrap CI of the mean difference b − a, resampling questions: each draw keeps a
 * question's two scores together, which is the same as resampling the per-question differences.
 * Keeping pairs is what makes the interval narrow when B beats A on the same hard questions.
 */
export function pairedBootstrapDiffCI(
  a: readonly number[],
  b: readonly number[],
  opts: BootstrapOptions = {},
): DiffCI {
  const { n, mean: meanDiff, low, high } = bootstrapCI(pairedDifferences(a, b), opts);
  return { n, meanDiff, low, high };
}
