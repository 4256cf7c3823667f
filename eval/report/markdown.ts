import { COLLECTIONS } from '../../pipeline/types.ts';
import {
  comparisonTable,
  coverageTable,
  exploratoryNote,
  INTERVAL_NOTE,
  minEffectOf,
  primaryNote,
  fusionTable,
  judgeCalibrationTable,
  languageGapTable,
  latencyTable,
  metricByTable,
  metricTable,
  reportTitle,
  shortHash,
  datasetLabel,
  truncationTable,
  type Table,
} from './format.ts';
import { drilldownSections, latencyGateSentence, latencySentence } from './drilldown.ts';
import type { Report, RunReport } from './types.ts';

/**
 * The Markdown summary of a report: how to reproduce it, then per run the metric tables (English and
 * Spanish side by side, with 95% CIs), fusion, truncation and latency; for `ab`/`nightly` the paired
 * comparison with its verdicts. A rendering of the JSON, nothing more.
 */
export function renderMarkdown(report: Report): string {
  const out: string[] = [`# ${inline(reportTitle(report))}`, ''];
  out.push(...reproducibility(report));

  if (report.verdict) {
    const v = report.verdict;
    out.push('## Verdict', '');
    out.push(
      v.status === 'pass'
        ? `**PASS**: no primary metric is worse than the baseline (${inline(v.baseline)}; Holm over ${report.primary?.length ?? 0} primary comparisons, minimum effect ${minEffectOf(report)} pp).`
        : `**FAIL**: ${v.regressions.length} primary metric${v.regressions.length === 1 ? ' is' : 's are'} worse than the baseline (${inline(v.baseline)}; Holm over ${report.primary?.length ?? 0} primary comparisons, minimum effect ${minEffectOf(report)} pp).`,
      '',
    );
    if (v.regressions.length > 0) out.push(...markdownTable(comparisonTable(report, v.regressions)), '');
  }

  if (report.kind !== 'run' && report.primary?.length) {
    out.push('## Primary metrics (the gate)', '', inline(primaryNote(report)), '');
    out.push(...markdownTable(comparisonTable(report, report.primary)), '');
  }

  if (report.kind !== 'run' && report.comparisons) {
    const comps = report.comparisons;
    out.push('## Comparison (exploratory)', '', inline(exploratoryNote(report, comps)), '');
    out.push(...markdownTable(comparisonTable(report, comps)), '');
  }

  out.push(...abDetails(report));
  for (const run of report.runs) out.push(...runSection(report, run));
  return out.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd() + '\n';
}

/** A/B latency and the per-question drill-down (eval/report/drilldown.ts); nothing for a single run. */
function abDetails(report: Report): string[] {
  const out: string[] = [];
  const latency = [latencyGateSentence(report), latencySentence(report)].filter((s): s is string => s !== undefined);
  if (latency.length) out.push('## Latency', '', ...latency.flatMap((s) => [s, '']));
  const sections = drilldownSections(report);
  if (sections.length) {
    out.push('## Drill-down: questions that moved', '', 'Per question, paired by id: ▲ a win for the second run, ▼ a loss; route, slots (docs/code/issues) and the rank of the first gold file in the ranking, first run → second run.', '');
    for (const s of sections) out.push(`### ${inline(s.label)}`, '', `${s.summary}.`, '', ...(s.table.rows.length ? [...markdownTable(s.table), ''] : []));
  }
  return out;
}

function reproducibility(report: Report): string[] {
  const m = report.meta;
  const out = ['## Reproduce', ''];
  out.push('Command:', '', ...fenced(m.command), '');
  out.push(
    `- Git commit: ${code(m.git.commit)}${m.git.dirty ? ' (+dirty: uncommitted changes)' : ''}`,
    `- Instance: ${code(m.instance)}`,
    `- Created at: ${inline(m.createdAt)}`,
    `- Node: ${inline(m.node)}`,
    `- Statistics: seed ${code(m.stats.seed)}, ${m.stats.bootstrap} bootstrap iterations, ${m.stats.permutations} permutations` +
      (m.stats.primary ? `; primary metrics ${m.stats.primary.map((p) => code(p.metric + (p.datasets ? ` (${p.datasets.join(', ')})` : '') + (p.langs ? ` [${p.langs.join(', ')}]` : ''))).join(', ')}, minimum effect ${minEffectOf(report)} pp` : ''),
    `- Report version: ${report.version}, kind ${code(report.kind)}`,
    '',
  );
  out.push('Runs:', '');
  out.push(
    ...markdownTable({
      head: ['run', 'config hash', 'config source', 'model', 'generator', 'judge', 'seconds'],
      align: ['left', 'left', 'left', 'left', 'left', 'left', 'right'],
      rows: report.runs.map((r) => ({
        cells: [
          r.label,
          code(shortHash(r.configHash)),
          r.configSource.length ? r.configSource.map(code).join(', ') : '(defaults)',
          `${code(r.model.id)} (${r.model.dims} dims)`,
          code(r.generator) + (r.translator ? `; translator ${code(r.translator.id)} (${r.translator.backend})` : ''),
          code(r.judge),
          r.seconds.toFixed(1),
        ],
      })),
    }),
    '',
  );
  out.push(...judgeCalibrationLines(report));
  out.push('Datasets:', '');
  out.push(
    ...markdownTable({
      head: ['dataset', 'sha256', 'records', 'path'],
      align: ['left', 'left', 'right', 'left'],
      rows: m.datasets.map((d) => ({
        cells: [datasetLabel(d), code(shortHash(d.sha256)), String(d.records), code(d.path)],
      })),
    }),
    '',
  );
  return out;
}

