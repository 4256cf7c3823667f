import { COLLECTIONS } from '../../pipeline/types.ts';
import type { Aggregate, Comparison, DatasetInfo, Group, MetricInfo, Report, RunReport } from './types.ts';

/**
 * Formatting shared by the Markdown and HTML renderings of a report: numbers by `MetricInfo.unit`,
 * group labels, and the summary tables as plain data (`Table`), so both pages show the same figures.
 * Everything here is pure; nothing escapes text (each renderer escapes for its own format).
 */

/** Shown wherever a value does not exist: a metric with n = 0 in a group, a missing aggregate. */
export const DASH = '–';

export type Unit = MetricInfo['unit'];

export function isFiniteNumber(x: unknown): x is number {
  return typeof x === 'number' && Number.isFinite(x);
}

/** `0.412` → `41.2%`. */
export function formatShare(x: number, digits = 1): string {
  if (!isFiniteNumber(x)) return DASH;
  return `${noNegativeZero((x * 100).toFixed(digits))}%`;
}

/** `109.4` → `109 ms`; below 10 ms one decimal (`2.5 ms`). */
export function formatMs(ms: number): string {
  if (!isFiniteNumber(ms)) return DASH;
  return `${bare(ms, 'ms')} ms`;
}

/** The number alone, scaled for its unit: a share in percent (`41.2`), ms rounded, counts to 2 decimals. */
export function bare(x: number, unit: Unit): string {
  if (!isFiniteNumber(x)) return DASH;
  switch (unit) {
    case 'share':
      return noNegativeZero((x * 100).toFixed(1));
    case 'ms':
      return noNegativeZero(Math.abs(x) < 10 ? x.toFixed(1) : x.toFixed(0));
    case 'count':
      return noNegativeZero(Number.isInteger(x) ? String(x) : x.toFixed(2));
  }
}

/** A value with its unit: `41.2%`, `109 ms`, `2.35`. */
export function formatValue(x: number | null | undefined, unit: Unit): string {
  if (!isFiniteNumber(x)) return DASH;
  if (unit === 'share') return formatShare(x);
  if (unit === 'ms') return formatMs(x);
  return bare(x, unit);
}

/** A mean and its 95% CI in the unit's scale, without the unit: `41.2 [35.0, 47.9]`. */
export function formatCi(mean: number, low: number, high: number, unit: Unit): string {
  if (!isFiniteNumber(mean)) return DASH;
  if (!isFiniteNumber(low) || !isFiniteNumber(high)) return bare(mean, unit);
  return `${bare(mean, unit)} [${bare(low, unit)}, ${bare(high, unit)}]`;
}

/**
 * Below this many questions a figure is flagged (`SMALL_N_MARK` after n): its interval is wide and
 * only a large difference can be told from noise (and the normal approximations behind score
 * intervals are at their weakest).
 */
export const SMALL_N = 30;
export const SMALL_N_MARK = '†';
/** The legend line that goes with any table using the mark. */
export const SMALL_N_NOTE = `${SMALL_N_MARK} fewer than ${SMALL_N} questions: a wide interval, read with care.`;

/** `n`, or `n†` below SMALL_N. */
export function formatN(n: number): string {
  return n > 0 && n < SMALL_N ? `${n}${SMALL_N_MARK}` : String(n);
}

/** `mean [low, high] (n)`, or `–` when the metric has no question in the group; `(n†)` when n < 30. */
export function formatAggregate(agg: Aggregate | undefined, unit: Unit): string {
  if (!agg || agg.n === 0 || !isFiniteNumber(agg.mean)) return DASH;
  return `${formatCi(agg.mean, agg.low, agg.high, unit)} (${formatN(agg.n)})`;
}

/** A signed number in the unit's scale: `+3.1`, `-12`, `0.0`. */
export function signed(x: number, unit: Unit): string {
  if (!isFiniteNumber(x)) return DASH;
  const magnitude = bare(Math.abs(x), unit);
  if (/^0(\.0+)?$/.test(magnitude)) return magnitude;
  return `${x < 0 ? '-' : '+'}${magnitude}`;
}

