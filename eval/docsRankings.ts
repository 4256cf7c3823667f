/**
 * The ranked docs files behind eval/docsRetrieval.ts, dumped per question as JSON, so that a model
 * that only runs outside cita (a Python-only embedder or reranker, #15 item 2) can be measured
 * against, and fused with, the same index and questions: for each answerable question of a
 * cita-format dataset, its translation and the distinct file paths (best first, 50 chunks deep) of
 * the hybrid search and of the dense side on the question as asked.
 *
 *   node --import tsx eval/docsRankings.ts [instance] --dataset datasets/pytest-docs.jsonl [--split dev] > rankings.json
 */
import { findRoot } from '../pipeline/config/load.ts';
import { openInstance } from '../pipeline/instance.ts';
import { answerableQuestions, docsFiles, experimentArgs, planVector, questionPlan } from './docsQuestions.ts';

const { values, instance } = experimentArgs({});
const root = findRoot();
const questions = answerableQuestions(values.dataset, values.split, root);
const { config, embedder, store, close } = await openInstance(instance, { purpose: 'search', root });
const alpha = config.retrieval.hybrid.alpha;
const depth = 50;

const files = (text: string, vector: Float32Array | undefined, a: number) => docsFiles(store, text, vector, a, depth);

const out = [];
for (const q of questions) {
  const { translation, plan } = await questionPlan(config, q, store);
  const t = translation ?? q.question;
  const [vOriginal, vTranslated] = await embedder.embedQueries([q.question, t]);
  out.push({
    id: q.id,
    pair: q.pair,
    lang: q.lang,
    question: q.question,
    translation: t,
    gold: q.gold.files,
    hybrid: await files(plan.bm25, planVector(plan, q.question, vOriginal!, vTranslated!), alpha),
    denseAsked: await files('', vOriginal, 1),
  });
}
console.log(JSON.stringify({ instance, model: embedder.id, alpha, depth, questions: out }, null, 1));
await close();
process.exit(0);
