/**
 * Cross-lingual dense retrieval on XQuAD (#15), with the power the docs sets lack: each of the 1,190
 * questions, asked in English and (the same one) in Spanish, searches all 240 English paragraphs
 * (`passage: `-embedded as docs pages, eval/xquadAnswers.ts) with the dense side alone; the Spanish
 * question as asked, then with each translation's vector in the mean as `retrieval.crossLingual.dense`
 * and `.model` would put it: Apertium's (the configured translator), the language model's
 * (`languages.modelTranslator`), both. Paragraph P@1 and R@5, each Spanish mode against the question
 * as asked (paired permutation test, Holm over the table; `--against` another mode of the table); English as asked
 * for reference. The modes marked `− offset` take the embedder's Spanish → English language offset out of the
 * question's vector (`retrieval.crossLingual.offset: catalogs`, pipeline/embedding/languageOffset.ts; made on first use).
 *
 *   node --import tsx eval/xquadRetrieval.ts [--instance pytest] [--xquad <dir>] [--limit N] [--against 'es + model:gemma-3-270m']
 */
import { parseArgs } from 'node:util';
import { findRoot } from '../pipeline/config/load.ts';
import { translateQuestion, withoutModelTranslation } from '../pipeline/retrieval/crossLingual.ts';
import { ModelTranslator, modelTranslatorOptions } from '../pipeline/text/modelTranslate.ts';
import { offsetFor, withoutOffset } from '../pipeline/embedding/languageOffset.ts';
import { cosine, meanVector } from '../pipeline/vectors.ts';
import { comparePaired, holmAdjust } from './stats/index.ts';
import { openTargets } from './target.ts';
import { paragraphChunk, readXquad } from './xquadAnswers.ts';

const { values } = parseArgs({ options: { instance: { type: 'string', default: 'pytest' }, xquad: { type: 'string' }, limit: { type: 'string' }, against: { type: 'string', default: 'es asked' } } });
const root = findRoot();
const set = readXquad(values.xquad, root);
const questions = values.limit ? set.questions.slice(0, Number(values.limit)) : set.questions;

const { targets, close } = await openTargets([{ label: 'xquad', instance: values.instance!, overlays: [], overrides: ['eval.judge.kind=none'] }], root, (m) => process.stderr.write(`${m}\n`));
const t = targets[0]!;
const model = new ModelTranslator(modelTranslatorOptions(t.config.languages.modelTranslator));
const apertiumOnly = withoutModelTranslation(t.config);
try {
  const chunks = set.paragraphs.map(paragraphChunk);
  const paragraphs: Float32Array[] = [];
  for (let i = 0; i < chunks.length; i += 32) paragraphs.push(...(await t.embedder.embedPassages(chunks.slice(i, i + 32).map((c) => c.text))));
  /** How many paragraphs score above the gold one: 0 is first. */
  const rankOf = (v: Float32Array, gold: number) => {
    const g = cosine(v, paragraphs[gold]!);
    return paragraphs.filter((p) => cosine(v, p) > g).length;
  };
  const offset = await offsetFor(t.config, t.embedder, 'es', { log: (m) => process.stderr.write(`${m}\n`) });
  const MODES = ['en asked', 'es asked', 'es + Apertium', `es + ${model.id}`, `es + Apertium + ${model.id}`, 'es − offset', `es − offset + ${model.id}`, `es − offset + Apertium + ${model.id}`];
  if (!MODES.includes(values.against!)) throw new Error(`--against: one of ${MODES.map((m) => JSON.stringify(m)).join(', ')}`);
  const ranks = new Map<string, number[]>(MODES.map((m) => [m, []]));
  let rendered = 0;
  const started = Date.now();
  for (const [i, q] of questions.entries()) {
    const es = q.question.es;
    const apertium = (await translateQuestion(apertiumOnly, es, 'es', t.translator))?.text ?? es;
    const byModel = (await model.translate(es, 'es', 'en')) ?? apertium;
    if (byModel !== apertium) rendered++;
    const [en, asked, ap, md] = await t.embedder.embedQueries([q.question.en, es, apertium, byModel]);
    const shifted = withoutOffset(asked!, offset.vector);
    const vectors = [en!, asked!, meanVector([asked!, ap!]), meanVector([asked!, md!]), meanVector([asked!, ap!, md!]), shifted, meanVector([shifted, md!]), meanVector([shifted, ap!, md!])];
    MODES.forEach((m, k) => ranks.get(m)!.push(rankOf(vectors[k]!, q.paragraph)));
    if ((i + 1) % 100 === 0) process.stderr.write(`\r${i + 1}/${questions.length}`);
  }
  process.stderr.write(`\n${questions.length} questions, ${chunks.length} paragraphs, ${((Date.now() - started) / 1000).toFixed(0)} s; the model translated ${rendered}\n`);

  const stats = { seed: `${t.config.eval.seed}:xquad-retrieval`, permutations: t.config.eval.permutations, bootstrap: t.config.eval.bootstrap };
  const base = ranks.get(values.against!)!;
  const rows = MODES.flatMap((m) =>
    (['P@1', 'R@5'] as const).map((metric) => {
      const hit = (r: number) => (metric === 'P@1' ? (r === 0 ? 1 : 0) : r < 5 ? 1 : 0);
      return { m, metric, c: comparePaired(base.map((b, i) => [hit(b), hit(ranks.get(m)![i]!)] as const), { ...stats, seed: `${stats.seed}:${m}:${metric}` })! };
    }),
  );
  const holm = holmAdjust(rows.map((r) => r.c.p));
  const pct = (x: number) => (100 * x).toFixed(1);
  console.log(`XQuAD, ${questions.length} questions, dense search over all ${chunks.length} paragraphs (${t.embedder.id}); Δ against ${values.against}`);
  console.log(`${'query vector'.padEnd(44)}${'metric'.padEnd(7)}${'value'.padStart(7)}  ${'Δ [95% CI]'.padEnd(22)}${'p Holm'.padStart(8)}`);
  rows.forEach((r, k) =>
    console.log(`${r.m.padEnd(44)}${r.metric.padEnd(7)}${pct(r.c.meanB).padStart(7)}  ${`${r.c.diff >= 0 ? '+' : ''}${pct(r.c.diff)} [${pct(r.c.low)}, ${pct(r.c.high)}]`.padEnd(22)}${holm[k]!.toFixed(3).padStart(8)}`),
  );
} finally {
  await model.close();
  await close();
}
process.exit(0);
