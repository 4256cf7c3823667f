/**
 * The glosses' options A/B (#15, answers in the user's language): each question of a dataset asked in another
 * language than the sources goes through `ask` (the configured instance, as `cita ask` runs it), and each quote of
 * its answer is glossed twice, with the options as they were before 2026-12-05 (A: `answer.glossKeep: all`,
 * `answer.glossImperatives: as-written`) and with the configured ones (B). Prints every gloss that changed, A and B,
 * and, for want of human translations of the docs, a quality estimate: the multilingual model's cosine between the
 * quote and its gloss (both as passages; a gloss that says what the quote says sits nearer it), paired over the
 * changed glosses (permutation test, bootstrap interval). eval/glossQuality.ts scores glosses against XQuAD's human
 * Spanish instead.
 *
 *   node --import tsx eval/glossAb.ts <instance> --dataset <name> [--split dev|test]
 */
import { parseArgs } from 'node:util';
import { loadDatasets } from '../datasets/questions.ts';
import { ask } from '../pipeline/answer/ask.ts';
import { glossChoicesFor, glossOptionsFor, glossQuotes, keptWords, type GlossOptions } from '../pipeline/answer/glosses.ts';
import { findRoot } from '../pipeline/config/load.ts';
import { cosine } from '../pipeline/vectors.ts';
import { comparePaired } from './stats/index.ts';
import { openTargets } from './target.ts';

const { values, positionals } = parseArgs({
  args: process.argv.slice(2),
  allowPositionals: true,
  options: { dataset: { type: 'string', multiple: true }, split: { type: 'string', default: 'dev' } },
});
const instance = positionals[0] ?? 'pytest';
const root = findRoot();
const { targets, close } = await openTargets([{ label: instance, instance, overlays: [], overrides: ['eval.judge.kind=none', 'answer.glosses=none'] }], root, (m) => console.error(m));
const target = targets[0]!;
const { config, embedder } = target;
const translator = target.translator;
if (!translator) throw new Error(`${instance}: languages.translator is none`);
const A: GlossOptions = { keep: 'all', imperatives: 'as-written' };
const B = glossOptionsFor(config);
const corpus = config.languages.corpus;
const choices = glossChoicesFor(config);

const pairs: [number, number][] = [];
let quotes = 0;
let questions = 0;
try {
  const sets = loadDatasets(config.eval.datasets, root).filter((d) => !values.dataset || values.dataset.includes(d.name));
  for (const d of sets) {
    for (const q of d.questions.filter((x) => (x.split ?? 'dev') === values.split && x.lang !== corpus)) {
      const r = await ask({ config, store: target.store, embedder, generator: target.generator, checkout: target.paths.checkout, translator }, q.question);
      const answer = r.answer;
      if (!answer?.quotes?.length || answer.noAnswer) continue;
      questions++;
      const keep = await keptWords(config, q.question, q.lang, r.translation?.text, translator);
      const [a, b] = await Promise.all([A, B].map((o) => glossQuotes(answer, translator, corpus, q.lang, keep, choices, o)));
      const ga = a!.glosses ?? [];
      const gb = b!.glosses ?? [];
      quotes += gb.length;
      for (const [i, g] of gb.entries()) {
        const before = ga[i]!.text;
        if (before === g.text) continue;
        const [vq, va, vb] = await embedder.embedPassages([g.quote, before, g.text]);
        const pair: [number, number] = [cosine(vq!, va!), cosine(vq!, vb!)];
        pairs.push(pair);
        console.log(`${q.id} [${g.marker}] ${g.quote}\n  A ${pair[0].toFixed(3)} ${before}\n  B ${pair[1].toFixed(3)} ${g.text}`);
      }
    }
  }
} finally {
  await close();
}
console.log(`\n${instance}, split ${values.split}: ${questions} answered questions in another language, ${quotes} quotes glossed, ${pairs.length} glosses changed (A: keep ${A.keep}, imperatives ${A.imperatives}; B: keep ${B.keep}, imperatives ${B.imperatives})`);
const c = comparePaired(pairs, { seed: `${config.eval.seed}:gloss-ab`, permutations: config.eval.permutations, bootstrap: config.eval.bootstrap });
if (c) {
  const wins = pairs.filter(([x, y]) => y > x).length;
  console.log(`quote–gloss cosine over the changed glosses: A ${c.meanA.toFixed(4)}, B ${c.meanB.toFixed(4)}, B − A ${c.diff.toFixed(4)} [${c.low.toFixed(4)}, ${c.high.toFixed(4)}], p = ${c.p.toFixed(4)}; B nearer for ${wins}, A for ${pairs.filter(([x, y]) => y < x).length}`);
}
process.exit(0);
