import fs from 'node:fs';
import path from 'node:path';
import type { QuestionResult, Report, RunReport } from '../report/types.ts';

/**
 * A run of the harness in the TREC formats, so any IR scorer (trec_eval, pytrec_eval, ranx) can
 * re-score it:
 *   run:   `qid Q0 docid rank score tag`, one line per ranked file
 *   qrels: `qid 0 docid 1`, one line per gold file
 * The qids are the question ids, the docids the file paths of `QuestionResult.ranked` (the ranking
 * the file metrics at k score). Scores fall strictly with rank (score = n − rank + 1 for n files), so
 * a scorer that sorts by score (trec_eval does, ties by docid) sees exactly the harness's order.
 * Both files hold the questions the file metrics are defined on (gold files, no error), so a scorer's
 * mean over the qrels is the harness's mean; a question ranking no file is in the qrels only, and
 * scores 0 on both sides (trec_eval needs `-c` for that).
 */

/** Whitespace separates TREC fields: encoded, the same way in the run and the qrels. */
function field(s: string): string {
  return s.replace(/[\s%]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

/** The questions a file metric is defined on, each id once (a qid names one question). */
function scored(run: RunReport): QuestionResult[] {
  const qs = run.questions.filter((q) => !q.error && q.gold.files.length > 0);
  const seen = new Set<string>();
  for (const q of qs) {
    if (seen.has(q.id)) throw new Error(`TREC export: question id ${JSON.stringify(q.id)} occurs twice in run ${run.label}; qids must be unique across datasets`);
    seen.add(q.id);
  }
  return qs;
}

export function trecRun(run: RunReport, tag = `cita-${run.label}`): string {
  return scored(run)
    .flatMap((q) => q.ranked.map((docid, i) => `${field(q.id)} Q0 ${field(docid)} ${i + 1} ${q.ranked.length - i} ${field(tag)}\n`))
    .join('');
}

export function trecQrels(run: RunReport): string {
  return scored(run)
    .flatMap((q) => [...new Set(q.gold.files)].map((docid) => `${field(q.id)} 0 ${field(docid)} 1\n`))
    .join('');
}

/** Writes `<name>.<label>.run` and `<name>.<label>.qrels` per run of the report into `dir`; returns their paths. */
export function writeTrec(report: Report, dir: string, name: string): string[] {
  fs.mkdirSync(dir, { recursive: true });
  return report.runs.flatMap((run) => {
    const base = path.join(dir, `${name}.${run.label}`);
    fs.writeFileSync(`${base}.run`, trecRun(run));
    fs.writeFileSync(`${base}.qrels`, trecQrels(run));
    return [`${base}.run`, `${base}.qrels`];
  });
}
