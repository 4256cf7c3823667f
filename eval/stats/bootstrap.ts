import { mean, quantileSeq } from 'mathjs';
import { seededRandom } from './random.ts';

export interface BootstrapOptions {
  /** Number of resamples; 2000 by default. */
  iterations?: number;
  /** Two-sided coverage of the interval, in (0, 1); 0.95 by default. */
  confidence?: number;
  /** Seed for the resampling; a fixed default keeps reports reproducible. */
  seed?: string;
}

export interface MeanCI {
  n: number;
  mean: number;
  low: number;
  high: number;
}

/**
 * Rejects anything that is not a finite number. Missing scores (null, NaN) are the caller's to
 * filter: silently dropping them here would change n behind the report's back.
 */
export function assertFiniteValues(values: readonly number[], name = 'values'): void {
  values.forEach((v, i) => {
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      const shown = v === null ? 'null' : String(v);
      throw new TypeError(
        `${name}[${i}] is ${shown}; only finite numbers are allowed (filter missing scores first)`,
      );
    }
  });
}

/** Validates the options shared by every resampling function and fills in the defaults. */
export function resolveIterations(iterations: number | undefined, fallback: number): number {
  const n = iterations ?? fallback;
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`iterations must be a positive integer, got ${n}`);
  return n;
}

/**
 * Percentile bootstrap CI of the mean (Efron & Tibshirani 1993, ch. 13): resample the values with
 * replacement, take the mean of each resample, and report the (1 − c)/2 and (1 + c)/2 quantiles of
 * those means (mathjs quantileSeq, linear interpolation). Empty input gives n = 0 and NaN for
 * mean, low and high: there is nothing to estimate, and NaN cannot pass for a measurement.
 */
export function bootstrapCI(values: readonly number[], opts: BootstrapOptions = {}): MeanCI {
  assertFiniteValues(values);
  const iterations = resolveIterations(opts.iterations, 2000);
  const confidence = opts.confidence ?? 0.95;
  if (!(confidence > 0 && confidence < 1)) {
    throw new RangeError(`confidence must be strictly between 0 and 1, got ${confidence}`);
  }
  const n = values.length;
  if (n === 0) return { n: 0, mean: NaN, low: NaN, high: NaN };

  const random = seededRandom(opts.seed);
  const means: number[] = [];
  for (let it = 0; it < iterations; it++) {
    // A plain loop: mathjs's mean would dispatch per element, thousands of times per resample.
    let sum = 0;
    for (const i of random.indices(n, n)) sum += values[i]!;
    means.push(sum / n);
  }
  means.sort((x, y) => x - y);
  const alpha = 1 - confidence;
  const [low, high] = quantileSeq(means, [alpha / 2, 1 - alpha / 2], true) as number[];
  return { n, mean: mean([...values]) as number, low: low!, high: high! };
}
