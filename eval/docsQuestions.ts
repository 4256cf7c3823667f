import path from 'node:path';
import { loadDataset, type EvalQuestion } from '../datasets/questions.ts';
import type { CitaConfig } from '../pipeline/config/schema.ts';
import { translateQuestion } from '../pipeline/retrieval/crossLingual.ts';

/**
 * The answerable questions with gold files of a cita-format dataset file, of one split or all: what
 * the docs-retrieval experiments (docsRetrieval, docsRankings, glossRetrieval, sparseRetrieval,
 * prfRetrieval, sentenceRerank) score.
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
