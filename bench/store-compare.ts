/**
 * Elasticsearch vs SQLite: bulk indexing throughput (chunks/s) and query latency p50/p95 of bm25 and
 * knn (k=10), at the pytest size and at a synthetic large collection, and how each grows; bm25 also for
 * the questions of at most 16 terms alone (typed questions; the others are pasted issues).
 *
 *   npm run es:start
 *   node --import tsx bench/store-compare.ts [large=200000] [--only sqlite|elasticsearch] [--max-terms N] [--common-cutoff F]   (large 0: the pytest size only)
 *
 * `--max-terms N`: both stores opened with `retrieval.bm25.maxTerms` N (a question's N rarest terms
 * only, #14 item 4); without it every term, as the stores are opened by default here. `--common-cutoff F`:
 * both stores opened with `retrieval.bm25.commonCutoff` F (Lucene's common-terms query: terms in more
 * than F of the chunks only score chunks a rarer term matches).
 *
 * Data, all in one collection (`code`), 384-dim vectors:
 * - pytest size: the real chunks and vectors of the pytest SQLite index (`cita index pytest` first).
 * - large: the pytest chunks cycled to `large` chunks (real texts and lengths) with the real vectors
 *   plus seeded Gaussian noise (σ 0.025 per dimension, cosine ≈ 0.9 to the original), so the vectors
 *   keep the narrow cone of e5 embeddings instead of uniform random ones.
 * Loading: applies of up to 20,000 chunks (cita's one-apply-per-run, in memory-sized steps).
 * Queries: the 144 questions of ../shared/datasets/pytest as cita sends them (bm25), and their real
 * e5 query embeddings (knn); 20 warm-up queries first, then each query once, one at a time.
 * knn recall@10 of Elasticsearch is measured against SQLite's exact search (1 since its kNN is exact, `flat`).
 * Prints figures, asserts nothing; the machine's load shows in every wall-clock figure. The
 * benchmark's Elasticsearch indices (prefix `citabench`) and SQLite files are deleted at the end.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { codeQaRecord, loadJsonl, localizationRecord } from '../datasets/shared.ts';
import { findRoot } from '../pipeline/config/load.ts';
import { openInstance } from '../pipeline/instance.ts';
import { ElasticsearchStore } from '../pipeline/store/elasticsearch/elasticsearchStore.ts';
import { SqliteStore } from '../pipeline/store/sqlite/sqliteStore.ts';
import { ftsTerms } from '../pipeline/text/codeTokens.ts';
import type { Store } from '../pipeline/store/store.ts';
import type { StoredChunk } from '../pipeline/types.ts';
import { mulberry32 } from '../test/support/prng.ts';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { only: { type: 'string' }, 'max-terms': { type: 'string' }, 'common-cutoff': { type: 'string' } } });
const bm25MaxTerms = values['max-terms'] === undefined || Number(values['max-terms']) === 0 ? undefined : Number(values['max-terms']);
const bm25CommonCutoff = values['common-cutoff'] === undefined || Number(values['common-cutoff']) === 0 ? undefined : Number(values['common-cutoff']);
const large = Number(positionals[0] ?? 200_000);
const kinds = (values.only ? [values.only] : ['sqlite', 'elasticsearch']) as ('sqlite' | 'elasticsearch')[];
const url = process.env.CITA_ES_URL ?? 'http://127.0.0.1:9200';
const BATCH = 20_000;
const K = 10;
const WARMUP = 20;
/** Questions of at most this many distinct terms are reported apart (bench/bm25-plans.ts's first bucket). */
const TYPED = 16;

const root = findRoot();

