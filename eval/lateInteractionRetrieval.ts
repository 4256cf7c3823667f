/**
 * Would late interaction re-rank the docs better (#15)? For each answerable docs question: the docs collection's
 * hybrid candidates (as `cita search --source docs`, without the language model's rendering: the research tools'
 * base, docsQuestions.ts), their first `depth` re-ranked by the hybrid score plus λ × MaxSim over the model's token
 * vectors (pipeline/retrieval/lateInteraction.ts) against the question as asked (`asked`) or against it and
 * Apertium's translation (`both`, the mean of the two), both min–max scaled within the question; `alone`: MaxSim's
 * order alone. File Recall@5 and Acc@1 per language. A research tool: figures, no A/B (`cita eval --set
 * retrieval.lateInteraction.weight=λ` is the A/B through `ask`).
 *
 *   node --import tsx eval/lateInteractionRetrieval.ts [instance] --dataset datasets/pytest-docs.jsonl [--split dev] [--depth 30] [--lambdas 0.5,1,2]
 */
import { findRoot } from '../pipeline/config/load.ts';
import { openInstance } from '../pipeline/instance.ts';
import { meanMaxSim } from '../pipeline/retrieval/lateInteraction.ts';
import { rerankHead } from '../pipeline/retrieval/rerank.ts';
import { hybridCandidates } from '../pipeline/retrieval/search.ts';
import type { SearchHit } from '../pipeline/types.ts';
import { accuracyAt1 } from './metrics/accuracyAt1.ts';
import { distinct, recallAtK } from './metrics/recallAtK.ts';
import { answerableQuestions, experimentArgs, modeTable, planVector, questionPlan, type ModeRow } from './docsQuestions.ts';

const { values, instance } = experimentArgs({ depth: { type: 'string', default: '30' }, lambdas: { type: 'string', default: '0.5,1,2' } });
const depth = Number(values.depth);
const lambdas = values.lambdas!.split(',').map(Number);
const root = findRoot();
const questions = answerableQuestions(values.dataset, values.split, root);
const { config, embedder, store, close } = await openInstance(instance, { purpose: 'search', root });
if (!embedder.tokenVectors) throw new Error(`the embedder ${embedder.id} gives no token vectors (embedding.provider: transformers does)`);

const rows: ModeRow[] = [];
const passages = new Map<string, Float32Array>();
const row = (q: (typeof questions)[number], mode: string, hits: readonly SearchHit[]) => {
  const files = distinct(hits.map((h) => h.chunk.citation.path));
  rows.push({ lang: q.lang, mode, recall: recallAtK(files, q.gold.files, 5), acc1: accuracyAt1(files, q.gold.files) });
};
const started = Date.now();
for (const q of questions) {
  const { translation, plan } = await questionPlan(config, q, store);
  const [vq, vt] = await embedder.embedQueries(translation ? [q.question, translation] : [q.question]);
  const hits = (await hybridCandidates(store, planVector(plan, q.question, vq!, vt!), 'docs', plan.bm25, depth, config.retrieval.hybrid.alpha)).slice(0, depth);
  row(q, 'hybrid', hits);
  // Each chunk's token vectors once for the run (a docs collection's candidates recur from question to question).
  const missing = [...new Set(hits.map((h) => h.chunk.text).filter((t) => !passages.has(t)))];
  (await embedder.tokenVectors!(missing, 'passage')).forEach((v, i) => passages.set(missing[i]!, v));
  const [asked, translated] = await embedder.tokenVectors!(translation ? [q.question, translation] : [q.question], 'query');
  const against = (queries: Float32Array[]) => hits.map((h) => meanMaxSim(queries, passages.get(h.chunk.text)!, embedder.dims));
  const sims = { asked: against([asked!]), both: against(translated ? [asked!, translated] : [asked!]) };
  for (const [name, s] of Object.entries(sims)) {
    for (const lambda of lambdas) row(q, `${name} λ=${lambda}`, rerankHead(hits, s, lambda));
    row(q, `${name} alone`, hits.map((h, i) => ({ h, s: s[i]!, i })).sort((a, b) => b.s - a.s || a.i - b.i).map((x) => x.h));
  }
}

console.log(`${instance} docs, ${questions.length} questions, the first ${depth} hybrid candidates re-ranked (${((Date.now() - started) / 1000).toFixed(1)} s)`);
for (const line of modeTable(rows, 5, 14, 'mode')) console.log(line);
await close();
process.exit(0);
