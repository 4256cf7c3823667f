/**
 * Indexing throughput beside the raw model's throughput on the same texts, in the same run (the
 * pipeline's overhead as a ratio), then search latency p50/p95 and peak memory.
 *
 *   npm run bench -- [--chunks 300] [--queries 40]
 *
 * Uses the pytest instance's config and corpus (npm run setup), a fresh store and vector cache in a
 * temporary folder, and the code-qa questions as queries.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { codeQaRecord, loadJsonl } from '../datasets/shared.ts';
import { chunkDocument } from '../pipeline/chunking/index.ts';
import { findRoot } from '../pipeline/config/load.ts';
import { runIndex } from '../pipeline/index/indexer.ts';
import { VectorCache } from '../pipeline/index/vectorCache.ts';
import { openInstance, scanSources } from '../pipeline/instance.ts';
import { embedQuery, searchCollection } from '../pipeline/retrieval/search.ts';
import { percentile } from '../eval/metrics/percentile.ts';
import { SqliteStore } from '../pipeline/store/sqlite/sqliteStore.ts';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

const targetChunks = arg('chunks', 300);
const nQueries = arg('queries', 40);
const root = findRoot();
const instance = await openInstance('pytest', { purpose: 'index', root });
const { config, paths, embedder } = instance;
const chunking = { maxTokens: config.chunking.maxTokens, lineWindow: config.chunking.lineWindow };

// A slice of the real corpus: code and docs, in path order, until the chunk target is reached.
const scan = scanSources(config, paths);
const picked = [];
let count = 0;
const texts: string[] = [];
for (const doc of scan.documents.filter((d) => d.path.startsWith('src/_pytest/') || d.path.startsWith('doc/en/how-to/'))) {
  const chunks = await chunkDocument(doc, embedder, chunking);
  picked.push(doc);
  texts.push(...chunks.map((c) => c.text));
  count += chunks.length;
  if (count >= targetChunks) break;
}
const tokens = texts.reduce((a, t) => a + embedder.countTokens(t), 0);
console.log(`corpus slice: ${picked.length} files, ${texts.length} chunks, ${tokens} tokens (mean ${(tokens / texts.length).toFixed(0)})`);

// 1. The raw model on exactly these texts.
let t = performance.now();
for (let i = 0; i < texts.length; i += config.embedding.batchSize) await embedder.embedPassages(texts.slice(i, i + config.embedding.batchSize));
const rawSeconds = (performance.now() - t) / 1000;

// 2. The whole pipeline (chunk, plan, embed, write) into a fresh store.
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cita-bench-'));
const store = SqliteStore.open(path.join(tmp, 'index.sqlite'), { dims: embedder.dims });
const cache = VectorCache.open(path.join(tmp, 'vectors.sqlite'));
t = performance.now();
const summary = await runIndex({
  instance: 'bench',
  scan: { documents: picked, skipped: [], unmatched: 0 },
  embedder,
  store,
  cache,
  chunking,
  batchSize: config.embedding.batchSize,
});
const pipeSeconds = (performance.now() - t) / 1000;

console.log('\nindexing throughput (same texts, same run)');
console.log(`  raw model   ${(texts.length / rawSeconds).toFixed(2).padStart(8)} chunks/s  (${rawSeconds.toFixed(1)} s)`);
console.log(`  cita index  ${(summary.chunks / pipeSeconds).toFixed(2).padStart(8)} chunks/s  (${pipeSeconds.toFixed(1)} s)`);
console.log(`  overhead    ${(pipeSeconds / rawSeconds).toFixed(3).padStart(8)} × the raw model time`);

// 3. Search latency, hybrid and BM25-only, with the code-qa questions as queries.
const questions = loadJsonl(path.resolve(root, '../shared/datasets/pytest/code-qa.jsonl'), codeQaRecord)
  .slice(0, nQueries)
  .map((r) => r.question);
const hybrid = config.retrieval.hybrid;
const lat: Record<string, number[]> = { hybrid: [], bm25: [], embedQuery: [] };
for (const q of questions) {
  let s = performance.now();
  const v = await embedQuery(embedder, q, hybrid.alpha);
  lat.embedQuery!.push(performance.now() - s);
  await searchCollection(store, v, 'code', q, 10, hybrid);
  lat.hybrid!.push(performance.now() - s);
  s = performance.now();
  await searchCollection(store, undefined, 'code', q, 10, { ...hybrid, alpha: 0 });
  lat.bm25!.push(performance.now() - s);
}
console.log(`\nsearch latency over ${questions.length} queries (ms; hybrid includes embedding the query)`);
for (const [name, xs] of Object.entries(lat)) {
  console.log(`  ${name.padEnd(11)} p50 ${percentile(xs, 0.5).toFixed(1).padStart(7)}  p95 ${percentile(xs, 0.95).toFixed(1).padStart(7)}`);
}
console.log(`\npeak memory (max RSS): ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`);

cache.close();
await store.close();
await instance.close();
fs.rmSync(tmp, { recursive: true, force: true });
process.exit(0);