/** A difference B − A with its CI: `+3.1 pp [+0.5, +5.8]` (shares in percentage points), `+12 ms [+3, +20]`. */
export function formatDiff(diff: number, low: number, high: number, unit: Unit): string {
  if (!isFiniteNumber(diff)) return DASH;
  const suffix = unit === 'share' ? ' pp' : unit === 'ms' ? ' ms' : '';
  const ci = isFiniteNumber(low) && isFiniteNumber(high) ? ` [${signed(low, unit)}, ${signed(high, unit)}]` : '';
  return `${signed(diff, unit)}${suffix}${ci}`;
}

/** `p = 0.003`, `p < 0.001`. */
export function formatP(p: number): string {
  if (!isFiniteNumber(p)) return DASH;
  return p < 0.001 ? 'p < 0.001' : `p = ${p.toFixed(3)}`;
}

/** `code-qa · es · issue-text · code` (dataset · language · kind · expected source), or `all`. */
export function groupLabel(group: Group): string {
  const parts = [group.dataset, group.lang, group.kind, group.source].filter((p): p is NonNullable<typeof p> => p !== undefined);
  return parts.length === 0 ? 'all' : parts.join(' · ');
}

export function sameGroup(a: Group, b: Group): boolean {
  return a.dataset === b.dataset && a.lang === b.lang && a.kind === b.kind && a.source === b.source;
}

export function verdictMark(verdict: Comparison['verdict']): string {
  return verdict === 'better' ? '▲ better' : verdict === 'worse' ? '▼ worse' : '– same';
}

/** What a table cell's numbers are in, for the metric column: ` (%)`, ` (ms)`, or nothing. */
export function unitHint(unit: Unit): string {
  return unit === 'share' ? ' (%)' : unit === 'ms' ? ' (ms)' : '';
}

export function shortHash(hash: string, length = 12): string {
  return hash.length > length ? hash.slice(0, length) : hash;
}

/** A dataset as the reproducibility table names it: with how its questions were typed, when not as written. */
export function datasetLabel(d: Pick<DatasetInfo, 'name' | 'typed'>): string {
  return d.typed ? `${d.name} (typed ${d.typed})` : d.name;
}

/** The metric's description from the report, or a neutral stand-in for a name the report does not describe. */
export function metricInfo(report: Report, name: string): MetricInfo {
  return (
    report.metrics.find((m) => m.name === name) ?? {
      name,
      label: name,
      direction: 'higher',
      unit: 'count',
      description: '',
    }
  );
}

/** Every metric the report describes, then any other metric its aggregates or comparisons name. */
export function allMetrics(report: Report): MetricInfo[] {
  const names = new Set(report.metrics.map((m) => m.name));
  const extra: string[] = [];
  const note = (name: string) => {
    if (!names.has(name)) {
      names.add(name);
      extra.push(name);
    }
  };
  for (const run of report.runs) for (const a of run.aggregates) note(a.metric);
  for (const c of report.comparisons ?? []) note(c.metric);
  return [...report.metrics, ...extra.map((name) => metricInfo(report, name))];
}

export function findAggregate(run: RunReport, metric: string, group: Group): Aggregate | undefined {
  return run.aggregates.find((a) => a.metric === metric && sameGroup(a.group, group));
}

export function reportTitle(report: Report): string {
  const kind = report.kind === 'ab' ? 'A/B comparison' : report.kind === 'nightly' ? 'nightly regression' : 'run';
  return `cita evaluation report: ${kind} · ${report.meta.instance}`;
}

/** The two runs' labels in comparison order: A then B (or baseline then current). */
export function comparedLabels(report: Report): [string, string] {
  return [report.runs[0]?.label ?? 'A', report.runs[1]?.label ?? 'B'];
}

