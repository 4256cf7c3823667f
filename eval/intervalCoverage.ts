import { bootstrapCI, newcombePairedDiffCI, pairedBootstrapDiffCI, wilsonInterval, type RandomSource } from './stats/index.ts';

/**
 * Coverage of the report's intervals for a proportion, the figure #13 asks for: the share of data
 * sets drawn from Binomial(n, p) whose 95% interval holds the true p. For 0/1 data an interval
 * depends only on the number of ones x, so each method's n + 1 intervals are computed once and
 * coverage is then either exact (Σ P(X = x) over the x whose interval holds p) or simulated (draw
 * x, look its interval up). Pure: the random source is the caller's.
 */

export type ProportionMethod = 'wilson-cc' | 'wilson' | 'bootstrap';

export interface Interval {
  low: number;
  high: number;
}

/** The interval each method gives for x ones out of n (the bootstrap as the reports compute it, on the 0/1 values). */
export function intervalsFor(method: ProportionMethod, n: number, bootstrap = { iterations: 2000, seed: 'coverage' }): Interval[] {
  return Array.from({ length: n + 1 }, (_, x) => {
    if (method === 'bootstrap') {
      const ci = bootstrapCI(Array.from({ length: n }, (_, i) => (i < x ? 1 : 0)), { iterations: bootstrap.iterations, seed: `${bootstrap.seed}:${n}:${x}` });
      return { low: ci.low, high: ci.high };
    }
    return wilsonInterval(x, n, { continuity: method === 'wilson-cc' });
  });
}

/** P(X = x) for X ~ Binomial(n, p), x = 0…n (in log space: no overflow at any n used here). */
export function binomialPmf(n: number, p: number): number[] {
  const out: number[] = [];
  let log = n * Math.log1p(-p);
  for (let x = 0; x <= n; x++) {
    if (x > 0) log += Math.log((n - x + 1) / x) + Math.log(p) - Math.log1p(-p);
    out.push(Math.exp(log));
  }
  return out;
}

const holds = (ci: Interval, p: number) => ci.low <= p + 1e-12 && p <= ci.high + 1e-12;

/** Exact coverage over the binomial distribution of the data. */
export function exactCoverage(intervals: readonly Interval[], n: number, p: number): number {
  return binomialPmf(n, p).reduce((s, pr, x) => s + (holds(intervals[x]!, p) ? pr : 0), 0);
}

/** Simulated coverage: `reps` data sets of n Bernoulli(p) draws each. */
export function simulatedCoverage(intervals: readonly Interval[], n: number, p: number, reps: number, random: RandomSource): number {
  let covered = 0;
  for (let r = 0; r < reps; r++) {
    const x = random.uniforms(n).filter((u) => u < p).length;
    if (holds(intervals[x]!, p)) covered++;
  }
  return covered / reps;
}

/**
 * Simulated coverage of a paired difference pB − pA: each question is right for A with
 * probability pA; B copies A's outcome with probability `rho` and is otherwise an independent
 * Bernoulli(pB), so the true difference is (1 − rho)(pB − pA). For paired 0/1 data an interval
 * depends only on (n11, n10, n01, n00), and the bootstrap only on (n10, n01): both are cached.
 */
export function pairedCoverage(
  method: 'newcombe-cc' | 'newcombe' | 'bootstrap',
  n: number,
  pA: number,
  pB: number,
  rho: number,
  reps: number,
  random: RandomSource,
  bootstrapIterations = 1000,
): number {
  const truth = (1 - rho) * (pB - pA);
  const cache = new Map<string, Interval>();
  let covered = 0;
  for (let r = 0; r < reps; r++) {
    const u = random.uniforms(3 * n);
    const a: number[] = [];
    const b: number[] = [];
    for (let i = 0; i < n; i++) {
      const x = u[3 * i]! < pA ? 1 : 0;
      a.push(x);
      b.push(u[3 * i + 1]! < rho ? x : u[3 * i + 2]! < pB ? 1 : 0);
    }
    const counts = [0, 0, 0, 0];
    a.forEach((x, i) => counts[x * 2 + b[i]!]!++);
    const key = method === 'bootstrap' ? `${counts[2]},${counts[1]}` : counts.join(',');
    let ci = cache.get(key);
    if (!ci) {
      ci =
        method === 'bootstrap'
          ? pairedBootstrapDiffCI(a, b, { iterations: bootstrapIterations, seed: `coverage:${key}` })
          : newcombePairedDiffCI(a, b, { continuity: method === 'newcombe-cc' });
      cache.set(key, ci);
    }
    if (holds(ci, truth)) covered++;
  }
  return covered / reps;
}
