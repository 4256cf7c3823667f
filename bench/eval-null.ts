/**
 * The null simulation of #13: how often the nightly gate fails on a night where nothing changed.
 * On a real A/B report, A's and B's result for each question are swapped at random (a fair coin per
 * question), so the simulated runs are exchangeable; any "worse" is a false alarm. Prints the
 * failure rate of the old gate (any quality metric of any group worse at raw p < 0.05) beside the new
 * one (primary metrics per dataset × language, Holm, minimum effect), each with its Wilson 95% CI.
 *
 *   node --import tsx bench/eval-null.ts [--report reports/ab-model.json] [--nights 200] [--permutations 1000] [--seed null] [--instance pytest]
 *
 * The primary metrics and minimum effect are the instance's (`eval.primary`, `eval.minEffect`),
 * restricted to the datasets the report holds. Deterministic for a given seed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { findRoot, loadConfig } from '../pipeline/config/load.ts';
import { simulateNullNights } from '../eval/nullSimulation.ts';
import type { Report } from '../eval/report/types.ts';
import { seededRandom, wilsonInterval } from '../eval/stats/index.ts';

const { values } = parseArgs({
  options: {
    report: { type: 'string', default: 'reports/ab-model.json' },
    nights: { type: 'string', default: '200' },
    permutations: { type: 'string', default: '1000' },
    seed: { type: 'string', default: 'null' },
    instance: { type: 'string', default: 'pytest' },
  },
});
const root = findRoot();
const report = JSON.parse(fs.readFileSync(path.resolve(root, values.report), 'utf8')) as Report;
if (report.runs.length !== 2) throw new Error(`${values.report} has ${report.runs.length} run(s); the null simulation needs an A/B report (two runs)`);
const { config } = loadConfig(values.instance, { root, overlays: [], overrides: [] });
const nights = Number(values.nights);
const stats = { seed: report.meta.stats.seed, bootstrap: 100, permutations: Number(values.permutations), minEffect: config.eval.minEffect };
const started = Date.now();
const s = simulateNullNights(report.runs[0]!.questions, report.runs[1]!.questions, report.metrics, config.eval.primary, stats, nights, seededRandom(values.seed));
const rate = (k: number) => {
  const ci = wilsonInterval(k, nights);
  return `${((100 * k) / nights).toFixed(1)}% [${(100 * ci.low).toFixed(1)}, ${(100 * ci.high).toFixed(1)}]`;
};
process.stdout.write(
  [
    `null simulation: ${values.report}, ${report.runs[0]!.questions.length} questions, ${nights} nights of random per-question A/B swaps (seed ${values.seed}, ${values.permutations} permutations)`,
    '',
    '| gate | comparisons per night | failed nights | failure rate [Wilson 95% CI] |',
    '| --- | ---: | ---: | ---: |',
    `| old: any metric × group, raw p < 0.05 | ${s.oldComparisons} | ${s.oldFailures} | ${rate(s.oldFailures)} |`,
    `| new: primary × dataset × language, Holm, ≥ ${config.eval.minEffect} pp | ${s.newComparisons} | ${s.newFailures} | ${rate(s.newFailures)} |`,
    '',
    `${((Date.now() - started) / 1000).toFixed(0)} s`,
    '',
  ].join('\n'),
);