// ---------------------------------------------------------------------------------------------
// Tables as plain data: the Markdown and HTML pages render these same rows.

export interface TableRow {
  cells: string[];
  /** A significant comparison row, in its direction. */
  mark?: 'better' | 'worse';
}

export interface Table {
  head: string[];
  align: ('left' | 'right')[];
  rows: TableRow[];
}

const LANG_COLUMNS: { title: string; group: Group }[] = [
  { title: 'all', group: {} },
  { title: 'en', group: { lang: 'en' } },
  { title: 'es', group: { lang: 'es' } },
];

/** Every metric over all questions, English and Spanish side by side: `mean [low, high] (n)`. */
export function metricTable(report: Report, run: RunReport): Table {
  return {
    head: ['metric', ...LANG_COLUMNS.map((c) => c.title)],
    align: ['left', 'right', 'right', 'right'],
    rows: allMetrics(report).map((m) => ({
      cells: [
        `${m.label}${unitHint(m.unit)}`,
        ...LANG_COLUMNS.map((c) => formatAggregate(findAggregate(run, m.name, c.group), m.unit)),
      ],
    })),
  };
}

/**
 * Every metric per question kind (or expected source), English and Spanish side by side. A metric
 * gets a row for a kind when the run has any aggregate for it in that kind.
 */
export function metricByTable(report: Report, run: RunReport, dimension: 'kind' | 'source'): Table {
  const values = [
    ...new Set(
      run.aggregates.map((a) => a.group[dimension]).filter((v): v is string => typeof v === 'string'),
    ),
  ].sort();
  const rows: TableRow[] = [];
  for (const value of values) {
    for (const m of allMetrics(report)) {
      const aggs = LANG_COLUMNS.map((c) =>
        findAggregate(run, m.name, { ...c.group, [dimension]: value } as Group),
      );
      if (aggs.every((a) => a === undefined)) continue;
      rows.push({ cells: [value, `${m.label}${unitHint(m.unit)}`, ...aggs.map((a) => formatAggregate(a, m.unit))] });
    }
  }
  return {
    head: [dimension, 'metric', ...LANG_COLUMNS.map((c) => c.title)],
    align: ['left', 'left', 'right', 'right', 'right'],
    rows,
  };
}

export function fusionTable(run: RunReport): Table {
  return {
    head: ['kind', 'questions', ...COLLECTIONS.map((c) => `${c} slots`), 'even quota', 'wasted slots'],
    align: ['left', 'right', ...COLLECTIONS.map(() => 'right' as const), 'right', 'right'],
    rows: run.fusion.map((f) => ({
      cells: [
        f.kind,
        String(f.questions),
        ...COLLECTIONS.map((c) => (isFiniteNumber(f.meanSlots[c]) ? f.meanSlots[c].toFixed(2) : DASH)),
        formatShare(f.evenQuota),
        formatShare(f.wastedSlots),
      ],
    })),
  };
}

export function truncationTable(run: RunReport): Table {
  return {
    head: ['collection', 'chunks', 'window', 'largest', 'over window'],
    align: ['left', 'right', 'right', 'right', 'right'],
    rows: run.truncation.map((t) => ({
      cells: [t.collection, String(t.chunks), String(t.window), String(t.maxTokens), t.overWindow > 0 ? `${t.overWindow} ⚠` : '0'],
      ...(t.overWindow > 0 ? { mark: 'worse' as const } : {}),
    })),
  };
}

/**
 * What the index and the model can reach, per dataset and language: questions whose gold files are
 * all outside the index (unreachable: counted as misses in the retrieval means, and here apart), the
 * recall ceiling, and questions longer than the model window as a query.
 */
