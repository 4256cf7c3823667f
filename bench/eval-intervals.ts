/**
 * Coverage of the report's 95% intervals (#13): for a proportion at n = 10, 30, 100 and p = 0.5,
 * 0.9, 0.97, the share of data sets whose interval holds the true p, for the continuity-corrected
 * Wilson interval the reports now use, the plain Wilson interval, and the percentile bootstrap they
 * used before. Exact (summed over the binomial distribution of the data) and simulated (seeded
 * draws). Then the paired difference of two proportions: Newcombe's paired score interval (method
 * 11, with continuity correction, as used; method 10 without) beside the paired bootstrap.
 *
 *   node --import tsx bench/eval-intervals.ts [--reps 10000] [--bootstrap 2000] [--seed coverage]
 */
import { parseArgs } from 'node:util';
import { exactCoverage, intervalsFor, pairedCoverage, simulatedCoverage, type ProportionMethod } from '../eval/intervalCoverage.ts';
import { seededRandom } from '../eval/stats/index.ts';

const { values } = parseArgs({
  options: {
    reps: { type: 'string', default: '10000' },
    bootstrap: { type: 'string', default: '2000' },
    seed: { type: 'string', default: 'coverage' },
  },
});
const reps = Number(values.reps);
const iterations = Number(values.bootstrap);
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const METHODS: ProportionMethod[] = ['wilson-cc', 'wilson', 'bootstrap'];

const lines = [
  `Coverage of 95% intervals for a proportion (exact / simulated with ${reps} data sets; bootstrap ${iterations} resamples)`,
  '',
  '| n | p | Wilson, continuity-corrected (used) | Wilson | percentile bootstrap (before) |',
  '| ---: | ---: | ---: | ---: | ---: |',
];
for (const n of [10, 30, 100]) {
  const intervals = Object.fromEntries(METHODS.map((m) => [m, intervalsFor(m, n, { iterations, seed: values.seed })]));
  for (const p of [0.5, 0.9, 0.97]) {
    const cells = METHODS.map((m) => `${pct(exactCoverage(intervals[m]!, n, p))} / ${pct(simulatedCoverage(intervals[m]!, n, p, reps, seededRandom(`${values.seed}:${n}:${p}`)))}`);
    lines.push(`| ${n} | ${p} | ${cells.join(' | ')} |`);
  }
}
const pairedReps = Math.min(reps, 4000);
lines.push(
  '',
  `Coverage of 95% intervals for a paired difference pB − pA (simulated, ${pairedReps} data sets; B copies A's outcome with probability rho)`,
  '',
  '| n | pA | pB | rho | Newcombe, cc (used) | Newcombe | paired bootstrap (before) |',
  '| ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
);
for (const n of [10, 30, 100]) {
  for (const [pA, pB, rho] of [
    [0.5, 0.5, 0.5],
    [0.8, 0.95, 0.5],
    [0.9, 0.97, 0.3],
  ] as const) {
    const cells = (['newcombe-cc', 'newcombe', 'bootstrap'] as const).map((m) => pct(pairedCoverage(m, n, pA, pB, rho, pairedReps, seededRandom(`${values.seed}:paired:${n}:${pA}:${pB}`), Math.min(iterations, 1000))));
    lines.push(`| ${n} | ${pA} | ${pB} | ${rho} | ${cells.join(' | ')} |`);
  }
}
process.stdout.write(`${lines.join('\n')}\n`);