/** The pytest index's chunks with their vectors, relabelled into one collection. */
async function pytestChunks(): Promise<StoredChunk[]> {
  const index = await openInstance('pytest', { purpose: 'read', root });
  const chunks = await index.store.get(await index.store.ids());
  await index.close();
  // The vectors, read from the SQLite file itself: Store.get returns chunks without them.
  const db = new Database(index.paths.store, { readonly: true });
  sqliteVec.load(db);
  const rows = db.prepare('SELECT c.id AS id, v.embedding AS embedding FROM chunks c JOIN chunks_vec v ON v.rowid = c.seq').all() as { id: string; embedding: Buffer }[];
  db.close();
  const vectors = new Map(rows.map((r) => [r.id, new Float32Array(r.embedding.buffer.slice(r.embedding.byteOffset, r.embedding.byteOffset + r.embedding.byteLength))]));
  return chunks.map((c) => ({ ...c, collection: 'code' as const, vector: vectors.get(c.id)! }));
}

function synthetic(base: StoredChunk[], n: number): StoredChunk[] {
  const random = mulberry32(2026);
  const gaussian = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  return Array.from({ length: n }, (_, i) => {
    const b = base[i % base.length]!;
    const v = Float32Array.from(b.vector, (x) => x + 0.025 * gaussian());
    let norm = 0;
    for (const x of v) norm += x * x;
    norm = Math.sqrt(norm);
    for (let d = 0; d < v.length; d++) v[d]! /= norm;
    return { ...b, id: `s${i}`, citation: { ...b.citation, path: `${b.citation.path}#${Math.floor(i / base.length)}` }, vector: v };
  });
}

function percentile(times: number[], p: number): number {
  const s = [...times].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
}

interface Figures {
  kind: string;
  size: number;
  chunksPerSecond: number;
  bm25: [number, number];
  /** bm25 of the questions of at most TYPED terms: what people type, not pasted issues. */
  bm25Typed: [number, number];
  knn: [number, number];
  knnIds: string[][];
  disk: string;
}