export function coverageTable(run: RunReport): Table {
  return {
    head: ['dataset', 'lang', 'questions', 'with gold files', 'unreachable', 'partly reachable', 'recall ceiling', 'over window', 'longest query'],
    align: ['left', 'left', 'right', 'right', 'right', 'right', 'right', 'right', 'right'],
    rows: (run.coverage ?? []).map((c) => ({
      cells: [
        c.dataset ?? 'all',
        c.lang ?? 'all',
        String(c.questions),
        String(c.withGoldFiles),
        c.unreachable > 0 ? `${c.unreachable} ⚠` : '0',
        String(c.partlyReachable),
        c.recallCeiling === null ? DASH : formatShare(c.recallCeiling),
        c.overWindow > 0 ? `${c.overWindow} ⚠` : '0',
        c.window === null ? DASH : `${c.maxQueryTokens} / ${c.window}`,
      ],
    })),
  };
}

export function latencyTable(run: RunReport): Table {
  return {
    head: ['stage', 'n', 'p50', 'p95', 'mean'],
    align: ['left', 'right', 'right', 'right', 'right'],
    rows: run.latency.map((l) => ({
      cells: [l.stage, String(l.n), formatMs(l.p50), formatMs(l.p95), formatMs(l.mean)],
    })),
  };
}

/** The adjusted-p column's title, named for its method: `p (Holm)`, `p (BH)`, or `p (adjusted)` for a mixed or older table. */
export function adjustedPTitle(comparisons: Comparison[]): string {
  const methods = new Set(comparisons.map((c) => c.adjustment));
  if (methods.size === 1 && methods.has('holm')) return 'p (Holm)';
  if (methods.size === 1 && methods.has('bh')) return 'p (BH)';
  return 'p (adjusted)';
}

/**
 * B vs A per metric and group, raw p beside the p adjusted over the table (Holm for the gate's
 * family, Benjamini–Hochberg for the exploratory one); significant rows carry `mark` in their direction.
 */
export function comparisonTable(report: Report, comparisons: Comparison[]): Table {
  const [a, b] = comparedLabels(report);
  return {
    head: ['metric', 'group', 'n', a, b, `Δ ${b} − ${a} [95% CI]`, 'p', adjustedPTitle(comparisons), 'verdict'],
    align: ['left', 'left', 'right', 'right', 'right', 'right', 'right', 'right', 'left'],
    rows: comparisons.map((c) => {
      const m = metricInfo(report, c.metric);
      const empty = c.n === 0;
      // Over each side's own answers: the answers scored per side, and each side's answered rate beside its value.
      const side = (mean: number, answered: number | undefined) => (c.own ? `${formatValue(mean, m.unit)} (answered ${formatShare(answered ?? NaN)})` : formatValue(mean, m.unit));
      const row: TableRow = {
        cells: [
          c.own ? `${m.label} (own answers)` : m.label,
          groupLabel(c.group),
          c.own ? `${formatN(c.own.nA)} / ${formatN(c.own.nB)}` : formatN(c.n),
          empty ? DASH : side(c.meanA, c.own?.answeredA),
          empty ? DASH : side(c.meanB, c.own?.answeredB),
          empty ? DASH : formatDiff(c.diff, c.low, c.high, m.unit),
          empty ? DASH : formatP(c.p),
          empty || c.pAdjusted === undefined ? DASH : formatP(c.pAdjusted),
          verdictMark(c.verdict),
        ],
      };
      if (c.verdict !== 'same') row.mark = c.verdict;
      return row;
    }),
  };
}

function noNegativeZero(s: string): string {
  return /^-0(\.0+)?$/.test(s) ? s.slice(1) : s;
}

/** Spanish vs English on paired questions: means, es − en with its CI, raw and Holm-adjusted p. */
export function languageGapTable(report: Report, run: RunReport): Table {
  return {
    head: ['metric', 'dataset', 'pairs', 'en', 'es', 'Δ es − en [95% CI]', 'p', 'p (Holm)', 'verdict'],
    align: ['left', 'left', 'right', 'right', 'right', 'right', 'right', 'right', 'left'],
    rows: (run.languageGap ?? []).map((g) => {
      const m = metricInfo(report, g.metric);
      const worse = g.diff < 0 === (m.direction === 'higher');
      const row: TableRow = {
        cells: [
          m.label,
          g.dataset,
          formatN(g.n),
          formatValue(g.meanEn, m.unit),
          formatValue(g.meanEs, m.unit),
          formatDiff(g.diff, g.low, g.high, m.unit),
          formatP(g.p),
          formatP(g.pHolm),
          g.verdict === 'gap' ? (worse ? '▼ es worse' : '▲ es better') : '–',
        ],
      };
      if (g.verdict === 'gap') row.mark = worse ? 'worse' : 'better';
      return row;
    }),
  };
}

