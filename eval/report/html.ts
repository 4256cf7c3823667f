import { COLLECTIONS, type Collection } from '../../pipeline/types.ts';
import {
  DASH,
  allMetrics,
  comparedLabels,
  comparisonTable,
  exploratoryNote,
  findAggregate,
  INTERVAL_NOTE,
  languageGapTable,
  minEffectOf,
  primaryNote,
  formatCi,
  formatDiff,
  formatP,
  formatShare,
  formatValue,
  coverageTable,
  fusionTable,
  judgeCalibrationTable,
  groupLabel,
  isFiniteNumber,
  latencyTable,
  metricByTable,
  metricInfo,
  metricTable,
  reportTitle,
  shortHash,
  datasetLabel,
  truncationTable,
  type Table,
} from './format.ts';
import { drilldownSections, latencyGateSentence, latencySentence } from './drilldown.ts';
import type { Comparison, Lang, MetricInfo, QuestionResult, Report, RunReport, TruncationRow } from './types.ts';

/**
 * The report as ONE self-contained HTML page: inline CSS, inline SVG charts, no script, no external
 * reference. Every piece of text from the report goes through `escapeHtml`, so questions holding
 * markup stay text. Chart geometry is exported so a test can check where a value is drawn.
 */
export function renderHtml(report: Report): string {
  const title = reportTitle(report);
  const body: string[] = [`<h1>${escapeHtml(title)}</h1>`, reproducibility(report)];
  if (report.verdict) body.push(verdictSection(report));
  if (report.kind !== 'run' && report.primary?.length) body.push(primarySection(report, report.primary));
  if (report.kind !== 'run' && report.comparisons) body.push(comparisonSection(report, report.comparisons));
  body.push(abDetails(report));
  for (const run of report.runs) body.push(runSection(report, run));
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${CSS}</style>`,
    '</head>',
    '<body>',
    ...body,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/** Text or attribute value made inert: `& < > " '`. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

// ---------------------------------------------------------------------------------------------
// Chart geometry (pixels). y grows downwards, as in SVG.

/** Per-language bars of the ranking metrics (shares in [0, 1]) with their 95% CI whiskers. */
export const RANKING_CHART = {
  top: 16,
  plotHeight: 200,
  left: 44,
  right: 12,
  bottom: 84,
  groupWidth: 64,
  barWidth: 22,
  barGap: 4,
} as const;

/** Where a share is drawn on the ranking chart: `top + (1 − v) × plotHeight`, clamped to [0, 1]. */
export function rankingY(value: number): number {
  const v = Math.min(1, Math.max(0, value));
  return RANKING_CHART.top + (1 - v) * RANKING_CHART.plotHeight;
}

/** Horizontal stacked bars of mean slots per collection, one bar per question kind. */
export const SLOT_CHART = { top: 28, left: 120, width: 360, right: 150, rowHeight: 24, barHeight: 16 } as const;

/** A chunk-size histogram per collection; the model window is a vertical line. */
export const HISTOGRAM_CHART = { top: 20, left: 44, width: 320, right: 16, plotHeight: 100, bottom: 34 } as const;

/** A/B differences as dots with CI whiskers on a scale symmetric around 0. */
export const DELTA_CHART = { top: 24, left: 240, width: 300, right: 200, rowHeight: 20 } as const;

const LANGS: Lang[] = ['en', 'es'];
const LANG_COLOUR: Record<Lang, string> = { en: '#4e79a7', es: '#e15759' };
const COLLECTION_COLOUR: Record<Collection, string> = { docs: '#4e79a7', code: '#f28e2b', issues: '#59a14f' };

/** The metrics of the ranking chart: recall of any kind, acc@1, MRR and nDCG. */
export function isRankingMetric(m: MetricInfo): boolean {
  return m.unit !== 'ms' && /recall|acc@1|mrr|ndcg/i.test(m.name);
}

function px(n: number): string {
  return String(Math.round(n * 100) / 100);
}

function svgOpen(width: number, height: number, label: string): string {
  return `<svg class="chart" width="${px(width)}" height="${px(height)}" viewBox="0 0 ${px(width)} ${px(height)}" role="img" aria-label="${escapeHtml(label)}">`;
}

function tooltip(text: string): string {
  return `<title>${escapeHtml(text)}</title>`;
}

/** Chart (1): per-language bars with 95% CI whiskers, one group of bars per ranking metric. */
export function rankingChart(report: Report, run: RunReport): string {
  const metrics = allMetrics(report).filter(isRankingMetric);
  if (metrics.length === 0) return '';
  const c = RANKING_CHART;
  const width = c.left + metrics.length * c.groupWidth + c.right;
  const height = c.top + c.plotHeight + c.bottom;
  const baseline = rankingY(0);
  const parts: string[] = [svgOpen(width, height, `Ranking metrics per language, run ${run.label}`)];
  for (const tick of [0, 0.25, 0.5, 0.75, 1]) {
    const y = px(rankingY(tick));
    parts.push(
      `<line class="grid" x1="${c.left}" x2="${px(width - c.right)}" y1="${y}" y2="${y}"/>`,
      `<text class="tick" x="${c.left - 6}" y="${y}" text-anchor="end" dominant-baseline="middle">${tick * 100}%</text>`,
    );
  }
  metrics.forEach((m, i) => {
    const x0 = c.left + i * c.groupWidth;
    const inset = (c.groupWidth - 2 * c.barWidth - c.barGap) / 2;
    LANGS.forEach((lang, j) => {
      const x = x0 + inset + j * (c.barWidth + c.barGap);
      const cx = x + c.barWidth / 2;
      const agg = findAggregate(run, m.name, { lang });
      const attrs = `data-run="${escapeHtml(run.label)}" data-metric="${escapeHtml(m.name)}" data-lang="${lang}"`;
      if (!agg || agg.n === 0 || !isFiniteNumber(agg.mean)) {
        parts.push(`<text class="na" ${attrs} x="${px(cx)}" y="${px(baseline - 4)}" text-anchor="middle">${DASH}</text>`);
        return;
      }
      const top = rankingY(agg.mean);
      const label = `${m.label} · ${lang}: ${formatCi(agg.mean, agg.low, agg.high, m.unit)} (n = ${agg.n})`;
      parts.push(
        `<rect class="bar" ${attrs} x="${px(x)}" y="${px(top)}" width="${c.barWidth}" height="${px(baseline - top)}" fill="${LANG_COLOUR[lang]}">${tooltip(label)}</rect>`,
      );
      if (isFiniteNumber(agg.low) && isFiniteNumber(agg.high)) {
        const yLow = px(rankingY(agg.low));
        const yHigh = px(rankingY(agg.high));
        parts.push(
          `<line class="whisker" ${attrs} x1="${px(cx)}" x2="${px(cx)}" y1="${yLow}" y2="${yHigh}"/>`,
          `<line class="cap" x1="${px(cx - 5)}" x2="${px(cx + 5)}" y1="${yLow}" y2="${yLow}"/>`,
          `<line class="cap" x1="${px(cx - 5)}" x2="${px(cx + 5)}" y1="${yHigh}" y2="${yHigh}"/>`,
        );
      }
    });
    const lx = x0 + c.groupWidth / 2;
    const ly = baseline + 14;
    parts.push(
      `<text class="label" x="${px(lx)}" y="${px(ly)}" text-anchor="end" transform="rotate(-35 ${px(lx)} ${px(ly)})">${escapeHtml(m.label)}</text>`,
    );
  });
  parts.push(`<line class="axis" x1="${c.left}" x2="${px(width - c.right)}" y1="${px(baseline)}" y2="${px(baseline)}"/>`);
  parts.push('</svg>');
  return figure(parts.join(''), `Per language, mean with 95% CI (Wilson for 0/1 metrics, else bootstrap); ${DASH} where no question applies.`, legend(LANGS.map((l) => [l, LANG_COLOUR[l]])));
}

/** Chart (2): mean context slots per collection, stacked, one bar per question kind. */
export function slotChart(run: RunReport): string {
  if (run.fusion.length === 0) return '';
  const c = SLOT_CHART;
  const totals = run.fusion.map((f) => COLLECTIONS.reduce((s, col) => s + (isFiniteNumber(f.meanSlots[col]) ? f.meanSlots[col] : 0), 0));
  const max = Math.max(...totals, 0) || 1;
  const width = c.left + c.width + c.right;
  const height = c.top + run.fusion.length * c.rowHeight + 8;
  const parts: string[] = [svgOpen(width, height, `Slot distribution per question kind, run ${run.label}`)];
  run.fusion.forEach((f, i) => {
    const y = c.top + i * c.rowHeight;
    parts.push(`<text class="label" x="${c.left - 6}" y="${px(y + c.barHeight / 2)}" text-anchor="end" dominant-baseline="middle">${escapeHtml(f.kind)}</text>`);
    let x = c.left;
    for (const col of COLLECTIONS) {
      const v = isFiniteNumber(f.meanSlots[col]) ? f.meanSlots[col] : 0;
      const w = (v / max) * c.width;
      if (w > 0) {
        parts.push(
          `<rect class="slot" data-kind="${escapeHtml(f.kind)}" data-collection="${col}" x="${px(x)}" y="${px(y)}" width="${px(w)}" height="${c.barHeight}" fill="${COLLECTION_COLOUR[col]}">${tooltip(`${f.kind} · ${col}: ${v.toFixed(2)} slots`)}</rect>`,
        );
        if (w > 24) parts.push(`<text class="inbar" x="${px(x + w / 2)}" y="${px(y + c.barHeight / 2)}" text-anchor="middle" dominant-baseline="middle">${v.toFixed(1)}</text>`);
      }
      x += w;
    }
    parts.push(
      `<text class="note" x="${px(c.left + c.width + 8)}" y="${px(y + c.barHeight / 2)}" dominant-baseline="middle">even ${formatShare(f.evenQuota, 0)} · wasted ${formatShare(f.wastedSlots, 0)}</text>`,
    );
  });
  parts.push('</svg>');
  return figure(parts.join(''), 'Mean context slots per collection by question kind (n questions in the table below).', legend(COLLECTIONS.map((col) => [col, COLLECTION_COLOUR[col]])));
}

/** Chart (3): the chunk-size histogram of one collection, with the model window marked. */
export function truncationChart(row: TruncationRow): string {
  const c = HISTOGRAM_CHART;
  const lastTo = Math.max(0, ...row.histogram.map((b) => b.to));
  const xmax = Math.max(lastTo, row.window, 1) * 1.05;
  const x = (t: number) => c.left + (t / xmax) * c.width;
  const maxCount = Math.max(1, ...row.histogram.map((b) => b.count));
  const width = c.left + c.width + c.right;
  const height = c.top + c.plotHeight + c.bottom;
  const base = c.top + c.plotHeight;
  const parts: string[] = [svgOpen(width, height, `Chunk sizes in tokens, ${row.collection}`)];
  parts.push(`<text class="title" x="${c.left}" y="12">${escapeHtml(row.collection)}: ${row.chunks} chunks, largest ${row.maxTokens} tokens</text>`);
  for (const b of row.histogram) {
    const h = (b.count / maxCount) * c.plotHeight;
    const over = b.from >= row.window;
    parts.push(
      `<rect class="hist${over ? ' over' : ''}" data-from="${b.from}" data-to="${b.to}" x="${px(x(b.from))}" y="${px(base - h)}" width="${px(Math.max(0, x(b.to) - x(b.from) - 1))}" height="${px(h)}">${tooltip(`[${b.from}, ${b.to}) tokens: ${b.count} chunks`)}</rect>`,
    );
  }
  const wx = px(x(row.window));
  parts.push(
    `<line class="axis" x1="${c.left}" x2="${px(c.left + c.width)}" y1="${base}" y2="${base}"/>`,
    `<line class="window" data-window="${row.window}" x1="${wx}" x2="${wx}" y1="${c.top - 4}" y2="${base}"/>`,
    `<text class="window-label" x="${wx}" y="${px(base + 26)}" text-anchor="middle">window ${row.window}</text>`,
    `<text class="tick" x="${c.left}" y="${px(base + 13)}" text-anchor="middle">0</text>`,
    Math.abs(x(lastTo) - x(row.window)) > 40 ? `<text class="tick" x="${px(x(lastTo))}" y="${px(base + 13)}" text-anchor="middle">${lastTo}</text>` : '',
    `<text class="tick" x="${c.left - 6}" y="${c.top}" text-anchor="end" dominant-baseline="middle">${maxCount}</text>`,
  );
  parts.push('</svg>');
  return parts.join('');
}

/**
 * Chart (4): B − A per comparison as a dot with its CI whisker on a scale symmetric around 0, one
 * chart per unit. Drawn: the groups all/en/es, and any significant comparison of a finer group.
 */
export function deltaChart(report: Report, comparisons: Comparison[]): string {
  const shown = comparisons.filter(
    (cmp) => cmp.n > 0 && isFiniteNumber(cmp.diff) && ((cmp.group.kind === undefined && cmp.group.source === undefined) || cmp.verdict !== 'same'),
  );
  const units = [...new Set(shown.map((cmp) => metricInfo(report, cmp.metric).unit))];
  return units
    .map((unit) => {
      const rows = shown.filter((cmp) => metricInfo(report, cmp.metric).unit === unit);
      const c = DELTA_CHART;
      const extent = Math.max(0, ...rows.flatMap((r) => [r.diff, r.low, r.high].filter(isFiniteNumber).map(Math.abs))) * 1.1 || 1;
      const x = (d: number) => c.left + ((Math.max(-extent, Math.min(extent, d)) + extent) / (2 * extent)) * c.width;
      const width = c.left + c.width + c.right;
      const height = c.top + rows.length * c.rowHeight + 10;
      const zero = px(x(0));
      const [a, b] = comparedLabels(report);
      const unitName = unit === 'share' ? 'percentage points' : unit === 'ms' ? 'ms' : 'count';
      const parts: string[] = [svgOpen(width, height, `Differences ${b} − ${a} in ${unitName}`)];
      parts.push(
        `<text class="tick" x="${px(c.left)}" y="12" text-anchor="middle">${formatDiff(-extent, NaN, NaN, unit)}</text>`,
        `<text class="tick" x="${zero}" y="12" text-anchor="middle">0</text>`,
        `<text class="tick" x="${px(c.left + c.width)}" y="12" text-anchor="middle">${formatDiff(extent, NaN, NaN, unit)}</text>`,
        `<line class="zero" x1="${zero}" x2="${zero}" y1="${c.top - 6}" y2="${px(height - 4)}"/>`,
      );
      rows.forEach((cmp, i) => {
        const m = metricInfo(report, cmp.metric);
        const y = px(c.top + i * c.rowHeight + c.rowHeight / 2);
        const attrs = `data-metric="${escapeHtml(cmp.metric)}" data-group="${escapeHtml(groupLabel(cmp.group))}"`;
        const text = `${formatDiff(cmp.diff, cmp.low, cmp.high, m.unit)}, ${formatP(cmp.p)}`;
        parts.push(`<text class="label" x="${c.left - 8}" y="${y}" text-anchor="end" dominant-baseline="middle">${escapeHtml(`${m.label} · ${groupLabel(cmp.group)}`)}</text>`);
        if (isFiniteNumber(cmp.low) && isFiniteNumber(cmp.high)) {
          parts.push(`<line class="delta-ci ${cmp.verdict}" ${attrs} x1="${px(x(cmp.low))}" x2="${px(x(cmp.high))}" y1="${y}" y2="${y}"/>`);
        }
        parts.push(
          `<circle class="delta ${cmp.verdict}" ${attrs} cx="${px(x(cmp.diff))}" cy="${y}" r="4">${tooltip(`${m.label} · ${groupLabel(cmp.group)}: ${text} (n = ${cmp.n})`)}</circle>`,
          `<text class="note ${cmp.verdict}" x="${px(c.left + c.width + 8)}" y="${y}" dominant-baseline="middle">${escapeHtml(text)}</text>`,
        );
      });
      parts.push('</svg>');
      return figure(parts.join(''), `${b} − ${a} in ${unitName}, 95% CI (Newcombe's paired score interval for 0/1 metrics, else the paired bootstrap); coloured when ▲ better or ▼ worse (adjusted p < 0.05 and at least the minimum effect; green better, red worse for ${b}).`);
    })
    .join('\n');
}

// ---------------------------------------------------------------------------------------------
// Sections

function reproducibility(report: Report): string {
  const m = report.meta;
  const dl: [string, string][] = [
    ['Command', `<pre>${escapeHtml(m.command)}</pre>`],
    ['Git commit', `<code>${escapeHtml(m.git.commit)}</code>${m.git.dirty ? ' <span class="worse">(+dirty: uncommitted changes)</span>' : ''}`],
    ['Instance', `<code>${escapeHtml(m.instance)}</code>`],
    ['Created at', escapeHtml(m.createdAt)],
    ['Node', escapeHtml(m.node)],
    ['Statistics', `seed <code>${escapeHtml(m.stats.seed)}</code>, ${m.stats.bootstrap} bootstrap iterations, ${m.stats.permutations} permutations`],
    ['Report', `version ${report.version}, kind <code>${escapeHtml(report.kind)}</code>`],
  ];
  const runs: Table = {
    head: ['run', 'config hash', 'config source', 'model', 'generator', 'judge', 'seconds'],
    align: ['left', 'left', 'left', 'left', 'left', 'left', 'right'],
    rows: report.runs.map((r) => ({
      cells: [
        r.label,
        shortHash(r.configHash),
        r.configSource.length ? r.configSource.join(', ') : '(defaults)',
        `${r.model.id} (${r.model.dims} dims)`,
        r.generator + (r.translator ? `; translator ${r.translator.id} (${r.translator.backend})` : ''),
        r.judge,
        r.seconds.toFixed(1),
      ],
    })),
  };
  const datasets: Table = {
    head: ['dataset', 'sha256', 'records', 'path'],
    align: ['left', 'left', 'right', 'left'],
    rows: m.datasets.map((d) => ({ cells: [datasetLabel(d), shortHash(d.sha256), String(d.records), d.path] })),
  };
  return [
    '<section class="repro">',
    '<h2>Reproduce</h2>',
    `<dl>${dl.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('')}</dl>`,
    '<h3>Runs</h3>',
    htmlTable(runs),
    judgeCalibrationHtml(report),
    '<h3>Datasets</h3>',
    htmlTable(datasets),
    '</section>',
  ].join('\n');
}

function judgeCalibrationHtml(report: Report): string {
  const runs = report.runs.filter((r) => r.judgeCalibration);
  if (runs.length === 0) return '';
  const cal = runs[0]!.judgeCalibration!;
  const blind = runs.filter((r) => r.judgeCalibration!.blindSpots.length).map((r) => `<li><code>${escapeHtml(r.judgeCalibration!.judge)}</code> cannot see: ${escapeHtml(r.judgeCalibration!.blindSpots.join('; '))}.</li>`);
  return [
    '<h3>Judge calibration</h3>',
    `<p>Accuracy on <code>datasets/judge-calibration.jsonl</code> (${cal.items} labelled sentences, sha256 <code>${escapeHtml(shortHash(cal.sha256))}</code>); held-out: the even ids, on which no threshold was set.</p>`,
    htmlTable(judgeCalibrationTable(report)),
    blind.length ? `<ul>${blind.join('')}</ul>` : '',
  ].join('\n');
}

/** A/B latency and the per-question drill-down (eval/report/drilldown.ts); nothing for a single run. */
function abDetails(report: Report): string {
  const out: string[] = [];
  const latency = [latencyGateSentence(report), latencySentence(report)].filter((s): s is string => s !== undefined);
  if (latency.length) out.push('<section>', '<h2>Latency</h2>', ...latency.map((s) => `<p>${escapeHtml(s)}</p>`), '</section>');
  const sections = drilldownSections(report);
  if (sections.length) {
    out.push('<section>', '<h2>Drill-down: questions that moved</h2>');
    out.push('<p>Per question, paired by id: <span class="better">▲ a win</span> for the second run, <span class="worse">▼ a loss</span>; route, slots (docs/code/issues) and the rank of the first gold file in the ranking, first run → second run.</p>');
    for (const s of sections) out.push(`<h3>${escapeHtml(s.label)}</h3>`, `<p>${escapeHtml(s.summary)}.</p>`, s.table.rows.length ? htmlTable(s.table) : '');
    out.push('</section>');
  }
  return out.join('\n');
}

function verdictSection(report: Report): string {
  const v = report.verdict;
  if (!v) return '';
  const pass = v.status === 'pass';
  const text = pass
    ? `PASS: no primary metric is worse than the baseline (${v.baseline}; Holm over ${report.primary?.length ?? 0} primary comparisons, minimum effect ${minEffectOf(report)} pp).`
    : `FAIL: ${v.regressions.length} primary metrics worse than the baseline (${v.baseline}; Holm over ${report.primary?.length ?? 0} primary comparisons, minimum effect ${minEffectOf(report)} pp).`;
  return [
    '<section>',
    '<h2>Verdict</h2>',
    `<p class="verdict ${pass ? 'pass' : 'fail'}">${escapeHtml(text)}</p>`,
    v.regressions.length > 0 ? htmlTable(comparisonTable(report, v.regressions)) : '',
    '</section>',
  ].join('\n');
}

function primarySection(report: Report, comparisons: Comparison[]): string {
  return ['<section>', '<h2>Primary metrics (the gate)</h2>', `<p>${escapeHtml(primaryNote(report))}</p>`, htmlTable(comparisonTable(report, comparisons)), '</section>'].join('\n');
}

function comparisonSection(report: Report, comparisons: Comparison[]): string {
  return [
    '<section>',
    '<h2>Comparison (exploratory)</h2>',
    `<p>${escapeHtml(exploratoryNote(report, comparisons))}</p>`,
    deltaChart(report, comparisons),
    htmlTable(comparisonTable(report, comparisons)),
    '</section>',
  ].join('\n');
}

function runSection(report: Report, run: RunReport): string {
  const failed = run.questions.filter((q) => q.error !== undefined).length;
  const chunks = COLLECTIONS.map((c) => `${c} ${run.index.chunks[c] ?? 0}`).join(', ');
  const meta = Object.entries(run.index.meta);
  const out: string[] = [
    `<section class="run">`,
    `<h2>Run ${escapeHtml(run.label)}</h2>`,
    `<p>${run.questions.length} questions (${failed} failed), ${run.seconds.toFixed(1)} s. Index: ${escapeHtml(chunks)} chunks. Config <code>${escapeHtml(shortHash(run.configHash))}</code>.</p>`,
  ];
  if (meta.length > 0) out.push(`<ul class="meta">${meta.map(([k, v]) => `<li>${escapeHtml(k)}: <code>${escapeHtml(v)}</code></li>`).join('')}</ul>`);
  out.push('<h3>Metrics, English and Spanish</h3>', rankingChart(report, run));
  out.push(`<p class="caption">${escapeHtml(INTERVAL_NOTE)}</p>`, htmlTable(metricTable(report, run)));
  if (run.languageGap?.length) {
    out.push(
      '<h3>Language gap (paired questions)</h3>',
      `<p class="caption">${escapeHtml(`Spanish − English on the same questions (same pair id), paired permutation test, p Holm-adjusted over this table; a gap needs p (Holm) < 0.05 and at least ${minEffectOf(report)} pp.`)}</p>`,
      htmlTable(languageGapTable(report, run)),
    );
  }
  const byKind = metricByTable(report, run, 'kind');
  if (byKind.rows.length > 0) out.push('<h3>By question kind × language</h3>', htmlTable(byKind));
  const bySource = metricByTable(report, run, 'source');
  if (bySource.rows.length > 0) out.push('<h3>By expected source × language</h3>', htmlTable(bySource));
  if (run.coverage?.length) out.push('<h3>Coverage</h3>', '<p>Unreachable: no gold file indexed (misses in the retrieval means, counted here apart); recall ceiling: the highest mean file recall the index allows; over window: questions longer than the model window as a query.</p>', htmlTable(coverageTable(run)));
  if (run.fusion.length > 0) out.push('<h3>Fusion</h3>', slotChart(run), htmlTable(fusionTable(run)));
  if (run.truncation.length > 0) {
    out.push('<h3>Truncation</h3>', `<div class="charts">${run.truncation.map(truncationChart).join('\n')}</div>`, htmlTable(truncationTable(run)));
  }
  if (run.latency.length > 0) out.push('<h3>Latency</h3>', htmlTable(latencyTable(run)));
  out.push(questionDetails(report, run));
  out.push(
    `<details><summary>Resolved configuration (${escapeHtml(run.configSource.join(', ') || 'defaults')})</summary><pre>${escapeHtml(JSON.stringify(run.config, null, 2) ?? 'null')}</pre></details>`,
  );
  out.push('</section>');
  return out.join('\n');
}

function questionDetails(report: Report, run: RunReport): string {
  const rows = run.questions.map((q) => questionRow(report, q)).join('\n');
  return [
    `<details class="questions"><summary>Per question (${run.questions.length})</summary>`,
    '<table class="questions"><thead><tr>',
    ['id', 'lang', 'kind', 'expected', 'route top', 'question', 'files ranked, first 10 (gold in bold)', 'slots d/c/i', 'metrics', 'answer', 'error'].map((h) => `<th>${h}</th>`).join(''),
    '</tr></thead><tbody>',
    rows,
    '</tbody></table></details>',
  ].join('\n');
}

function questionRow(report: Report, q: QuestionResult): string {
  const gold = new Set(q.gold.files);
  // The first 10 of the ranking, and any gold file ranked below them at its rank.
  const shown = q.ranked.map((f, i) => [f, i + 1] as const).filter(([f, rank]) => rank <= 10 || gold.has(f));
  const files = shown.length
    ? `<ol>${shown.map(([f, rank]) => `<li value="${rank}">${gold.has(f) ? `<b>${escapeHtml(f)}</b>` : escapeHtml(f)}</li>`).join('')}</ol>`
    : DASH;
  const metrics = Object.entries(q.metrics)
    .filter((e): e is [string, number] => isFiniteNumber(e[1]))
    .map(([name, v]) => `${escapeHtml(name)} ${escapeHtml(formatValue(v, metricInfo(report, name).unit))}`)
    .join('<br>');
  const slots = COLLECTIONS.map((c) => String(q.slots[c] ?? 0)).join('/');
  const answer = q.answer
    ? escapeHtml(
        q.answer.noAnswer
          ? 'no answer'
          : `${q.answer.citations} citations, ${q.answer.invalid} invalid, ${q.answer.unsupported} unsupported`,
      )
    : DASH;
  const cells = [
    `<code>${escapeHtml(q.id)}</code>`,
    escapeHtml(q.lang),
    escapeHtml(q.kind),
    escapeHtml(q.expectedSource),
    `<span class="${q.route.top === q.expectedSource ? 'better' : 'worse'}">${escapeHtml(q.route.top)}</span>`,
    escapeHtml(q.question),
    files,
    slots,
    metrics || DASH,
    answer,
    q.error !== undefined ? `<span class="worse">${escapeHtml(q.error)}</span>` : '',
  ];
  return `<tr${q.error !== undefined ? ' class="failed"' : ''}>${cells.map((c) => `<td>${c}</td>`).join('')}</tr>`;
}

/** A summary table; every cell is text and is escaped. Significant rows get their direction's class. */
export function htmlTable(table: Table): string {
  const head = table.head.map((h, i) => `<th class="${table.align[i] ?? 'left'}">${escapeHtml(h)}</th>`).join('');
  const body = table.rows
    .map((r) => {
      const cells = r.cells.map((c, i) => `<td class="${table.align[i] ?? 'left'}">${escapeHtml(c)}</td>`).join('');
      return `<tr${r.mark ? ` class="${r.mark}"` : ''}>${cells}</tr>`;
    })
    .join('\n');
  return `<table><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

function figure(svg: string, caption: string, extra = ''): string {
  return `<figure>${svg}<figcaption>${escapeHtml(caption)}${extra}</figcaption></figure>`;
}

function legend(items: [string, string][]): string {
  return ` <span class="legend">${items
    .map(([name, colour]) => `<span><i style="background:${colour}"></i>${escapeHtml(name)}</span>`)
    .join('')}</span>`;
}

const CSS = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:1200px;padding:0 16px;color:#222}
h1{font-size:22px}h2{font-size:18px;border-bottom:1px solid #ddd;padding-bottom:4px;margin-top:32px}h3{font-size:15px;margin-top:20px}
table{border-collapse:collapse;margin:8px 0 16px;font-size:13px}
th,td{border:1px solid #ddd;padding:3px 8px;vertical-align:top}th{background:#f5f5f5}
td.right,th.right{text-align:right;font-variant-numeric:tabular-nums}td.left,th.left{text-align:left}
tr.better td{background:#e8f5e9}tr.worse td{background:#ffebee}tr.failed td{background:#fff8e1}
.better{color:#2e7d32}.worse{color:#c62828}
.verdict{font-size:16px;font-weight:bold;padding:6px 10px;display:inline-block}.verdict.pass{background:#e8f5e9;color:#2e7d32}.verdict.fail{background:#ffebee;color:#c62828}
dl{display:grid;grid-template-columns:max-content auto;gap:4px 12px}dt{font-weight:600}dd{margin:0}
pre{background:#f5f5f5;padding:6px 8px;margin:0;white-space:pre-wrap;word-break:break-all}
code{font-size:12px}
figure{margin:8px 0}figcaption{font-size:12px;color:#555}
.legend span{margin-left:10px}.legend i{display:inline-block;width:10px;height:10px;margin-right:4px;vertical-align:middle}
.charts{display:flex;flex-wrap:wrap;gap:12px}
svg.chart{font:11px system-ui,sans-serif;overflow:visible}
svg .grid{stroke:#eee}svg .axis{stroke:#999}svg .tick,svg .note{fill:#555}svg .label{fill:#222}svg .na{fill:#999}
svg .whisker,svg .cap{stroke:#222;stroke-width:1.5}
svg .inbar{fill:#fff;font-size:10px}
svg .hist{fill:#76b7b2}svg .hist.over{fill:#c62828}svg .window{stroke:#c62828;stroke-dasharray:4 3;stroke-width:1.5}svg .window-label{fill:#c62828}
svg .zero{stroke:#999}svg .delta-ci{stroke-width:2}svg .delta-ci.same{stroke:#999}svg .delta-ci.better{stroke:#2e7d32}svg .delta-ci.worse{stroke:#c62828}
svg circle.same{fill:#999}svg circle.better{fill:#2e7d32}svg circle.worse{fill:#c62828}svg text.better{fill:#2e7d32}svg text.worse{fill:#c62828}
table.questions{font-size:12px}table.questions ol{margin:0;padding-left:18px}
`.trim();
