/**
 * One A/B read over several repositories: the questions of several A/B reports (`cita eval <instance>
 * --set …`, one per instance or split) pooled, each question paired with itself under A and B, per
 * language. A repository of 13 question pairs cannot tell a change of one question from noise; four
 * repositories' held-out halves together are ~90 questions a language. Same statistics as a report's
 * gate: a paired permutation test and its paired interval (Newcombe's for 0/1 metrics), Holm's
 * correction over the table, the minimum effect. Then the Spanish–English gap of each run on the
 * pooled pairs (`languageGap`, every dataset as one).
 *
 *   node --import tsx eval/pooled.ts reports/test-ab-x.json reports/test-black-ab-x.json … \
 *     [--dataset pytest-docs --dataset black-docs …] [--metrics file.recall@5,file.acc@1,answer.right]
 *
 * `before.json..after.json` in place of an A/B report pairs two runs of a change of code (`beforeAfter`).
 *
 * A question's results are pooled as the reports hold them; nothing is re-run.
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import type { StatsOptions } from './aggregate.ts';
import { DEFAULT_MIN_EFFECT, verdictOf } from './compare.ts';
import { languageGap } from './languageGap.ts';
import type { Comparison, QuestionResult, Report } from './report/types.ts';
import { comparePaired, holmAdjust } from './stats/index.ts';
import { metricInfo } from './suites/catalogue.ts';

/** One question under A and under B, its id and pair id prefixed by its report's instance. */
export interface PooledQuestion {
  a: QuestionResult;
  b: QuestionResult;
}

/**
 * The questions both runs of each A/B report answered without error (of `datasets` only, when
 * given), paired with themselves. Ids and pair ids are unique within a report, not across: each is
 * prefixed by its report's instance, so two repositories' `q1` stay two questions; the same question
 * of one instance in two reports is refused.
 */
export function poolReports(reports: readonly Report[], datasets: ReadonlySet<string> = new Set()): PooledQuestion[] {
  const pooled: PooledQuestion[] = [];
  const seen = new Set<string>();
  for (const report of reports) {
    if (report.kind !== 'ab' || report.runs.length !== 2) throw new Error(`not an A/B report (${report.meta.instance}: kind ${report.kind}, ${report.runs.length} runs)`);
    const prefix = (q: QuestionResult): QuestionResult => ({ ...q, id: `${report.meta.instance}:${q.id}`, ...(q.pair ? { pair: `${report.meta.instance}:${q.pair}` } : {}) });
    const b = new Map(report.runs[1]!.questions.map((q) => [q.id, q]));
    for (const qa of report.runs[0]!.questions) {
      const qb = b.get(qa.id);
      if (!qb || qa.error || qb.error || (datasets.size > 0 && !datasets.has(qa.dataset))) continue;
      const a = prefix(qa);
      // Two A/Bs over the same questions would count each twice, and a p that small would be a lie.
      if (seen.has(a.id)) throw new Error(`question ${qa.id} of ${report.meta.instance} is in two of the reports: each question is pooled once`);
      seen.add(a.id);
      pooled.push({ a, b: prefix(qb) });
    }
  }
  return pooled;
}

/**
 * A before/after pair read as an A/B: the last run of each report (an eval's only run, an A/B's B side)
 * as A and B. For a change of code rather than of a setting, which no `--set` can switch: the report
 * the code before it made, beside the one the code after it made, on the same instance and questions.
 */
export function beforeAfter(before: Report, after: Report): Report {
  if (before.meta.instance !== after.meta.instance) throw new Error(`before and after are different instances (${before.meta.instance}, ${after.meta.instance})`);
  return { ...after, kind: 'ab', runs: [before.runs[before.runs.length - 1]!, after.runs[after.runs.length - 1]!] };
}

export interface PooledRow {
  metric: string;
  lang: 'all' | 'en' | 'es';
  n: number;
  a: number;
  b: number;
  diff: number;
  low: number;
  high: number;
  p: number;
  pHolm: number;
  verdict: Comparison['verdict'];
}

