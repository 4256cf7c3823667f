/**
 * Is part of the Spanish docs gap a language offset in the embedding space (#15 item 2, "the model's
 * cross-lingual alignment")? Multilingual encoders keep a language-specific component: a Spanish
 * question and its English twin differ by a roughly constant vector beside their meaning. Estimated
 * from parallel text that is not the evaluation's — the Spanish message catalogs of developer tools
 * (pipeline/text/lexicon/catalogs.ts) — as the mean English vector minus the mean Spanish one, and added to a
 * Spanish question's vector before the dense search (`+ shift β`: β times that offset). Docs
 * collection alone, file Recall@k / Acc@1 per language, the dense side and the hybrid as `cita search
 * --source docs` runs them; questions in the corpus language are searched unchanged.
 *
 *   node --import tsx eval/alignRetrieval.ts [instance] --dataset datasets/pytest-docs.jsonl [--split dev] [--pairs 4000] [--betas 0.5,1] [--k 5]
 */
import crypto from 'node:crypto';
import path from 'node:path';
import { findRoot } from '../pipeline/config/load.ts';
import { openInstance } from '../pipeline/instance.ts';
import { cosine } from '../pipeline/vectors.ts';
import { accuracyAt1 } from './metrics/accuracyAt1.ts';
import { recallAtK } from './metrics/recallAtK.ts';
import { answerableQuestions, docsFiles, experimentArgs, modeTable, planVector, questionPlan, type ModeRow } from './docsQuestions.ts';
import { catalogPairs } from '../pipeline/text/lexicon/catalogs.ts';
import type { MessagePair } from '../pipeline/text/lexicon/mo.ts';

const { values, instance } = experimentArgs({
  k: { type: 'string', default: '5' },
  pairs: { type: 'string', default: '4000' },
  betas: { type: 'string', default: '0.5,1' },
});
const k = Number(values.k);
const betas = values.betas!.split(',').map(Number);
const root = findRoot();
const questions = answerableQuestions(values.dataset, values.split, root);
const { config, embedder, store, close } = await openInstance(instance, { purpose: 'search', root });

/** A catalog message as prose: format directives, accelerators and markup out, whitespace collapsed. */
function prose(message: string): string {
  return message
    .replace(/%(\d+\$)?[-+ #0]*\d*(\.\d+)?[hlLqjzt]*[diouxXeEfgGcsp%]/g, ' ')
    .replace(/\{[^}]*\}|<[^>]*>|&(?=\w)|_(?=\w)/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

const words = (s: string) => s.split(' ').filter((w) => /\p{L}/u.test(w)).length;

/** `n` message pairs of 3–30 words a side, distinct, drawn by a hash of the English text (the same draw every run). */
function sample(pairs: MessagePair[], n: number): MessagePair[] {
  const seen = new Map<string, MessagePair>();
  for (const p of pairs) {
    const en = prose(p.source);
    const es = prose(p.translation);
    if (en === es || words(en) < 3 || words(en) > 30 || words(es) < 3 || words(es) > 30) continue;
    if (!seen.has(en)) seen.set(en, { source: en, translation: es });
  }
  const key = (s: string) => crypto.createHash('sha1').update(s).digest('hex');
  return [...seen.values()].sort((a, b) => (key(a.source) < key(b.source) ? -1 : 1)).slice(0, n);
}

function mean(vectors: Float32Array[]): Float32Array {
  const out = new Float32Array(vectors[0]!.length);
  for (const v of vectors) for (let i = 0; i < v.length; i++) out[i]! += v[i]! / vectors.length;
  return out;
}

async function embedAll(texts: string[]): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  for (let i = 0; i < texts.length; i += 64) out.push(...(await embedder.embedQueries(texts.slice(i, i + 64))));
  return out;
}

const started = Date.now();
const drawn = sample(catalogPairs(path.join(root, '.cita/cache/lexicon'), (m) => console.error(m)), Number(values.pairs));
const en = await embedAll(drawn.map((p) => p.source));
const es = await embedAll(drawn.map((p) => p.translation));
const muEn = mean(en);
const muEs = mean(es);
const offset = muEn.map((x, i) => x - muEs[i]!);
/** A vector moved by β times the language offset, scaled back to unit length. */
function shifted(v: Float32Array, beta: number): Float32Array {
  const moved = v.map((x, i) => x + beta * offset[i]!);
  const norm = Math.hypot(...moved);
  return moved.map((x) => x / norm);
}
const pairCos = (beta: number) => en.reduce((s, v, i) => s + cosine(v, shifted(es[i]!, beta)), 0) / en.length;
console.error(
  `${drawn.length} catalog pairs embedded in ${((Date.now() - started) / 1000).toFixed(1)} s; |offset| ${Math.hypot(...offset).toFixed(3)}; ` +
    `mean cosine en–es ${pairCos(0).toFixed(3)}, after the shift ${pairCos(1).toFixed(3)}`,
);

const alpha = config.retrieval.hybrid.alpha;
const rows: ModeRow[] = [];
for (const q of questions) {
  const { translation, plan } = await questionPlan(config, q, store);
  const [asked, translated] = await embedder.embedQueries([q.question, translation ?? q.question]);
  const foreign = q.lang !== config.languages.corpus;
  const modes: Record<string, () => Promise<string[]>> = {
    'dense asked': () => docsFiles(store, '', asked, 1),
    hybrid: () => docsFiles(store, plan.bm25, planVector(plan, q.question, asked!, translated!), alpha),
  };
  for (const beta of betas) {
    const moved = foreign ? shifted(asked!, beta) : asked!;
    modes[`dense asked + shift ${beta}`] = () => docsFiles(store, '', moved, 1);
    modes[`hybrid + shift ${beta}`] = () => docsFiles(store, plan.bm25, planVector(plan, q.question, moved, translated!), alpha);
  }
  for (const [mode, run] of Object.entries(modes)) {
    const ranked = await run();
    rows.push({ lang: q.lang, mode, recall: recallAtK(ranked, q.gold.files, k), acc1: accuracyAt1(ranked, q.gold.files) });
  }
}
console.log(`docs collection, ${questions.length} questions, model ${embedder.id}, alpha ${alpha}`);
for (const line of modeTable(rows, k)) console.log(line);
await close();
process.exit(0);
