import { quantileSeq } from 'mathjs';
import { assertFiniteValues, resolveIterations, type BootstrapOptions } from './bootstrap.ts';
import { pairedDifferences } from './paired.ts';
import { seededRandom } from './random.ts';

export interface MedianDiffCI {
  n: number;
  medianA: number;
  medianB: number;
  /** Median of the per-question differences b − a (not the difference of the medians). */
  medianDiff: number;
  low: number;
  high: number;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((x, y) => x - y);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/**
 * Percentile bootstrap CI of the median of paired differences b − a. For latencies: a median is
 * not dragged by the one question that hit a cold page or a GC pause, and pairing by question
 * removes the (large) spread between short and long questions. Empty input: n = 0 and NaN.
 */
export function pairedMedianDiffCI(a: readonly number[], b: readonly number[], opts: BootstrapOptions = {}): MedianDiffCI {
  const diffs = pairedDifferences(a, b);
  assertFiniteValues(diffs, 'differences');
  const iterations = resolveIterations(opts.iterations, 2000);
  const confidence = opts.confidence ?? 0.95;
  if (!(confidence > 0 && confidence < 1)) throw new RangeError(`confidence must be strictly between 0 and 1, got ${confidence}`);
  const n = diffs.length;
  if (n === 0) return { n: 0, medianA: NaN, medianB: NaN, medianDiff: NaN, low: NaN, high: NaN };
  const random = seededRandom(opts.seed);
  const medians: number[] = [];
  for (let it = 0; it < iterations; it++) medians.push(median(random.indices(n, n).map((i) => diffs[i]!)));
  medians.sort((x, y) => x - y);
  const alpha = 1 - confidence;
  const [low, high] = quantileSeq(medians, [alpha / 2, 1 - alpha / 2], true) as number[];
  return { n, medianA: median(a), medianB: median(b), medianDiff: median(diffs), low: low!, high: high! };
}
