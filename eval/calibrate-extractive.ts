/**
 * Calibrates the extractive generator's relevance threshold (`answer.generator.minRelevance`):
 * retrieves each question once through `ask()` (the same path as `cita ask`), scores the context's
 * sentences by meaning once, then answers with the very `extractiveAnswer` the generator runs at each
 * threshold of a grid, and prints the answered-vs-right curve per language: answered, answered right
 * (a cited block is a gold file) on answerable questions, and abstention on unanswerable ones.
 *
 *   node --import tsx eval/calibrate-extractive.ts <instance> [--split dev] [--dataset name]… [--set k=v]…
 */
import { parseArgs } from 'node:util';
import { loadDatasets, type EvalQuestion } from '../datasets/questions.ts';
import { ask } from '../pipeline/answer/ask.ts';
import { parseMarkers } from '../pipeline/answer/citations.ts';
import { ExtractiveGenerator, extractiveAnswer } from '../pipeline/answer/generators/extractive.ts';
import { extractiveOptions } from '../pipeline/answer/generators/index.ts';
import type { Context } from '../pipeline/answer/types.ts';
import { findRoot } from '../pipeline/config/load.ts';
import { openTargets } from './target.ts';

const GRID = [0.8, 0.82, 0.84, 0.85, 0.86, 0.87, 0.88, 0.89, 0.9, 0.92];

interface Row {
  q: EvalQuestion;
  context: Context;
  meaning: Awaited<ReturnType<ExtractiveGenerator['meaningFor']>>;
}

function parseArguments() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      split: { type: 'string' },
      dataset: { type: 'string', multiple: true, default: [] },
      set: { type: 'string', multiple: true, default: [] },
    },
  });
  const instance = positionals[0];
  if (!instance) throw new Error('usage: calibrate-extractive.ts <instance> [--split dev|test] [--dataset name]… [--set k=v]…');
  if (values.split !== undefined && values.split !== 'dev' && values.split !== 'test') throw new Error(`--split: expected dev or test, got ${JSON.stringify(values.split)}`);
  return { instance, split: values.split, datasets: values.dataset, sets: values.set };
}

async function main(): Promise<void> {
  const args = parseArguments();
  const root = findRoot();
  const { targets, close } = await openTargets([{ label: 'calibration', instance: args.instance, overlays: [], overrides: args.sets }], root, (m) => process.stderr.write(`${m}\n`));
  try {
    const t = targets[0]!;
    const questions = loadDatasets(t.config.eval.datasets, root)
      .filter((d) => args.datasets.length === 0 || args.datasets.includes(d.name))
      .flatMap((d) => d.questions)
      .filter((q) => !args.split || q.split === args.split);
    // The configured options (`--set answer.generator.…` included); the threshold is swept below.
    const options = extractiveOptions(t.config.answer.generator);
    const generator = new ExtractiveGenerator(options, t.embedder);
    const rows: Row[] = [];
    for (const q of questions) {
      const r = await ask({ config: t.config, store: t.store, embedder: t.embedder, generator, checkout: t.paths.checkout }, q.question, { retrieveOnly: true });
      rows.push({ q, context: r.context, meaning: await generator.meaningFor(q.question, r.context) });
      process.stderr.write(`\r${rows.length}/${questions.length}`);
    }
    process.stderr.write('\n');
    console.log(`${args.instance}: ${rows.length} questions${args.split ? ` (split ${args.split})` : ''}`);
    console.log('| minRelevance | lang | answered (answerable) | answered right | abstained (unanswerable) |');
    console.log('|---:|---|---:|---:|---:|');
    for (const threshold of GRID) {
      for (const lang of ['en', 'es'] as const) {
        const sel = rows.filter((r) => r.q.lang === lang);
        let answerable = 0;
        let answered = 0;
        let right = 0;
        let unanswerable = 0;
        let abstained = 0;
        for (const { q, context, meaning } of sel) {
          const a = extractiveAnswer(q.question, context, { ...options, minRelevance: threshold }, meaning);
          const cited = new Set(parseMarkers(a.text).map((m) => context.blocks[m - 1]?.citation.path));
          if (q.gold.answerable === false) {
            unanswerable++;
            if (a.noAnswer) abstained++;
          } else {
            answerable++;
            if (!a.noAnswer) answered++;
            if (!a.noAnswer && q.gold.files.some((f) => cited.has(f))) right++;
          }
        }
        const pct = (x: number, n: number) => (n ? `${((100 * x) / n).toFixed(1)}% (${x}/${n})` : '–');
        console.log(`| ${threshold} | ${lang} | ${pct(answered, answerable)} | ${pct(right, answerable)} | ${pct(abstained, unanswerable)} |`);
      }
    }
  } finally {
    await close();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
