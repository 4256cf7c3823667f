/**
 * Hubness reduction for the dense side of docs retrieval (#15): in a high-dimensional space some
 * chunks are near almost every query ("hubs"), and cross-lingual matches suffer most from them
 * (Conneau et al. 2018, CSLS; Radovanović et al. 2010). Two corrections of a chunk's cosine, each
 * fused with BM25 as `cita search --source docs` fuses them (same index, same questions, one run):
 * - `csls β`: cos(q, d) − β · r(d), r(d) the mean cosine of d to its K nearest chunks of the collection
 *   (CSLS's target-side term; its query-side term is the same for every chunk of a query);
 * - `center γ`: cos(q, d) − γ · μ·d, μ the collection's mean vector (centring, Suzuki et al. 2013).
 * β = γ = 0 is today's hybrid. Vectors come from the index's vector cache (nothing is embedded but the
 * questions); r is exact (every pair), which is fine at these sizes and would need sampling at 200,000.
 *
 *   node --import tsx eval/hubnessRetrieval.ts [instance] --dataset datasets/pytest-docs.jsonl [--split dev]
 *     [--k 10] [--betas 0,0.25,0.5] [--gammas 0.25,0.5]
 */
import { findRoot } from '../pipeline/config/load.ts';
import { vectorKey } from '../pipeline/index/indexer.ts';
import { openInstance, openVectorCache } from '../pipeline/instance.ts';
import { convexCombination } from '../pipeline/retrieval/hybrid.ts';
import type { Chunk, ScoredChunk } from '../pipeline/types.ts';
import { accuracyAt1 } from './metrics/accuracyAt1.ts';
import { distinct, recallAtK } from './metrics/recallAtK.ts';
import { answerableQuestions, experimentArgs, modeTable, planVector, questionPlan, type ModeRow } from './docsQuestions.ts';

const { values, instance } = experimentArgs({
  k: { type: 'string', default: '10' },
  betas: { type: 'string', default: '0,0.25,0.5' },
  gammas: { type: 'string', default: '0.25,0.5' },
});
const numbers = (s: string | undefined) => (s ?? '').split(',').filter((x) => x.trim() !== '').map(Number);
const K = Number(values.k);
const root = findRoot();
const questions = answerableQuestions(values.dataset, values.split, root);
const { config, embedder, store, close, paths } = await openInstance(instance, { purpose: 'search', root });
const chunks: Chunk[] = await store.get(await store.ids('docs'));
const cache = openVectorCache(config, paths);
const cached = chunks.map((c) => cache.get(embedder.id, vectorKey(c)));
if (cached.some((v) => !v)) throw new Error(`${cached.filter((v) => !v).length} docs vectors are not in the vector cache: run \`cita index ${instance}\``);
const vectors = cached as Float32Array[];

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);
/** r(d): the mean cosine of each chunk to its K nearest other chunks. */
const density = vectors.map((v, i) => {
  const nearest = vectors.map((w, j) => (i === j ? -Infinity : dot(v, w))).sort((a, b) => b - a).slice(0, K);
  return nearest.reduce((s, x) => s + x, 0) / K;
});
const mean = new Float32Array(vectors[0]!.length);
for (const v of vectors) v.forEach((x, i) => (mean[i]! += x / vectors.length));
const centrality = vectors.map((v) => dot(mean, v));

const variants = [
  ...numbers(values.betas).map((b) => ({ mode: b === 0 ? 'hybrid (today)' : `csls β=${b}`, penalty: density, weight: b })),
  ...numbers(values.gammas).map((g) => ({ mode: `center γ=${g}`, penalty: centrality, weight: g })),
];
const rows: ModeRow[] = [];
for (const q of questions) {
  const { translation, plan } = await questionPlan(config, q, store);
  const [asked, translated] = await embedder.embedQueries([q.question, translation ?? q.question]);
  const vector = planVector(plan, q.question, asked!, translated!);
  const bm25 = await store.bm25('docs', plan.bm25, 50, plan.phrases);
  const cosines = vectors.map((v) => dot(vector, v));
  for (const { mode, penalty, weight } of variants) {
    const dense: ScoredChunk[] = chunks
      .map((chunk, i) => ({ chunk, score: cosines[i]! - weight * penalty[i]! }))
      .sort((a, b) => b.score - a.score || a.chunk.id.localeCompare(b.chunk.id))
      .slice(0, 50);
    const files = distinct(convexCombination(bm25, dense, config.retrieval.hybrid.alpha).map((h) => h.chunk.citation.path));
    rows.push({ lang: q.lang, mode, recall: recallAtK(files, q.gold.files, 5), acc1: accuracyAt1(files, q.gold.files) });
  }
}
console.log(`docs collection of ${instance} (${chunks.length} chunks), ${questions.length} questions${values.split ? ` (${values.split})` : ''}, K ${K}`);
for (const line of modeTable(rows, 5, 24)) console.log(line);
cache.close();
await close();
process.exit(0);
