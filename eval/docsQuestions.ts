import path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { loadDataset, type EvalQuestion } from '../datasets/questions.ts';
import type { CitaConfig } from '../pipeline/config/schema.ts';
import { searchPlan, translateQuestion, withoutModelTranslation, type QueryPlan } from '../pipeline/retrieval/crossLingual.ts';
import { hybridCandidates } from '../pipeline/retrieval/search.ts';
import type { Store } from '../pipeline/store/store.ts';
import { meanVector } from '../pipeline/vectors.ts';
import { distinct } from './metrics/recallAtK.ts';

/**
 * The research tools' command line: `[instance] --dataset <file.jsonl> [--split S]` and each tool's
 * own options. `instance`: the first positional (default pytest).
 */
export function experimentArgs<const O extends NonNullable<ParseArgsConfig['options']>>(options: O) {
  const { values, positionals } = parseArgs({ args: process.argv.slice(2), allowPositionals: true, options: { dataset: { type: 'string' }, split: { type: 'string' }, ...options } as const });
  return { values, instance: positionals[0] ?? 'pytest' };
}

/**
 * The answerable questions with gold files of a cita-format dataset file, of one split or all: what
 * the docs-retrieval experiments (docsRetrieval, docsRankings, glossRetrieval, sparseRetrieval,
 * prfRetrieval, sentenceRerank, stemRetrieval, lexiconRetrieval, alignRetrieval, titleRetrieval, compoundRetrieval) score.
 */
export function answerableQuestions(file: string | undefined, split: string | undefined, root: string): EvalQuestion[] {
  if (!file) throw new Error('--dataset <file.jsonl> is required (a cita-format dataset, e.g. datasets/pytest-docs.jsonl)');
  return loadDataset({ name: path.basename(file, '.jsonl'), path: file, format: 'cita' }, root).questions.filter(
    (q) => q.gold.answerable && q.gold.files.length > 0 && (!split || q.split === split),
  );
}

/**
 * A question's translation into the corpus language (undefined when it is asked in that language, or
 * the translator failed) and its search plan, as `cita search` makes them: with the senses the docs
 * prefer beside the translation when `retrieval.crossLingual.bm25` is `disambiguated`, but without the
 * language model's translation (`retrieval.crossLingual.model`): these research tools compare the
 * question's and Apertium's vectors (planVector); `cita eval` measures the model's.
 */
export async function questionPlan(config: Pick<CitaConfig, 'languages' | 'retrieval'>, q: EvalQuestion, store: Store): Promise<{ translation?: string; plan: QueryPlan }> {
  const plain = withoutModelTranslation(config);
  const t = q.lang === config.languages.corpus ? undefined : await translateQuestion(plain, q.question, q.lang, undefined, store);
  return { ...(t?.text !== undefined ? { translation: t.text } : {}), plan: searchPlan(q.question, '', t, plain.retrieval.crossLingual).question };
}

/**
 * The dense side's query vector of a search plan: the mean of the vectors of the texts it names, the
 * question as asked (`asked`) or its translation (`translated`), as `cita search` embeds them.
 */
export function planVector(plan: QueryPlan, question: string, asked: Float32Array, translated: Float32Array): Float32Array {
  return meanVector(plan.dense.map((d) => (d === question ? asked : translated)));
}

/** The distinct files of the docs collection's hybrid ranking (BM25 over `text`, dense by `vector`, weight `alpha`), `depth` chunks deep. */
export async function docsFiles(store: Store, text: string, vector: Float32Array | undefined, alpha: number, depth = 50, phrases?: readonly string[]): Promise<string[]> {
  return distinct((await hybridCandidates(store, vector, 'docs', text, depth, alpha, phrases)).map((h) => h.chunk.citation.path));
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
