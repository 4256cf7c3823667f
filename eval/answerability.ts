/**
 * What could tell an unanswerable docs question from an answerable one (#15: correct abstention): each
 * docs question of the instances' cita-format datasets is retrieved once through `ask()` (generation off)
 * and its context's sentences are scored as the extractive generator scores them; then, per instance ×
 * language and pooled, the AUC of each signal for "unanswerable" (0.5: no better than chance), and the
 * abstentions against answerable questions lost when the best sentence's cosine alone is a threshold.
 *
 * Signals (lower → unanswerable): `best` the best sentence's cosine with the question (the generator's
 * relevance before its lexical part); `gap5` best minus the fifth best; `coverage` the share of the
 * question's content terms (its translation's, when translated) in the best sentence's block; `topDense`
 * the context's best dense similarity; and (higher → unanswerable) `pages5` the distinct pages of the five
 * best sentences.
 *
 *   node --import tsx eval/answerability.ts <instance> [<instance> …] [--split dev]
 */
import { parseArgs } from 'node:util';
import { loadDatasets } from '../datasets/questions.ts';
import { ask } from '../pipeline/answer/ask.ts';
import { ExtractiveGenerator, isCodeQuestion, quoteCandidates } from '../pipeline/answer/generators/extractive.ts';
import { extractiveOptions } from '../pipeline/answer/generators/index.ts';
import { findRoot } from '../pipeline/config/load.ts';
import { contentTerms } from '../pipeline/text/analysis.ts';
import type { Language } from '../pipeline/text/translate.ts';
import { openTargets } from './target.ts';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { split: { type: 'string', default: 'dev' } } });
if (positionals.length === 0) throw new Error('usage: answerability.ts <instance> [<instance> …] [--split dev|test]');

type Signals = Record<'best' | 'gap5' | 'coverage' | 'topDense' | 'pages5', number>;
interface Row extends Signals {
  instance: string;
  lang: string;
  unanswerable: boolean;
}
/** Whether a lower value of the signal means "unanswerable". */
const LOWER: Record<keyof Signals, boolean> = { best: true, gap5: true, coverage: true, topDense: true, pages5: false };

const root = findRoot();
const rows: Row[] = [];
for (const instance of positionals) {
  const { targets, close } = await openTargets([{ label: instance, instance, overlays: [], overrides: ['eval.judge.kind=none'] }], root, () => {});
  try {
    const t = targets[0]!;
    const questions = loadDatasets(t.config.eval.datasets, root)
      .flatMap((d) => d.questions)
      .filter((q) => q.split === values.split && q.gold.source === 'docs' && (q.gold.answerable === false || q.gold.files.length > 0));
    const generator = new ExtractiveGenerator(extractiveOptions(t.config.answer.generator), t.embedder);
    const corpus = t.config.languages.corpus as Language;
    for (const [i, q] of questions.entries()) {
      const { context } = await ask({ config: t.config, store: t.store, embedder: t.embedder, generator, checkout: t.paths.checkout }, q.question, { retrieveOnly: true });
      const meaning = await generator.meaningFor(q.question, context);
      const scored = quoteCandidates(context, isCodeQuestion(q.question))
        .map((c) => ({ c, s: meaning(c) }))
        .filter((x): x is { c: (typeof x)['c']; s: number } => x.s !== undefined)
        .sort((a, b) => b.s - a.s);
      const terms = context.translation !== undefined ? contentTerms(context.translation, corpus) : contentTerms(q.question, q.lang as Language);
      const bestBlock = scored[0] ? context.blocks[scored[0].c.marker - 1]! : undefined;
      const blockTerms = bestBlock ? contentTerms(bestBlock.text, corpus) : new Set<string>();
      rows.push({
        instance,
        lang: q.lang,
        unanswerable: q.gold.answerable === false,
        best: scored[0]?.s ?? 0,
        gap5: (scored[0]?.s ?? 0) - (scored[4]?.s ?? 0),
        coverage: terms.size ? [...terms].filter((x) => blockTerms.has(x)).length / terms.size : 0,
        topDense: Math.max(-1, ...context.blocks.map((b) => b.scores.dense ?? -1)),
        pages5: new Set(scored.slice(0, 5).map((x) => context.blocks[x.c.marker - 1]!.citation.path)).size,
      });
      process.stderr.write(`\r${instance}: ${i + 1}/${questions.length}`);
    }
    process.stderr.write('\n');
  } finally {
    await close();
  }
}

/** P(a random unanswerable question's signal points more to "unanswerable" than a random answerable one's); ties count half. */
function auc(sel: Row[], signal: keyof Signals): number {
  const sign = LOWER[signal] ? -1 : 1;
  const pos = sel.filter((r) => r.unanswerable).map((r) => sign * r[signal]);
  const neg = sel.filter((r) => !r.unanswerable).map((r) => sign * r[signal]);
  let wins = 0;
  for (const p of pos) for (const n of neg) wins += p > n ? 1 : p === n ? 0.5 : 0;
  return pos.length && neg.length ? wins / (pos.length * neg.length) : Number.NaN;
}

const langs = [...new Set(rows.map((r) => r.lang))].sort();
const cells = [...positionals.flatMap((i) => langs.map((l) => ({ label: `${i} ${l}`, sel: rows.filter((r) => r.instance === i && r.lang === l) }))), ...langs.map((l) => ({ label: `all ${l}`, sel: rows.filter((r) => r.lang === l) }))];
console.log(`AUC for "unanswerable", split ${values.split} (unanswerable / answerable questions per cell)`);
console.log(`${'signal'.padEnd(10)}${cells.map((c) => `${c.label} (${c.sel.filter((r) => r.unanswerable).length}/${c.sel.filter((r) => !r.unanswerable).length})`.padStart(22)).join('')}`);
for (const signal of Object.keys(LOWER) as (keyof Signals)[]) console.log(`${signal.padEnd(10)}${cells.map((c) => auc(c.sel, signal).toFixed(2).padStart(22)).join('')}`);
console.log('\nbest sentence cosine as the only threshold: unanswerable abstained / answerable lost');
for (const l of langs) {
  const sel = rows.filter((r) => r.lang === l);
  const line = [0.88, 0.89, 0.895, 0.9, 0.905].map((th) => `${th}: ${sel.filter((r) => r.unanswerable && r.best < th).length}/${sel.filter((r) => r.unanswerable).length} vs ${sel.filter((r) => !r.unanswerable && r.best < th).length}/${sel.filter((r) => !r.unanswerable).length}`);
  console.log(`${l}  ${line.join('   ')}`);
}
process.exit(0);
