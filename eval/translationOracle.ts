/**
 * How much of the Spanish – English gap on docs questions is the translation's (#15 item 2, "where the rest of the gap
 * comes from"): each Spanish docs question is asked through `ask()` (retrieval only, the instance as configured) with
 * its translators as they are, and with either or both replaced by an oracle that returns the question's English twin
 * (the paired question of the dataset, written by hand): `oracle-model`, the language model's rendering (the dense
 * side's second vector); `oracle-apertium`, Apertium's translation (BM25's text; the senses the docs prefer are still
 * chosen for the Spanish words); `oracle-both`. `english` asks the English twin itself. Prints file Recall@5 and Acc@1
 * per setting, pooled over the instances, and each question's row; with `--answers`, each question is answered too
 * (the instance's generator) and answered right and reference quoted are printed beside them (eval/suites/answer.ts).
 * A diagnostic: the oracles read the answer's twin, so nothing here is a setting to choose.
 *
 *   node --import tsx eval/translationOracle.ts [instance…] [--split dev|test] [--answers]
 */
import { parseArgs } from 'node:util';
import { loadDatasets, type EvalQuestion } from '../datasets/questions.ts';
import { ask } from '../pipeline/answer/ask.ts';
import { findRoot } from '../pipeline/config/load.ts';
import { modelTranslatorFor } from '../pipeline/text/modelTranslate.ts';
import type { Language, Translator } from '../pipeline/text/translate.ts';
import { accuracyAt1 } from './metrics/accuracyAt1.ts';
import { recallAtK } from './metrics/recallAtK.ts';
import { answerMetrics } from './suites/answer.ts';
import { openTargets } from './target.ts';

const SETTINGS = ['as configured', 'oracle-model', 'oracle-apertium', 'oracle-both', 'english'] as const;
type Setting = (typeof SETTINGS)[number];

const { values, positionals } = parseArgs({ args: process.argv.slice(2), allowPositionals: true, options: { split: { type: 'string', default: 'dev' }, answers: { type: 'boolean', default: false } } });
const instances = positionals.length ? positionals : ['pytest', 'black', 'flask', 'click', 'scrapy'];
const root = findRoot();
const scores = new Map<Setting, { r5: number; a1: number; right?: number; quoted?: number }[]>(SETTINGS.map((s) => [s, []]));
const rows: string[] = [];

/** Each Spanish answerable docs question of the split, with its English twin's text. */
function pairs(questions: EvalQuestion[]): { q: EvalQuestion; twin: string }[] {
  const english = new Map(questions.filter((q) => q.lang === 'en').map((q) => [q.pair, q.question]));
  return questions.filter((q) => q.lang === 'es' && english.has(q.pair)).map((q) => ({ q, twin: english.get(q.pair)! }));
}

for (const instance of instances) {
  const { targets, close } = await openTargets([{ label: 'oracle', instance, overlays: [], overrides: [] }], root, (m) => process.stderr.write(`${m}\n`));
  try {
    const t = targets[0]!;
    const questions = loadDatasets(t.config.eval.datasets, root)
      .filter((d) => d.name.endsWith('-docs'))
      .flatMap((d) => d.questions)
      .filter((q) => q.split === values.split && q.gold.files.length > 0);
    const asked = pairs(questions);
    const twins = new Map(asked.map(({ q, twin }) => [q.question, twin]));
    const apertium = t.translator;
    if (!apertium) throw new Error(`${instance}: no translator configured (languages.translator)`);
    const model = modelTranslatorFor(t.config.languages.modelTranslator);
    // The whole question's translation is the twin; the single words the senses are chosen from are Apertium's still.
    const oracleApertium: Translator = Object.assign(Object.create(Object.getPrototypeOf(apertium) as object) as Translator, apertium, {
      translate: (text: string, from: Language, to: Language) => (twins.has(text) ? Promise.resolve(twins.get(text)!) : apertium.translate(text, from, to)),
    });
    const oracleModel = { id: 'oracle', translate: async (text: string, from: Language, to: Language) => twins.get(text) ?? model.translate(text, from, to) };
    for (const { q, twin } of asked) {
      const cells: string[] = [];
      for (const setting of SETTINGS) {
        const deps = {
          config: t.config,
          store: t.store,
          embedder: t.embedder,
          generator: t.generator,
          checkout: t.paths.checkout,
          translator: setting === 'oracle-apertium' || setting === 'oracle-both' ? oracleApertium : apertium,
          modelTranslator: setting === 'oracle-model' || setting === 'oracle-both' ? oracleModel : model,
        };
        const result = await ask(deps, setting === 'english' ? twin : q.question, { retrieveOnly: !values.answers });
        const files = result.ranking.files;
        const answer = values.answers ? answerMetrics(q, result.answer) : undefined;
        const s = {
          r5: recallAtK(files, q.gold.files, 5),
          a1: accuracyAt1(files, q.gold.files),
          ...(answer ? { right: answer['answer.right'] ?? 0, quoted: answer['answer.referenceQuoted'] ?? 0 } : {}),
        };
        scores.get(setting)!.push(s);
        cells.push(`${s.r5.toFixed(2)} / ${s.a1}${answer ? ` / ${s.right} / ${s.quoted}` : ''}`);
      }
      rows.push(`${q.id.padEnd(30)}${cells.map((c) => c.padStart(16)).join('')}  ${q.question.slice(0, 60)}`);
      process.stderr.write('.');
    }
    process.stderr.write('\n');
  } finally {
    await close();
  }
}

const pct = (xs: number[]) => ((100 * xs.reduce((a, b) => a + b, 0)) / Math.max(1, xs.length)).toFixed(1);
const per = values.answers ? 'Recall@5 / Acc@1 / answered right / reference quoted' : 'Recall@5 / Acc@1';
console.log(`Spanish docs questions, ${instances.join(' + ')}, split ${values.split}: ${per} per question`);
console.log(`${'question'.padEnd(30)}${SETTINGS.map((s) => s.padStart(16)).join('')}`);
console.log(rows.join('\n'));
console.log('');
for (const s of SETTINGS) {
  const xs = scores.get(s)!;
  const answers = values.answers ? `  answered right ${pct(xs.map((x) => x.right ?? 0))}  reference quoted ${pct(xs.map((x) => x.quoted ?? 0))}` : '';
  console.log(`${s.padEnd(16)} Recall@5 ${pct(xs.map((x) => x.r5))}  Acc@1 ${pct(xs.map((x) => x.a1))}${answers}  (n ${xs.length})`);
}
// The model translator of the process (node-llama-cpp) would keep the event loop alive.
process.exit(0);
