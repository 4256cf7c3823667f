/**
 * Do the embedded and the Elasticsearch store give the same answers' context? For every question
 * of ../shared/datasets/pytest (issue localisation and code QA, English and Spanish), runs `ask()`
 * (retrieval only: route → lookups → hybrid per collection → fusion → context) once against the
 * SQLite index and once against the Elasticsearch index of the same instance, with the same model,
 * and compares the top-10 context citations (path + line range): overlap@10 = |A ∩ B| / 10 (or
 * over the longer list when a context is shorter), per language and kind.
 *
 *   node bin/cita.mjs index pytest --set store.kind=elasticsearch   # once
 *   node --import tsx eval/store-overlap.ts [instance] [--k 10] [--alpha A] [--set key=value …]
 *
 * `--alpha 0` (BM25 only) and `--alpha 1` (dense only) show which half of the hybrid score differs.
 * `--set` applies to the Elasticsearch side only (e.g. store.elasticsearch.url=…). Each question is
 * embedded once: both stores see the same query vectors.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { codeQaRecord, loadJsonl, localizationRecord } from '../datasets/shared.ts';
import { ask } from '../pipeline/answer/ask.ts';
import { ExtractiveGenerator } from '../pipeline/answer/generators/extractive.ts';
import { findRoot } from '../pipeline/config/load.ts';
import { openInstance } from '../pipeline/instance.ts';
import type { Citation } from '../pipeline/types.ts';
import { memoizeQueries } from './queryMemo.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { k: { type: 'string', default: '10' }, alpha: { type: 'string' }, set: { type: 'string', multiple: true, default: [] } },
});
const instance = positionals[0] ?? 'pytest';
const k = Number(values.k);
if (!Number.isInteger(k) || k < 1) throw new Error(`--k: expected a positive integer, got ${values.k}`);
const alpha = values.alpha === undefined ? undefined : Number(values.alpha);
if (alpha !== undefined && !(alpha >= 0 && alpha <= 1)) throw new Error(`--alpha: expected a number from 0 to 1, got ${values.alpha}`);

const root = findRoot();
// Each question (and each second-hop query) is embedded once for both stores.
const sqlite = await openInstance(instance, { purpose: 'search', root, overrides: ['store.kind=sqlite'] });
const embedder = memoizeQueries(sqlite.embedder);
const elasticsearch = await openInstance(instance, { purpose: 'search', root, overrides: ['store.kind=elasticsearch', ...values.set], embedder });
const { config: sqliteConfig, paths } = sqlite;
const stores = { sqlite: sqlite.store, elasticsearch: elasticsearch.store };
const counts = { sqlite: await stores.sqlite.count(), elasticsearch: await stores.elasticsearch.count() };

const data = path.resolve(root, '../shared/datasets/pytest');
const questions = [
  ...loadJsonl(path.join(data, 'issue-localization.jsonl'), localizationRecord),
  ...loadJsonl(path.join(data, 'code-qa.jsonl'), codeQaRecord),
].map((r) => ({ id: r.id, lang: r.lang, kind: r.kind, question: r.question }));

const generator = new ExtractiveGenerator();
const key = (c: Citation) => `${c.path}:${c.startLine}-${c.endLine}${c.commentId === undefined ? '' : `#${c.commentId}`}`;
async function topCitations(store: keyof typeof stores, question: string): Promise<string[]> {
  const result = await ask({ config: sqliteConfig, store: stores[store], embedder, generator, checkout: paths.checkout }, question, { retrieveOnly: true, alpha });
  return result.context.blocks.slice(0, k).map((b) => key(b.citation));
}

interface Row {
  lang: string;
  kind: string;
  overlap: number;
  sameSet: boolean;
  sameOrder: boolean;
}
const rows: Row[] = [];
const started = Date.now();
for (const q of questions) {
  const a = await topCitations('sqlite', q.question);
  const b = await topCitations('elasticsearch', q.question);
  const inB = new Set(b);
  const shared = new Set(a.filter((x) => inB.has(x))).size;
  const overlap = shared / Math.max(1, a.length, b.length);
  rows.push({ lang: q.lang, kind: q.kind, overlap, sameSet: overlap === 1 && a.length === b.length, sameOrder: a.join('\n') === b.join('\n') });
}

const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);
console.log(
  `overlap@${k} of the context citations (path + lines), SQLite vs Elasticsearch, instance ${instance}: ` +
    `${questions.length} questions, ${counts.sqlite} vs ${counts.elasticsearch} chunks, alpha ${alpha ?? sqliteConfig.retrieval.hybrid.alpha}, model ${embedder.id}`,
);
console.log(`query embeddings: ${embedder.misses} computed, ${embedder.hits} reused; ${((Date.now() - started) / 1000).toFixed(0)} s`);
console.log(`${'lang'.padEnd(5)} ${'kind'.padEnd(11)} ${'n'.padStart(4)} ${`overlap@${k}`.padStart(11)} ${'same set'.padStart(9)} ${'same order'.padStart(11)}`);
const kinds = [...new Set(rows.map((r) => r.kind))];
for (const lang of ['en', 'es', 'all']) {
  for (const kind of [...kinds, 'all']) {
    const sel = rows.filter((r) => (lang === 'all' || r.lang === lang) && (kind === 'all' || r.kind === kind));
    if (sel.length === 0) continue;
    console.log(
      `${lang.padEnd(5)} ${kind.padEnd(11)} ${String(sel.length).padStart(4)} ${mean(sel.map((r) => r.overlap)).toFixed(3).padStart(11)} ` +
        `${String(sel.filter((r) => r.sameSet).length).padStart(9)} ${String(sel.filter((r) => r.sameOrder).length).padStart(11)}`,
    );
  }
}
await elasticsearch.close();
await sqlite.close();
