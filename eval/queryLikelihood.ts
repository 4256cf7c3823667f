/**
 * Would the docs ranking gain from a language model's query likelihood (#15)? Unsupervised passage
 * re-ranking (Sachan et al. 2022, "UPR"): a candidate passage is scored by how likely the model finds
 * the question after it, log p(question | passage), averaged over the question's tokens. The model is
 * the model translator's (`languages.modelTranslator`, the pretrained multilingual Gemma 3 270M), so
 * a Spanish question can be scored as asked against an English passage: a cross-lingual relevance
 * signal that goes through no translator. For each answerable docs question: the docs collection's
 * hybrid candidates (as `cita search --source docs`, `depth` chunks), the first `top` re-ranked by the
 * hybrid score plus λ × the likelihood, both min–max scaled within the question (λ = ∞: the likelihood
 * alone over the first `top`). Scored texts: the question as asked (`asked`), and for a question in
 * another language, with `--translated`, its Apertium translation (`translated`) and the sum of both (`both`). File
 * Recall@5 and Acc@1 per language. A research tool: figures, no A/B.
 *
 *   node --import tsx eval/queryLikelihood.ts [instance] --dataset datasets/pytest-docs.jsonl [--split dev] [--top 10] [--chars 1000] [--threads N] [--lambdas 0.5,1,2] [--translated]
 */
import { findRoot } from '../pipeline/config/load.ts';
import { openInstance } from '../pipeline/instance.ts';
import { minMax } from '../pipeline/retrieval/hybrid.ts';
import { hybridCandidates } from '../pipeline/retrieval/search.ts';
import { likelihoodScores } from '../pipeline/retrieval/queryLikelihood.ts';
import { ModelTranslator, modelTranslatorOptions } from '../pipeline/text/modelTranslate.ts';
import { accuracyAt1 } from './metrics/accuracyAt1.ts';
import { distinct, recallAtK } from './metrics/recallAtK.ts';
import { answerableQuestions, experimentArgs, modeTable, planVector, questionPlan, type ModeRow } from './docsQuestions.ts';

const { values, instance } = experimentArgs({
  depth: { type: 'string', default: '20' },
  top: { type: 'string', default: '10' },
  chars: { type: 'string', default: '1000' },
  lambdas: { type: 'string', default: '0.5,1,2' },
  threads: { type: 'string' },
  translated: { type: 'boolean' },
});
const depth = Number(values.depth);
const top = Number(values.top);
const passageChars = Number(values.chars);
const lambdas = [0, ...values.lambdas!.split(',').map(Number), Infinity];
const root = findRoot();
const questions = answerableQuestions(values.dataset, values.split, root);
const { config, embedder, store, close } = await openInstance(instance, { purpose: 'search', root });
// The model translator's model, as `ask` scores with it (in this process; `--threads` for a machine to itself).
const model = new ModelTranslator({ ...modelTranslatorOptions(config.languages.modelTranslator), isolate: false, ...(values.threads ? { threads: Number(values.threads) } : {}) });
const options = { depth: top, passageChars };

const rows: ModeRow[] = [];
const started = Date.now();
let scored = 0;
for (const q of questions) {
  const { translation, plan } = await questionPlan(config, q, store);
  const [vq, vt] = await embedder.embedQueries(translation ? [q.question, translation] : [q.question]);
  const hits = (await hybridCandidates(store, planVector(plan, q.question, vq!, vt!), 'docs', plan.bm25, depth, config.retrieval.hybrid.alpha)).slice(0, top);
  const asked = await likelihoodScores(model, hits, q.question, options);
  const translated = translation && values.translated ? await likelihoodScores(model, hits, translation, options) : [];
  scored += hits.length;
  const hybrid = minMax(hits.map((h) => h.score));
  const signals: Record<string, number[]> = { asked: minMax(asked) };
  if (translation && values.translated) {
    signals.translated = minMax(translated);
    signals.both = minMax(asked.map((a, i) => a + translated[i]!));
  }
  for (const [name, signal] of Object.entries(signals))
    for (const lambda of lambdas) {
      const order = hits
        .map((h, i) => ({ h, s: lambda === Infinity ? signal[i]! : hybrid[i]! + lambda * signal[i]!, i }))
        .sort((a, b) => b.s - a.s || a.i - b.i);
      const files = distinct(order.map((o) => o.h.chunk.citation.path));
      const mode = lambda === 0 ? 'hybrid' : `${name} λ=${lambda}`;
      rows.push({ lang: q.lang, mode, recall: recallAtK(files, q.gold.files, 5), acc1: accuracyAt1(files, q.gold.files) });
      // English questions have one signal; give its rows the Spanish modes' names so the table lines them up.
      if (values.translated && q.lang === 'en' && name === 'asked' && lambda !== 0)
        for (const alias of ['translated', 'both']) rows.push({ lang: q.lang, mode: `${alias} λ=${lambda}`, recall: recallAtK(files, q.gold.files, 5), acc1: accuracyAt1(files, q.gold.files) });
    }
}

console.log(`docs, ${questions.length} questions, top ${top} of the hybrid's ${depth} candidates re-ranked by ${model.id}, ${scored} passages, ${passageChars} characters each (${((Date.now() - started) / 1000).toFixed(1)} s)`);
// A Spanish question's hybrid row appears once per signal, each the same: the means are the hybrid's.
for (const line of modeTable(rows, 5, 16, 'signal')) console.log(line);
await model.close();
await close();
process.exit(0);