/** B − A per metric over all pooled questions and per language: the gate's statistics, Holm over the rows. */
export function pooledComparison(pooled: readonly PooledQuestion[], metrics: readonly string[], stats: StatsOptions): PooledRow[] {
  const rows: Omit<PooledRow, 'pHolm' | 'verdict'>[] = [];
  for (const metric of metrics) {
    for (const lang of ['all', 'en', 'es'] as const) {
      const c = comparePaired(
        pooled.filter((q) => lang === 'all' || q.a.lang === lang).map((q) => [q.a.metrics[metric], q.b.metrics[metric]] as const),
        { seed: `${stats.seed}:pooled:${metric}:${lang}`, permutations: stats.permutations, bootstrap: stats.bootstrap },
      );
      if (c) rows.push({ metric, lang, n: c.n, a: c.meanA, b: c.meanB, diff: c.diff, low: c.low, high: c.high, p: c.p });
    }
  }
  const adjusted = holmAdjust(rows.map((r) => r.p));
  return rows.map((r, i) => ({ ...r, pHolm: adjusted[i]!, verdict: verdictOf(r.diff, adjusted[i]!, metricInfo(r.metric), stats.minEffect ?? DEFAULT_MIN_EFFECT) }));
}

function main(): void {
  const { values, positionals } = parseArgs({
    args: process.argv.slice(2),
    allowPositionals: true,
    options: { dataset: { type: 'string', multiple: true, default: [] }, metrics: { type: 'string', default: 'file.recall@5,file.acc@1,answer.right,answer.firstFile,answer.abstained' } },
  });
  if (positionals.length === 0) throw new Error('usage: eval/pooled.ts <A/B report.json | before.json..after.json> … [--dataset name …] [--metrics m1,m2]');
  const metrics = values.metrics!.split(',').filter(Boolean);
  const read = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8')) as Report;
  const reports = positionals.map((arg) => {
    const [before, after] = arg.split('..');
    return after === undefined ? read(arg) : beforeAfter(read(before!), read(after));
  });
  const pooled = poolReports(reports, new Set(values.dataset));
  reports.forEach((r, i) => console.log(`${positionals[i]}: ${pooled.filter((q) => q.a.id.startsWith(`${r.meta.instance}:`)).length} questions (${r.meta.instance})`));
  const s = reports[0]!.meta.stats;
  const stats: StatsOptions = { seed: s.seed, bootstrap: s.bootstrap, permutations: s.permutations, minEffect: s.minEffect ?? DEFAULT_MIN_EFFECT };

  const pct = (x: number) => (100 * x).toFixed(1);
  const pp = (x: number) => `${x >= 0 ? '+' : ''}${pct(x)}`;
  const rows = pooledComparison(pooled, metrics, stats);
  // A metric an older report did not record has no pair to compare: say so rather than drop it silently.
  const missing = metrics.filter((m) => !rows.some((r) => r.metric === m));
  if (missing.length) console.log(`\nno question has a value under both A and B for: ${missing.join(', ')} (a report made before the metric existed?)`);
  console.log(`\nA → B, pooled (${pooled.length} questions; paired permutation test, Holm over ${rows.length} rows, minimum effect ${stats.minEffect} pp)`);
  console.log(`${'metric'.padEnd(24)}${'lang'.padEnd(5)}${'n'.padStart(5)}${'A'.padStart(8)}${'B'.padStart(8)}  ${'Δ B − A [95% CI]'.padEnd(26)}${'p'.padStart(7)}${'p Holm'.padStart(8)}  verdict`);
  for (const r of rows) {
    console.log(`${r.metric.padEnd(24)}${r.lang.padEnd(5)}${String(r.n).padStart(5)}${pct(r.a).padStart(8)}${pct(r.b).padStart(8)}  ${`${pp(r.diff)} [${pp(r.low)}, ${pp(r.high)}]`.padEnd(26)}${r.p.toFixed(3).padStart(7)}${r.pHolm.toFixed(3).padStart(8)}  ${r.verdict}`);
  }
  for (const run of ['a', 'b'] as const) {
    console.log(`\nSpanish − English in ${run.toUpperCase()}, on the pooled pairs (Holm over the rows)`);
    const gaps = languageGap(pooled.map((q) => ({ ...q[run], dataset: 'pooled' })), stats, metrics);
    for (const g of gaps) {
      console.log(`${g.metric.padEnd(24)}n=${String(g.n).padStart(3)}  en ${pct(g.meanEn).padStart(5)}  es ${pct(g.meanEs).padStart(5)}  ${`${pp(g.diff)} [${pp(g.low)}, ${pp(g.high)}]`.padEnd(26)} p ${g.p.toFixed(3)}  p Holm ${g.pHolm.toFixed(3)}  ${g.verdict}`);
    }
  }
}

if (process.argv[1]?.endsWith('eval/pooled.ts')) main();
