import { pairedDiffInterval, type IntervalMethod } from './interval.ts';
import { pairedPermutationTest } from './paired.ts';

/** B − A over paired values: the means, the difference with its interval, and the permutation p. */
export interface PairedComparison {
  n: number;
  meanA: number;
  meanB: number;
  diff: number;
  low: number;
  high: number;
  interval: IntervalMethod;
  p: number;
}

/**
 * The paired comparison a report's rows make: over the pairs where both values are numbers (a
 * metric that does not apply to a question is undefined or null there), a two-sided paired
 * permutation test and the paired interval (Newcombe's for 0/1 values, else the bootstrap), both
 * seeded with `seed`. Undefined when no pair has both values.
 */
export function comparePaired(pairs: readonly (readonly [unknown, unknown])[], opts: { seed: string; permutations: number; bootstrap: number }): PairedComparison | undefined {
  const both = pairs.filter((v): v is readonly [number, number] => typeof v[0] === 'number' && typeof v[1] === 'number');
  if (both.length === 0) return undefined;
  const a = both.map((v) => v[0]);
  const b = both.map((v) => v[1]);
  const test = pairedPermutationTest(a, b, { iterations: opts.permutations, seed: opts.seed });
  const ci = pairedDiffInterval(a, b, { iterations: opts.bootstrap, seed: opts.seed });
  return { n: both.length, meanA: test.meanA, meanB: test.meanB, diff: test.meanDiff, low: ci.low, high: ci.high, interval: ci.method, p: test.p };
}
