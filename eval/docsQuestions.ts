import path from 'node:path';
import { loadDataset, type EvalQuestion } from '../datasets/questions.ts';

/**
 * The answerable questions with gold files of a cita-format dataset file, of one split or all: what
 * the docs-retrieval experiments (docsRetrieval, docsRankings, glossRetrieval, sparseRetrieval) score.
 */
export function answerableQuestions(file: string | undefined, split: string | undefined, root: string): EvalQuestion[] {
  if (!file) throw new Error('--dataset <file.jsonl> is required (a cita-format dataset, e.g. datasets/pytest-docs.jsonl)');
  return loadDataset({ name: path.basename(file, '.jsonl'), path: file, format: 'cita' }, root).questions.filter(
    (q) => q.gold.answerable && q.gold.files.length > 0 && (!split || q.split === split),
  );
}
