import path from 'node:path';
import { loadDataset, type EvalQuestion } from '../datasets/questions.ts';
import type { CitaConfig } from '../pipeline/config/schema.ts';
import { translateQuestion } from '../pipeline/retrieval/crossLingual.ts';

/**
 * The answerable questions with gold files of a cita-format dataset file, of one split or all: what
 * the docs-retrieval experiments (docsRetrieval, docsRankings, glossRetrieval, sparseRetrieval,
 * prfRetrieval, sentenceRerank, stemRetrieval) score.
 */
export function answerableQuestions(file: string | undefined, split: string | undefined, root: string): EvalQuestion[] {
  if (!file) throw new Error('--dataset <file.jsonl> is required (a cita-format dataset, e.g. datasets/pytest-docs.jsonl)');
  return loadDataset({ name: path.basename(file, '.jsonl'), path: file, format: 'cita' }, root).questions.filter(
    (q) => q.gold.answerable && q.gold.files.length > 0 && (!split || q.split === split),
  );
}

/**
 * A question's translation into the corpus language, as `cita search` makes it for the retrievers that
 * match words; undefined when it is asked in that language (or the translator failed).
 */
export async function translationOf(config: Pick<CitaConfig, 'languages' | 'retrieval'>, q: EvalQuestion): Promise<string | undefined> {
  return q.lang === config.languages.corpus ? undefined : (await translateQuestion(config, q.question, q.lang))?.text;
}

/** One question's file Recall@k and Acc@1 under one retrieval mode. */
export interface ModeRow {
  lang: string;
  mode: string;
  recall: number;
  acc1: number;
}

/** The mean Recall@k and Acc@1 of each mode (rows, in order of first appearance) per language (columns): the lines to print. */
export function modeTable(rows: readonly ModeRow[], k: number, width = 28, heading = 'mode'): string[] {
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);
  const langs = [...new Set(rows.map((r) => r.lang))].sort();
  const lines = [`${heading.padEnd(width)} ${langs.map((l) => `R@${k} ${l}`.padStart(9) + `Acc@1 ${l}`.padStart(10)).join(' ')}`];
  for (const mode of [...new Set(rows.map((r) => r.mode))]) {
    const cells = langs.map((l) => {
      const rs = rows.filter((r) => r.mode === mode && r.lang === l);
      return `${(100 * mean(rs.map((r) => r.recall))).toFixed(1).padStart(9)}${(100 * mean(rs.map((r) => r.acc1))).toFixed(1).padStart(10)}`;
    });
    lines.push(`${mode.padEnd(width)} ${cells.join(' ')}`);
  }
  return lines;
}
