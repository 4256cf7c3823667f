/**
 * Would the docs ranking gain from sentence-level similarity (#15)? A chunk's vector averages a few
 * hundred tokens; a question, in Spanish above all, may match one sentence of the right page better
 * than the page's vector. For each answerable docs question: the docs collection's hybrid candidates
 * (as `cita search --source docs`), each chunk's prose sentences embedded as passages (as the
 * extractive generator embeds them), and the chunks re-ranked by the hybrid score plus λ × their
 * best sentence's cosine to the question (the mean of the question's and its translation's vectors,
 * as `answer.generator.meaningQuery: both`), min–max scaled within the question. File Recall@5 and
 * Acc@1 per language for λ = 0 (the hybrid) and each λ given. A research tool: figures, no A/B.
 *
 *   node --import tsx eval/sentenceRerank.ts [instance] --dataset datasets/pytest-docs.jsonl [--split dev] [--depth 20] [--lambdas 0.5,1,2]
 */
import { splitProse, splitUnits } from '../pipeline/chunking/sentences.ts';
import { splitBlockText } from '../pipeline/answer/context.ts';
import { findRoot } from '../pipeline/config/load.ts';
import { openInstance } from '../pipeline/instance.ts';
import { minMax } from '../pipeline/retrieval/hybrid.ts';
import { hybridCandidates } from '../pipeline/retrieval/search.ts';
import { cosine, meanVector } from '../pipeline/vectors.ts';
import { accuracyAt1 } from './metrics/accuracyAt1.ts';
import { distinct, recallAtK } from './metrics/recallAtK.ts';
import { answerableQuestions, experimentArgs, modeTable, planVector, questionPlan, type ModeRow } from './docsQuestions.ts';

const { values, instance } = experimentArgs({ depth: { type: 'string', default: '20' }, lambdas: { type: 'string', default: '0.5,1,2' } });
const depth = Number(values.depth);
const lambdas = [0, ...values.lambdas!.split(',').map(Number)];
const root = findRoot();
const questions = answerableQuestions(values.dataset, values.split, root);
const { config, embedder, store, close } = await openInstance(instance, { purpose: 'search', root });

/** Prose sentences of a chunk's body: what the extractive generator could quote. */
function sentences(chunk: Parameters<typeof splitBlockText>[0]): string[] {
  const { body } = splitBlockText(chunk);
  return splitUnits(body)
    .filter((u) => u.kind === 'prose')
    .flatMap((u) => splitProse(u.text))
    .map((s) => s.replace(/\s+/g, ' ').trim())
    .filter((s) => (s.match(/\p{L}+/gu) ?? []).length >= 3);
}

const vectors = new Map<string, Float32Array>();
async function embedAll(texts: string[]): Promise<void> {
  const missing = [...new Set(texts.filter((t) => !vectors.has(t)))];
  for (let i = 0; i < missing.length; i += 64) {
    const batch = missing.slice(i, i + 64);
    (await embedder.embedPassages(batch)).forEach((v, j) => vectors.set(batch[j]!, v));
  }
}

const rows: ModeRow[] = [];
const started = Date.now();
for (const q of questions) {
  const { translation, plan } = await questionPlan(config, q, store);
  const [vq, vt] = await embedder.embedQueries(translation ? [q.question, translation] : [q.question]);
  const denseQuery = planVector(plan, q.question, vq!, vt!);
  const meaning = vt ? meanVector([vq!, vt]) : vq!;
  const hits = await hybridCandidates(store, denseQuery, 'docs', plan.bm25, depth, config.retrieval.hybrid.alpha);
  const perHit = hits.map((h) => sentences(h.chunk));
  await embedAll(perHit.flat());
  const best = perHit.map((ss) => Math.max(-1, ...ss.map((s) => cosine(meaning, vectors.get(s)!))));
  const hybrid = minMax(hits.map((h) => h.score));
  // A chunk with no prose sentence (code, a table) counts as the least similar.
  const sentence = minMax(best.map((b) => Math.max(b, 0)));
  for (const lambda of lambdas) {
    const order = hits.map((h, i) => ({ h, s: hybrid[i]! + lambda * sentence[i]!, i })).sort((a, b) => b.s - a.s || a.i - b.i);
    const files = distinct(order.map((o) => o.h.chunk.citation.path));
    rows.push({ lang: q.lang, mode: String(lambda), recall: recallAtK(files, q.gold.files, 5), acc1: accuracyAt1(files, q.gold.files) });
  }
}

console.log(`docs, ${questions.length} questions, top ${depth} hybrid candidates re-ranked, ${vectors.size} sentences embedded (${((Date.now() - started) / 1000).toFixed(1)} s)`);
for (const line of modeTable(rows, 5, 8, 'λ')) console.log(line);
await close();
process.exit(0);
