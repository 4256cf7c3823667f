/**
 * Nightly regression check: evaluates the instance's default config, compares it question by question
 * with the committed baseline (paired tests), prints a verdict table and exits 1 when a primary
 * metric (`eval.primary`, per dataset × language) is worse: Holm-adjusted p < 0.05 over that family
 * and at least `eval.minEffect` points; or when the median latency is confidently slower than the
 * baseline's by more than `eval.latencyTolerance` (eval/latencyGate.ts: conservative, since the two
 * runs ran at different times). Every other metric is compared too, BH-adjusted, for exploration
 * only. `--update-baseline` deliberately replaces the baseline with this run (after writing the comparison
 * with the old one, when there is one, as reports/nightly.*).
 *
 *   npm run nightly [-- <instance>] [--update-baseline] [--baseline reports/baseline.json] [--out reports] [--limit n] [--dataset name]… [--split dev|test] [--set k=v]
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { findRoot } from '../pipeline/config/load.ts';
import { compareRuns, DEFAULT_MIN_EFFECT, DEFAULT_PRIMARY, primaryComparisons } from './compare.ts';
import { evaluate } from './evaluate.ts';
import { compareLatency } from './latencyCompare.ts';
import { DEFAULT_LATENCY_TOLERANCE, latencyGate } from './latencyGate.ts';
import { comparisonTable } from './report/format.ts';
import { markdownTable } from './report/markdown.ts';
import { REPORT_VERSION, type Report } from './report/types.ts';
import { writeReport } from './report/write.ts';
import { summaryLines } from './summary.ts';

export function readReport(file: string): Report {
  if (!fs.existsSync(file)) throw new Error(`no baseline at ${file}: run \`npm run nightly -- --update-baseline\` to create one deliberately`);
  const report = JSON.parse(fs.readFileSync(file, 'utf8')) as Report;
  if (report.version !== REPORT_VERSION || !Array.isArray(report.runs) || report.runs.length === 0)
    throw new Error(`${file} is not a cita report of version ${REPORT_VERSION}`);
  return report;
}

/**
 * The nightly report: baseline vs current, and the regressions that fail it: primary metrics only
 * (the current run's `eval.primary`), Holm over their dataset × language family, at least the
 * minimum effect. The exploratory comparisons (BH) are in the report but never fail it.
 */
export function nightlyReport(baseline: Report, current: Report, baselineFile: string): Report {
  const base = baseline.runs.at(-1)!;
  const now = current.runs[0]!;
  const s = current.meta.stats;
  const stats = { seed: s.seed, bootstrap: s.bootstrap, permutations: s.permutations, minEffect: s.minEffect ?? DEFAULT_MIN_EFFECT };
  const comparisons = compareRuns(base.questions, now.questions, current.metrics, stats);
  const primary = primaryComparisons(base.questions, now.questions, current.metrics, s.primary ?? DEFAULT_PRIMARY, stats);
  if (primary.length === 0)
    throw new Error(`no primary metric (${(s.primary ?? DEFAULT_PRIMARY).map((p) => p.metric).join(', ')}) applies to the questions both runs share: set eval.primary to metrics these datasets have, or the gate cannot fail`);
  const gating = new Set(current.metrics.filter((m) => m.unit !== 'ms').map((m) => m.name));
  const regressions = primary.filter((c) => c.verdict === 'worse' && gating.has(c.metric));
  // A question that errors has null metrics and would silently drop out of the paired tests.
  const errors = now.questions.filter((q) => q.error).map((q) => q.id);
  const latencyComparison = compareLatency(base.questions, now.questions, stats, { order: 'separate', warmup: current.meta.timing?.warmup ?? 0 });
  const latency = latencyGate(latencyComparison, toleranceOf(now.config));
  return {
    ...current,
    kind: 'nightly',
    runs: [{ ...base, label: 'baseline' }, { ...now, label: 'current' }],
    comparisons,
    primary,
    ...(latencyComparison ? { latencyComparison } : {}),
    verdict: { status: regressions.length || errors.length || latency.status === 'fail' ? 'fail' : 'pass', regressions, baseline: baselineFile, errors, latency },
  };
}

