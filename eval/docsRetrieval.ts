/**
 * Where a language gap in docs retrieval comes from: file Recall@5 and Acc@1 of the docs collection
 * alone, per language, for BM25 and the dense side each on the question as asked and on its
 * translation, and for the hybrid search `cita search --source docs` runs — same index, same
 * questions, one run. Answerable questions of a cita-format dataset only.
 *
 * `--query-prefixes "passage: ,"`: the dense side also with questions embedded under each of these
 * prefixes instead of the configured one (e5's `query: `), the passages as indexed — whether the
 * prefix is part of a language gap (#15).
 *
 *   node --import tsx eval/docsRetrieval.ts [instance] --dataset datasets/pytest-docs.jsonl [--split dev] [--k 5] [--query-prefixes "passage: ,"] [--json]
 */
import { findRoot } from '../pipeline/config/load.ts';
import { createEmbedder } from '../pipeline/embedding/create.ts';
import { embedderOptions, openInstance } from '../pipeline/instance.ts';
import { meanVector } from '../pipeline/vectors.ts';
import { accuracyAt1 } from './metrics/accuracyAt1.ts';
import { recallAtK } from './metrics/recallAtK.ts';
import { answerableQuestions, docsFiles, experimentArgs, modeTable, planVector, questionPlan, type ModeRow } from './docsQuestions.ts';

const { values, instance } = experimentArgs({ k: { type: 'string', default: '5' }, json: { type: 'boolean' }, 'query-prefixes': { type: 'string' } });
const k = Number(values.k);
const root = findRoot();
const questions = answerableQuestions(values.dataset, values.split, root);
const { config, embedder, store, close, paths } = await openInstance(instance, { purpose: 'search', root });
const prefixes = values['query-prefixes']?.split(',') ?? [];
// One embedder per other query prefix; passages keep theirs, so the index's vectors still apply.
const prefixed = await Promise.all(
  prefixes.map(async (query) => ({ query, embedder: await createEmbedder({ ...embedderOptions(config, paths, 'search'), prefixes: { query, passage: config.embedding.prefixes.passage } }) })),
);
const alpha = config.retrieval.hybrid.alpha;
const depth = 50;

type Row = ModeRow & { id: string; first: number };
const rows: Row[] = [];
const started = Date.now();
for (const q of questions) {
  const { translation, plan } = await questionPlan(config, q, store);
  const t = translation ?? q.question;
  const [vOriginal, vTranslated] = await embedder.embedQueries([q.question, t]);
  const modes: Record<string, () => Promise<string[]>> = {
    'bm25 asked': () => files(q.question, undefined, 0),
    'bm25 translated': () => files(t, undefined, 0),
    'dense asked': () => files('', vOriginal, 1),
    'dense translated': () => files('', vTranslated, 1),
    'dense mean': () => files('', meanVector([vOriginal!, vTranslated!]), 1),
    hybrid: () => files(plan.bm25, planVector(plan, q.question, vOriginal!, vTranslated!), alpha),
  };
  for (const p of prefixed) {
    const [o, tr] = await p.embedder.embedQueries([q.question, t]);
    modes[`dense asked ${JSON.stringify(p.query)}`] = () => files('', o, 1);
    modes[`dense translated ${JSON.stringify(p.query)}`] = () => files('', tr, 1);
  }
  for (const [mode, run] of Object.entries(modes)) {
    const ranked = await run();
    const first = ranked.findIndex((f) => q.gold.files.includes(f));
    rows.push({ id: q.id, lang: q.lang, mode, recall: recallAtK(ranked, q.gold.files, k), acc1: accuracyAt1(ranked, q.gold.files), first });
  }
}

function files(text: string, vector: Float32Array | undefined, a: number): Promise<string[]> {
  return docsFiles(store, text, vector, a, depth);
}

if (values.json) {
  console.log(JSON.stringify({ instance, k, model: embedder.id, rows }, null, 2));
} else {
  console.log(`docs collection, ${questions.length} questions, model ${embedder.id}, alpha ${alpha} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  for (const line of modeTable(rows, k)) console.log(line);
}
for (const p of prefixed) await p.embedder.close();
await close();
process.exit(0);