/** How far each judge can be trusted: its accuracy on the labelled calibration set, and what it cannot see. */
function judgeCalibrationLines(report: Report): string[] {
  const runs = report.runs.filter((r) => r.judgeCalibration);
  if (runs.length === 0) return [];
  const cal = runs[0]!.judgeCalibration!;
  const out = [
    `Judge calibration: accuracy on ${code('datasets/judge-calibration.jsonl')} (${cal.items} labelled sentences, sha256 ${code(shortHash(cal.sha256))}); held-out: the even ids, on which no threshold was set.`,
    '',
    ...markdownTable(judgeCalibrationTable(report)),
    '',
  ];
  for (const r of runs) if (r.judgeCalibration!.blindSpots.length) out.push(`- ${code(r.judgeCalibration!.judge)} cannot see: ${r.judgeCalibration!.blindSpots.map(inline).join('; ')}.`);
  out.push('');
  return out;
}

function runSection(report: Report, run: RunReport): string[] {
  const out = [`## Run ${inline(run.label)}`, ''];
  const chunks = COLLECTIONS.map((c) => `${c} ${run.index.chunks[c] ?? 0}`).join(', ');
  const failed = run.questions.filter((q) => q.error !== undefined).length;
  out.push(
    `${run.questions.length} questions (${failed} failed), ${run.seconds.toFixed(1)} s. ` +
      `Index: ${chunks} chunks. Config ${code(shortHash(run.configHash))}.`,
    '',
  );
  const meta = Object.entries(run.index.meta);
  if (meta.length > 0) out.push(...meta.map(([k, v]) => `- ${inline(k)}: ${code(v)}`), '');

  out.push('### Metrics, English and Spanish', '', INTERVAL_NOTE, '');
  out.push(...markdownTable(metricTable(report, run)), '');
  if (run.languageGap?.length) {
    out.push(
      '### Language gap (paired questions)',
      '',
      `The same question asked in English and in Spanish (same pair id): Spanish − English, paired permutation test, p Holm-adjusted over this table; a gap needs p (Holm) < 0.05 and at least ${minEffectOf(report)} pp. CI: Newcombe's paired score interval for 0/1 metrics, else the paired bootstrap.`,
      '',
      ...markdownTable(languageGapTable(report, run)),
      '',
    );
  }
  const byKind = metricByTable(report, run, 'kind');
  if (byKind.rows.length > 0) out.push('### By question kind × language', '', ...markdownTable(byKind), '');
  const bySource = metricByTable(report, run, 'source');
  if (bySource.rows.length > 0) out.push('### By expected source × language', '', ...markdownTable(bySource), '');
  if (run.fusion.length > 0) {
    out.push('### Fusion', '', 'Mean context slots per collection; even quota: share of questions whose used collections got equal slots; wasted: share of slots on collections without gold.', '');
    out.push(...markdownTable(fusionTable(run)), '');
  }
  if (run.coverage?.length) {
    out.push(
      '### Coverage',
      '',
      'Gold the index holds and queries the model reads whole. Unreachable: no gold file indexed (kept in the retrieval means as misses, counted here apart); recall ceiling: the highest mean file recall the index allows; over window: questions longer than the model window as a query.',
      '',
    );
    out.push(...markdownTable(coverageTable(run)), '');
  }
  if (run.truncation.length > 0) {
    out.push('### Truncation', '', 'Chunk sizes in model tokens; over window must be 0.', '');
    out.push(...markdownTable(truncationTable(run)), '');
  }
  if (run.latency.length > 0) out.push('### Latency', '', ...markdownTable(latencyTable(run)), '');
  return out;
}

/** A GitHub-flavoured Markdown table; significant rows have their first and last cells in bold. */
export function markdownTable(table: Table): string[] {
  const line = (cells: string[]) => `| ${cells.map(cell).join(' | ')} |`;
  const rule = `| ${table.align.map((a) => (a === 'right' ? '---:' : '---')).join(' | ')} |`;
  return [
    line(table.head),
    rule,
    ...table.rows.map((r) => {
      if (!r.mark) return line(r.cells);
      const cells = [...r.cells];
      const last = cells.length - 1;
      cells[0] = bold(cells[0] ?? '');
      if (last > 0) cells[last] = bold(cells[last] ?? '');
      return line(cells);
    }),
  ];
}

/** A table cell: one line, pipes escaped. */
function cell(text: string): string {
  return text.replace(/\r?\n/g, ' ').replace(/\|/g, '\\|');
}

function bold(text: string): string {
  return text === '' ? text : `**${text}**`;
}

/** Text in running Markdown: one line, no stray HTML. */
function inline(text: string): string {
  return text.replace(/\r?\n/g, ' ').replace(/</g, '&lt;');
}

/** An inline code span long enough to hold any backticks of the text. */
function code(text: string): string {
  const one = text.replace(/\r?\n/g, ' ');
  const longest = Math.max(0, ...(one.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  const pad = one.startsWith('`') || one.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${one}${pad}${fence}`;
}

function fenced(text: string): string[] {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return [`${fence}sh`, text, fence];
}