/** `eval.latencyTolerance` of the current run's resolved config (the default for a config without it). */
function toleranceOf(config: unknown): number {
  const t = (config as { eval?: { latencyTolerance?: unknown } } | undefined)?.eval?.latencyTolerance;
  return typeof t === 'number' ? t : DEFAULT_LATENCY_TOLERANCE;
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      'update-baseline': { type: 'boolean' },
      baseline: { type: 'string', default: 'reports/baseline.json' },
      out: { type: 'string', default: 'reports' },
      limit: { type: 'string' },
      dataset: { type: 'string', multiple: true, default: [] },
      split: { type: 'string' },
      set: { type: 'string', multiple: true, default: [] },
    },
  });
  if (values.split !== undefined && values.split !== 'dev' && values.split !== 'test') throw new Error(`--split: expected dev or test, got ${JSON.stringify(values.split)}`);
  const root = findRoot();
  const instance = positionals[0] ?? 'pytest';
  const limit = values.limit === undefined ? undefined : Number(values.limit);
  const baselineFile = path.resolve(root, values.baseline);
  const outDir = path.resolve(root, values.out);
  if (!values['update-baseline']) readReport(baselineFile); // fail before the long run, not after
  const current = await evaluate({
    root,
    instance,
    a: { overlays: [], overrides: values.set },
    datasets: values.dataset,
    ...(values.split ? { split: values.split as 'dev' | 'test' } : {}),
    limit,
    // The gate times the current code against the baseline: every question runs now.
    cache: false,
    argv: ['npm', 'run', 'nightly', '--', ...process.argv.slice(2)],
    log: (m) => process.stderr.write(`${m}\n`),
    onQuestion: (_l, done, total, r) => {
      if (done % 10 === 0 || done === total || r.error) process.stderr.write(`[${done}/${total}] ${r.id}${r.error ? ` ERROR ${r.error}` : ''}\n`);
    },
  });
  if (values['update-baseline']) {
    // What the replacement moves is worth seeing: compared with the old baseline first, when there is one.
    if (fs.existsSync(baselineFile)) {
      const report = nightlyReport(readReport(baselineFile), current, path.relative(root, baselineFile));
      const compared = writeReport(report, outDir, 'nightly');
      process.stdout.write(`${markdownTable(comparisonTable(report, report.primary!)).join('\n')}\n\nagainst the old baseline (${report.verdict!.status}): ${compared.md}\n`);
    }
    const files = writeReport(current, path.dirname(baselineFile), path.basename(baselineFile, '.json'));
    process.stdout.write(`${summaryLines(current).join('\n')}\n\nbaseline written: ${files.json}\n`);
    return 0;
  }
  const baseline = readReport(baselineFile);
  const changed = baseline.meta.datasets.filter((d) => current.meta.datasets.find((c) => c.name === d.name)?.sha256 !== d.sha256);
  if (changed.length) process.stderr.write(`note: datasets changed since the baseline (${changed.map((d) => d.name).join(', ')}): questions are paired by id\n`);
  if (baseline.runs.at(-1)!.configHash !== current.runs[0]!.configHash) process.stderr.write(`note: the config differs from the baseline's (${baseline.runs.at(-1)!.configHash} → ${current.runs[0]!.configHash})\n`);
  const report = nightlyReport(baseline, current, path.relative(root, baselineFile));
  const files = writeReport(report, outDir, 'nightly');
  process.stdout.write(`${markdownTable(comparisonTable(report, report.primary!)).join('\n')}\n`);
  const v = report.verdict!;
  const family = `${report.primary!.length} primary comparisons, Holm; minimum effect ${report.meta.stats.minEffect ?? DEFAULT_MIN_EFFECT} pp`;
  process.stdout.write(
    v.status === 'pass'
      ? `\nPASS: no primary metric is worse than the baseline (${family}; ${report.comparisons!.length} exploratory comparisons in the report)\n`
      : `\nFAIL: ${v.regressions.length} significant regressions (${family}), ${v.errors?.length ?? 0} failed questions${v.errors?.length ? ` (${v.errors.slice(0, 5).join(', ')})` : ''}${v.latency?.status === 'fail' ? ', latency over the tolerance' : ''}\n` +
          (v.regressions.length ? `${markdownTable(comparisonTable(report, v.regressions)).join('\n')}\n` : ''),
  );
  if (v.latency) process.stdout.write(`latency ${v.latency.status}: ${v.latency.reason}\n`);
  process.stdout.write(`report: ${files.md}\n        ${files.html}\n`);
  return v.status === 'pass' ? 0 : 1;
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('eval/nightly.ts')) {
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`nightly: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(2);
    },
  );
}
