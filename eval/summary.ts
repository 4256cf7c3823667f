import { comparisonTable, coverageTable, languageGapTable, metricTable, minEffectOf, SMALL_N_NOTE, type Table } from './report/format.ts';
import { markdownTable } from './report/markdown.ts';
import type { Comparison, Report } from './report/types.ts';

/** The comparisons over all questions and per language (the finer groups are in the report files). */
export function mainComparisons(comparisons: Comparison[]): Comparison[] {
  return comparisons.filter((c) => c.group.kind === undefined && c.group.source === undefined);
}

/** What `cita eval` and `npm run nightly` print: each run's metrics (all / en / es), and the comparison of the main groups. */
export function summaryLines(report: Report): string[] {
  const lines: string[] = [];
  for (const run of report.runs) {
    lines.push('', `## ${run.label} (config ${run.configHash}, model ${run.model.id}, judge ${run.judge}, ${run.questions.length} questions, ${run.seconds.toFixed(0)} s)`);
    lines.push(...markdownTable(metricTable(report, run)));
    if (run.coverage?.length) lines.push('', 'Coverage (unreachable: no gold file indexed; recall ceiling: the highest mean file recall the index allows; over window: questions longer than the model window):', ...markdownTable(coverageTable(run)));
    lines.push(SMALL_N_NOTE);
    if (run.languageGap?.length) lines.push('', 'Language gap, es − en on paired questions (p Holm-adjusted):', ...markdownTable(languageGapTable(report, run)));
    const errors = run.questions.filter((q) => q.error);
    if (errors.length) lines.push(`${errors.length} questions failed, e.g. ${errors[0]!.id}: ${errors[0]!.error}`);
  }
  const vs = report.kind === 'nightly' ? 'current vs baseline' : 'B vs A';
  if (report.primary?.length) {
    lines.push('', `## ${vs}, primary metrics (paired permutation test, Holm over ${report.primary.length}; ▲/▼: p (Holm) < 0.05 and ≥ ${minEffectOf(report)} pp)`);
    lines.push(...markdownTable(comparisonTable(report, report.primary)));
  }
  if (report.comparisons) {
    const table: Table = comparisonTable(report, mainComparisons(report.comparisons));
    lines.push('', `## ${vs}, exploratory (paired permutation test, Benjamini–Hochberg over all ${report.comparisons.length} comparisons; metrics of answers over each side's own answers, unpaired; ▲/▼: p (BH) < 0.05 and ≥ ${minEffectOf(report)} pp)`);
    lines.push(...markdownTable(table));
  }
  return lines;
}