async function measure(kind: 'sqlite' | 'elasticsearch', chunks: StoredChunk[], questions: string[], queryVectors: Float32Array[]): Promise<Figures> {
  const dir = mkdtempSync(path.join(tmpdir(), 'cita-store-compare-'));
  const file = path.join(dir, 'index.sqlite');
  const store: Store =
    kind === 'sqlite'
      ? SqliteStore.open(file, { dims: 384, bm25MaxTerms, bm25CommonCutoff })
      : await ElasticsearchStore.open({ dims: 384, instance: `b${process.pid}-${chunks.length}`, prefix: 'citabench', client: { node: url, requestTimeout: 600_000 }, bm25MaxTerms, bm25CommonCutoff });
  try {
    const t = performance.now();
    for (let i = 0; i < chunks.length; i += BATCH) {
      await store.upsert(chunks.slice(i, i + BATCH));
      process.stderr.write(`  ${kind} ${chunks.length}: loaded ${Math.min(chunks.length, i + BATCH)} in ${((performance.now() - t) / 1000).toFixed(0)} s\n`);
    }
    const chunksPerSecond = chunks.length / ((performance.now() - t) / 1000);
    const count = await store.count('code');
    if (count !== chunks.length) throw new Error(`${kind}: ${count} chunks stored, ${chunks.length} expected`);

    for (let i = 0; i < WARMUP; i++) {
      await store.bm25('code', questions[i % questions.length]!, K);
      await store.knn('code', queryVectors[i % queryVectors.length]!, K);
    }
    const bm25: number[] = [];
    for (const q of questions) {
      const s = performance.now();
      await store.bm25('code', q, K);
      bm25.push(performance.now() - s);
    }
    const knn: number[] = [];
    const knnIds: string[][] = [];
    for (const v of queryVectors) {
      const s = performance.now();
      const hits = await store.knn('code', v, K);
      knn.push(performance.now() - s);
      knnIds.push(hits.map((h) => h.chunk.id));
    }
    let disk: string;
    if (store instanceof ElasticsearchStore) {
      const stats = await store.client.indices.stats({ index: `citabench-b${process.pid}-${chunks.length}-code`, metric: ['store', 'segments'] });
      disk = `${((stats._all.primaries?.store?.size_in_bytes ?? 0) / 1e6).toFixed(0)} MB, ${stats._all.primaries?.segments?.count ?? '?'} segments`;
    } else {
      await store.close();
      disk = `${(statSync(file).size / 1e6).toFixed(0)} MB`;
    }
    const typed = bm25.filter((_, i) => ftsTerms(questions[i]!).length <= TYPED);
    return { kind, size: chunks.length, chunksPerSecond, bm25: [percentile(bm25, 0.5), percentile(bm25, 0.95)], bm25Typed: [percentile(typed, 0.5), percentile(typed, 0.95)], knn: [percentile(knn, 0.5), percentile(knn, 0.95)], knnIds, disk };
  } finally {
    if (store instanceof ElasticsearchStore) await store.dropAll();
    await store.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

const data = path.resolve(root, '../shared/datasets/pytest');
const questions = [
  ...loadJsonl(path.join(data, 'issue-localization.jsonl'), localizationRecord),
  ...loadJsonl(path.join(data, 'code-qa.jsonl'), codeQaRecord),
].map((r) => r.question);
const model = await openInstance('pytest', { purpose: 'index', root });
const queryVectors = await model.embedder.embedQueries(questions);
await model.close();

const base = await pytestChunks();
const meanChars = base.reduce((s, c) => s + c.text.length, 0) / base.length;
console.log(
  `store comparison: ${questions.length} queries, k=${K}, 384 dims; pytest chunks ${base.length} (mean ${meanChars.toFixed(0)} chars), ` +
    `large ${large} synthetic; Elasticsearch at ${url}; bm25 maxTerms ${bm25MaxTerms ?? 'off'}, commonCutoff ${bm25CommonCutoff ?? 'off'}`,
);
const results: Figures[] = [];
for (const [label, chunks] of [['pytest', base] as const, ...(large > 0 ? [['large', synthetic(base, large)] as const] : [])]) {
  for (const kind of kinds) {
    const f = await measure(kind, chunks, questions, queryVectors);
    results.push(f);
    const exact = results.find((r) => r.kind === 'sqlite' && r.size === f.size);
    const recall =
      kind === 'elasticsearch' && exact
        ? `, knn recall@${K} vs exact ${(f.knnIds.reduce((s, ids, i) => s + ids.filter((id) => exact.knnIds[i]!.includes(id)).length, 0) / (K * f.knnIds.length)).toFixed(3)}`
        : '';
    console.log(
      `${label.padEnd(6)} ${String(f.size).padStart(7)} ${kind.padEnd(13)} index ${f.chunksPerSecond.toFixed(0).padStart(6)} chunks/s | ` +
        `bm25 p50 ${f.bm25[0].toFixed(1)} ms p95 ${f.bm25[1].toFixed(1)} ms (≤${TYPED} terms p50 ${f.bm25Typed[0].toFixed(1)} p95 ${f.bm25Typed[1].toFixed(1)}) | knn p50 ${f.knn[0].toFixed(1)} ms p95 ${f.knn[1].toFixed(1)} ms | ${f.disk}${recall}`,
    );
  }
}
if (large > 0) console.log(`\ngrowth from ${base.length} to ${large} chunks (×${(large / base.length).toFixed(1)}): large / small`);
for (const kind of kinds) {
  const [s, l] = [results.find((r) => r.kind === kind && r.size === base.length), results.find((r) => r.kind === kind && r.size === large)];
  if (!s || !l) continue;
  const x = (a: number, b: number) => `×${(b / a).toFixed(2)}`;
  console.log(
    `${kind.padEnd(13)} throughput ${x(s.chunksPerSecond, l.chunksPerSecond)}; bm25 p50 ${x(s.bm25[0], l.bm25[0])} p95 ${x(s.bm25[1], l.bm25[1])}; ` +
      `knn p50 ${x(s.knn[0], l.knn[0])} p95 ${x(s.knn[1], l.knn[1])}`,
  );
}
