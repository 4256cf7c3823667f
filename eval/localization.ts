/**
 * File recall@k and Acc@1 of code search on the issue-localization questions, per language and kind,
 * for hybrid, BM25-only and dense-only retrieval in one run (same index, same questions): the bar
 * that `cita ask`'s first file is held to on "where" questions.
 *
 *   node --import tsx eval/localization.ts [instance] [--k 10] [--json]
 */
import { searchCollection } from '../pipeline/retrieval/search.ts';
import { accuracyAt1 } from './metrics/accuracyAt1.ts';
import { distinct, recallAtK } from './metrics/recallAtK.ts';
import { openEvalInstance } from './open.ts';

const args = process.argv.slice(2);
const { instance, config, embedder, store, localization: records, k, close } = await openEvalInstance(args);
const modes = { hybrid: config.retrieval.hybrid.alpha, bm25: 0, dense: 1 } as const;
type Mode = keyof typeof modes;
const rows: { id: string; lang: string; kind: string; mode: Mode; recall: number; acc1: number }[] = [];

const started = Date.now();
const vectors = await embedder.embedQueries(records.map((r) => r.question));
for (const [i, r] of records.entries()) {
  for (const [mode, alpha] of Object.entries(modes) as [Mode, number][]) {
    // A deep chunk ranking, so that k distinct files can be read off it.
    const hits = await searchCollection(store, vectors[i], 'code', r.question, 100, { alpha, candidates: 200 });
    const files = distinct(hits.map((h) => h.chunk.citation.path));
    rows.push({ id: r.id, lang: r.lang, kind: r.kind, mode, recall: recallAtK(files, r.gold_files_at_tag, k), acc1: accuracyAt1(files, r.gold_files_at_tag) });
  }
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const groups = new Map<string, number[]>();
for (const row of rows) {
  for (const key of [`${row.mode}|${row.lang}|all`, `${row.mode}|${row.lang}|${row.kind}`]) {
    (groups.get(`recall|${key}`) ?? groups.set(`recall|${key}`, []).get(`recall|${key}`)!).push(row.recall);
    (groups.get(`acc1|${key}`) ?? groups.set(`acc1|${key}`, []).get(`acc1|${key}`)!).push(row.acc1);
  }
}
if (args.includes('--json')) {
  console.log(JSON.stringify({ instance, k, model: embedder.id, rows }, null, 2));
} else {
  console.log(`code collection, ${records.length} questions, model ${embedder.id} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  for (const [metric, label] of [['recall', `file recall@${k}`], ['acc1', 'Acc@1 (first file)']] as const) {
    console.log(`\n${label}`);
    console.log(`${'mode'.padEnd(8)} ${'kind'.padEnd(11)} ${'en'.padStart(14)} ${'es'.padStart(14)}  es-en`);
    for (const mode of Object.keys(modes) as Mode[]) {
      for (const kind of ['all', 'issue-text', 'issue-ref']) {
        const en = groups.get(`${metric}|${mode}|en|${kind}`) ?? [];
        const es = groups.get(`${metric}|${mode}|es|${kind}`) ?? [];
        const f = (xs: number[]) => `${(100 * mean(xs)).toFixed(1).padStart(5)} (n=${xs.length})`.padStart(14);
        console.log(`${mode.padEnd(8)} ${kind.padEnd(11)} ${f(en)} ${f(es)}  ${(100 * (mean(es) - mean(en))).toFixed(1).padStart(5)}`);
      }
    }
  }
}
await close();
process.exit(0);