/** Each run's judge on the calibration set: overall, held-out half, per trap (en / es). */
export function judgeCalibrationTable(report: Report): Table {
  const runs = report.runs.filter((r) => r.judgeCalibration);
  const traps = [...new Set(runs.flatMap((r) => r.judgeCalibration!.cells.map((c) => c.trap)))].filter((t) => t !== 'all');
  const pct = (c: { n: number; correct: number } | undefined) => (c && c.n ? `${formatShare(c.correct / c.n, 0)} (${c.correct}/${c.n})` : '–');
  return {
    head: ['run', 'judge', 'all', 'held-out', 'en', 'es', ...traps],
    align: ['left', 'left', 'right', 'right', 'right', 'right', ...traps.map(() => 'right' as const)],
    rows: runs.map((r) => {
      const cal = r.judgeCalibration!;
      const at = (trap: string, lang: string) => cal.cells.find((c) => c.trap === trap && c.lang === lang);
      return { cells: [r.label, cal.judge, pct(at('all', 'all')), pct(cal.heldOut), pct(at('all', 'en')), pct(at('all', 'es')), ...traps.map((t) => pct(at(t, 'all')))] };
    }),
  };
}

// ---------------------------------------------------------------------------------------------
// What the statistics are, in words shared by both pages.

/** The minimum effect a report was judged with, in points (2 for reports written before it existed). */
export function minEffectOf(report: Report): number {
  return report.meta.stats.minEffect ?? 2;
}

/** Under the gate family's table. */
export function primaryNote(report: Report): string {
  return (
    `The gate's family: each primary metric (eval.primary) per dataset × language, paired over the questions both runs answered; ` +
    `p from a two-sided paired permutation test, Holm-adjusted over these ${report.primary?.length ?? 0} comparisons (family-wise error ≤ 5%). ` +
    `▲/▼ needs p (Holm) < 0.05 and a difference of at least ${minEffectOf(report)} pp. ` +
    `CI: Newcombe's paired score interval for 0/1 metrics, else the paired bootstrap. ${SMALL_N_NOTE}`
  );
}

/** Under the exploratory table. */
export function exploratoryNote(report: Report, comparisons: Comparison[]): string {
  const better = comparisons.filter((c) => c.verdict === 'better').length;
  const worse = comparisons.filter((c) => c.verdict === 'worse').length;
  return (
    `Exploratory: every metric and group, paired over the questions where both runs have the metric (p: two-sided paired permutation test), ` +
    `except metrics of answers (faithfulness, citation checks): those over each run's own answers, unpaired, with its answered rate beside; ` +
    `${adjustedPTitle(comparisons)} adjusted over this whole table (Benjamini–Hochberg: false discovery rate 5%); ` +
    `▲/▼ needs the adjusted p < 0.05 and at least ${minEffectOf(report)} pp for shares. ${better} ▲ better, ${worse} ▼ worse; the rest – same. ` +
    `Leads to look at: only the primary metrics above can fail the nightly. ${SMALL_N_NOTE}`
  );
}

/** Under the metric tables. */
export const INTERVAL_NOTE =
  'Each cell: mean [95% CI] (n); – where the metric has no question. CI: the Wilson score interval (continuity-corrected) ' +
  `where every value is 0 or 1, the percentile bootstrap otherwise (MRR, nDCG, latency). ${SMALL_N_NOTE}`;
