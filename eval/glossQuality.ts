/**
 * How good the glosses of an answer's quotes are (#15, answers in the user's language), against human translations:
 * XQuAD's English paragraphs and their professional Spanish translations. Each paragraph's sentences
 * (splitSentences, as quotes are cut) are translated one at a time, as `answer.glosses` translates quotes, by the
 * configured translator (`languages.translator`: Apertium `eng-spa`) and by the configured language model
 * (`languages.modelTranslator`, shown its examples the other way round) — and by Apertium with the catalogs' choices among
 * its dictionary translations (`answer.glossSenses: catalogs`, when setup made them), also with imperative openings glossed
 * as infinitives (`answer.glossImperatives`) — and each paragraph's translation is scored against the reference
 * paragraph with chrF (eval/metrics/chrF.ts, sacreBLEU's default). Prints corpus chrF per translator, each one's
 * paired difference with the first over paragraphs (permutation test, bootstrap interval), how many paragraphs it
 * wins and loses, and the time per sentence.
 *
 *   node --import tsx eval/glossQuality.ts [--instance pytest] [--paragraphs 40] [--every 6] [--xquad <dir>]
 */
import { parseArgs } from 'node:util';
import { splitSentences } from '../pipeline/chunking/sentences.ts';
import { glossChoicesFor, glossText } from '../pipeline/answer/glosses.ts';
import { findRoot, loadConfig } from '../pipeline/config/load.ts';
import { ModelTranslator, modelTranslatorOptions } from '../pipeline/text/modelTranslate.ts';
import { translatorFor, type Language } from '../pipeline/text/translate.ts';
import { chrf, corpusChrf } from './metrics/chrF.ts';
import { comparePaired } from './stats/index.ts';
import { readXquad } from './xquadAnswers.ts';

const { values } = parseArgs({
  options: { instance: { type: 'string', default: 'pytest' }, paragraphs: { type: 'string', default: '40' }, every: { type: 'string', default: '6' }, xquad: { type: 'string' } },
});
const root = findRoot();
const { config } = loadConfig(values.instance!, { root });
// Every k-th paragraph, so that several articles are read.
const paragraphs = readXquad(values.xquad, root)
  .paragraphs.filter((_, i) => i % Number(values.every) === 0)
  .slice(0, Number(values.paragraphs));

const apertium = translatorFor(config.languages.translator);
if (!apertium) throw new Error(`${values.instance}: languages.translator is none`);
// A quote can be longer than a question: the model is given every sentence here (maxWords is for questions).
const model = new ModelTranslator({ ...modelTranslatorOptions(config.languages.modelTranslator), maxWords: Number.MAX_SAFE_INTEGER, isolate: false });
// Apertium with the catalogs' choices among its dictionary translations (answer.glossSenses: catalogs), as glosses are made.
const choices = glossChoicesFor({ ...config, answer: { ...config.answer, glossSenses: 'catalogs' } });
const translators: { id: string; translate: (text: string, from: Language, to: Language) => Promise<string | undefined> }[] = [
  { id: apertium.id, translate: (t, f, to) => apertium.translate(t, f, to) },
  ...(choices ? [{ id: `${apertium.id} + catalogs`, translate: (t: string, f: Language, to: Language) => apertium.translate(t, f, to, [], choices) }] : []),
  // As glosses are made by default: an imperative opening glossed as an infinitive (answer.glossImperatives).
  ...(choices ? [{ id: `${apertium.id} + catalogs, imperatives`, translate: (t: string, f: Language, to: Language) => glossText(t, false, apertium, f, to, [], choices, 'infinitive') }] : []),
  { id: model.id, translate: (t, f, to) => model.translate(t, f, to) },
];

const out = translators.map(() => ({ texts: [] as string[], ms: 0, empty: 0 }));
let sentences = 0;
try {
  for (const [i, p] of paragraphs.entries()) {
    const parts = splitSentences(p.text);
    sentences += parts.length;
    for (const [k, t] of translators.entries()) {
      const done: string[] = [];
      for (const s of parts) {
        const started = performance.now();
        const text = await t.translate(s, 'en', 'es');
        out[k]!.ms += performance.now() - started;
        if (!text) out[k]!.empty++;
        done.push(text ?? '');
      }
      out[k]!.texts.push(done.join(' '));
    }
    process.stderr.write(`\r${i + 1}/${paragraphs.length}`);
  }
} finally {
  await model.close();
}
process.stderr.write('\n');

const refs = paragraphs.map((p) => p.textEs);
const scores = out.map((o) => o.texts.map((t, i) => chrf(t, refs[i]!)));
console.log(`XQuAD, ${paragraphs.length} paragraphs (every ${values.every}th), ${sentences} English sentences glossed one at a time into Spanish; chrF against the human translation`);
for (const [k, t] of translators.entries()) {
  const corpus = corpusChrf(out[k]!.texts.map((h, i) => ({ hypothesis: h, reference: refs[i]! })));
  console.log(`${t.id.padEnd(24)} chrF ${corpus.toFixed(1)}   ${(out[k]!.ms / sentences).toFixed(1)} ms per sentence   ${out[k]!.empty} sentences without a translation`);
}
for (let k = 1; k < translators.length; k++) {
  const c = comparePaired(
    scores[0]!.map((a, i) => [a, scores[k]![i]!] as const),
    { seed: `${config.eval.seed}:gloss-quality`, permutations: config.eval.permutations, bootstrap: config.eval.bootstrap },
  )!;
  const wins = scores[k]!.filter((b, i) => b > scores[0]![i]!).length;
  const losses = scores[k]!.filter((b, i) => b < scores[0]![i]!).length;
  console.log(
    `${translators[k]!.id} − ${translators[0]!.id}, per paragraph: ${c.diff.toFixed(1)} [${c.low.toFixed(1)}, ${c.high.toFixed(1)}] chrF, p = ${c.p.toFixed(4)}; better on ${wins}, worse on ${losses} of ${paragraphs.length}`,
  );
}
process.exit(0);
