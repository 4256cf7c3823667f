/**
 * Compounds the docs use, searched as phrases (#15; pipeline/retrieval/compounds.ts): docs collection
 * alone, file Recall@k / Acc@1 per language, the hybrid as `cita search --source docs` runs it with
 * the instance's config (`today`) and with `retrieval.crossLingual.phrases: compounds`. `--show`: each
 * question that found a compound, with its change (Recall@k / Acc@1) and the compounds.
 *
 *   node --import tsx eval/compoundRetrieval.ts [instance] --dataset datasets/pytest-docs.jsonl [--split dev] [--k 5] [--show]
 */
import { findRoot } from '../pipeline/config/load.ts';
import { openInstance } from '../pipeline/instance.ts';
import { accuracyAt1 } from './metrics/accuracyAt1.ts';
import { recallAtK } from './metrics/recallAtK.ts';
import { answerableQuestions, docsFiles, experimentArgs, modeTable, planVector, questionPlan, type ModeRow } from './docsQuestions.ts';

const { values, instance } = experimentArgs({ k: { type: 'string', default: '5' }, show: { type: 'boolean' } });
const k = Number(values.k);
const root = findRoot();
const questions = answerableQuestions(values.dataset, values.split, root);
const { config, embedder, store, close } = await openInstance(instance, { purpose: 'search', root });
const modes = {
  today: config,
  '+ compounds': { ...config, retrieval: { ...config.retrieval, crossLingual: { ...config.retrieval.crossLingual, phrases: 'compounds' as const } } },
};
const alpha = config.retrieval.hybrid.alpha;
const rows: ModeRow[] = [];
for (const q of questions) {
  const scores: number[][] = [];
  let phrases: string[] = [];
  for (const [mode, c] of Object.entries(modes)) {
    const { translation, plan } = await questionPlan(c, q, store);
    const [asked, translated] = await embedder.embedQueries([q.question, translation ?? q.question]);
    const ranked = await docsFiles(store, plan.bm25, planVector(plan, q.question, asked!, translated!), alpha, 50, plan.phrases);
    const row = { lang: q.lang, mode, recall: recallAtK(ranked, q.gold.files, k), acc1: accuracyAt1(ranked, q.gold.files) };
    rows.push(row);
    scores.push([row.recall, row.acc1]);
    phrases = plan.phrases ?? phrases;
  }
  if (values.show && phrases.length) console.log(`${q.id} [${(scores[1]![0]! - scores[0]![0]!).toFixed(2)} / ${scores[1]![1]! - scores[0]![1]!}] ${phrases.join(' | ')}  ← ${q.question}`);
}
console.log(`docs collection, ${questions.length} questions, model ${embedder.id}, alpha ${alpha}`);
for (const line of modeTable(rows, k)) console.log(line);
await close();
process.exit(0);
