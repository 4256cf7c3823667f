/**
 * Benchmark of the SQLite store: upsert throughput, replace and delete cost, bm25 and knn latency.
 * Usage: node --import tsx bench/sqlite-store.ts [chunks=20000] [dims=384]
 *
 * Texts are 1,200-character windows of the pytest corpus (`npm run setup` fetches it), spread over
 * the three collections; synthetic text when the corpus is absent. Vectors are seeded random.
 * Prints figures, asserts nothing; wall-clock figures depend on the machine's load.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { SqliteStore } from '../pipeline/store/sqlite/sqliteStore.ts';
import type { Collection, StoredChunk } from '../pipeline/types.ts';
import { pytestCorpus } from '../test/support/paths.ts';
import { mulberry32 } from '../test/support/prng.ts';

const total = Number(process.argv[2] ?? 20_000);
const dims = Number(process.argv[3] ?? 384);
const collections: Collection[] = ['docs', 'code', 'issues'];
const WINDOW = 1200;

const random = mulberry32(42);

function corpusText(): { text: string; source: string } {
  if (existsSync(pytestCorpus)) {
    const files: string[] = [];
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir).sort()) {
        const p = path.join(dir, name);
        if (statSync(p).isDirectory()) walk(p);
        else if (/\.(py|rst|md|txt)$/.test(name)) files.push(p);
      }
    };
    walk(pytestCorpus);
    return { text: files.map((f) => readFileSync(f, 'utf8')).join('\n'), source: `pytest corpus, ${files.length} files` };
  }
  const words = ['parse_config', 'loadConfig', 'fixture', 'the', 'of', 'skip', 'HTTPServer', 'node.id', 'mark', 'report'];
  const text = Array.from({ length: 400_000 }, () => words[Math.floor(random() * words.length)]).join(' ');
  return { text, source: 'synthetic text (pytest corpus absent)' };
}

const { text: corpus, source } = corpusText();
// Window starts spread evenly over the corpus, so the windows overlap when it is short.
const stride = Math.max(1, Math.floor((corpus.length - WINDOW) / total));
const vector = () => Float32Array.from({ length: dims }, () => random() * 2 - 1);
const chunks: StoredChunk[] = Array.from({ length: total }, (_, i) => {
  const collection = collections[i % collections.length]!;
  return {
    id: `chunk-${i}`,
    collection,
    text: corpus.slice(i * stride, i * stride + WINDOW),
    title: `window ${i}`,
    citation: { path: `corpus/${i}`, startLine: 1, endLine: 30, ...(collection === 'issues' ? { issue: i } : {}) },
    tokens: 300,
    symbols: collection === 'code' ? [`Window${i}.method${i}`] : undefined,
    vector: vector(),
  };
});

function percentiles(times: number[]): string {
  const s = [...times].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))]!.toFixed(2);
  return `p50 ${at(0.5)} ms, p95 ${at(0.95)} ms, max ${at(1)} ms`;
}

async function timed(label: string, n: number, f: () => Promise<void>): Promise<void> {
  const cpu0 = process.cpuUsage();
  const t = performance.now();
  await f();
  const ms = performance.now() - t;
  const cpu = process.cpuUsage(cpu0);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  console.log(
    `${label}: ${(ms / 1000).toFixed(2)} s wall (${(cpuMs / 1000).toFixed(2)} s cpu), ${Math.round((n / ms) * 1000)} chunks/s`,
  );
}

console.log(`${total} chunks of ${WINDOW} chars × ${dims}-dim vectors; text: ${source}`);
const dir = mkdtempSync(path.join(tmpdir(), 'cita-bench-'));
const file = path.join(dir, 'index.sqlite');
const store = SqliteStore.open(file, { dims });

await timed(`upsert ${total} new chunks, one apply`, total, () => store.upsert(chunks));
await timed('re-upsert (replace) 2000 existing chunks', 2000, () => store.upsert(chunks.slice(0, 2000)));
await timed('delete 2000 chunks', 2000, () => store.delete(chunks.slice(2000, 4000).map((c) => c.id)));
await store.upsert(chunks.slice(2000, 4000));

// Queries: 4 to 8 words drawn from random windows (so the usual the/of/to words are in them too).
const corpusWords = corpus.match(/[\p{L}_][\p{L}\p{N}_.]*/gu) ?? [];
const queries = Array.from({ length: 300 }, () => {
  const start = Math.floor(random() * (corpusWords.length - 8));
  return corpusWords.slice(start, start + 4 + Math.floor(random() * 5)).join(' ');
});
for (const k of [10, 50]) {
  const times: number[] = [];
  for (const [i, q] of queries.entries()) {
    const s = performance.now();
    await store.bm25(collections[i % 3]!, q, k);
    times.push(performance.now() - s);
  }
  console.log(`bm25 k=${k} (${queries.length} queries of 4-8 corpus words, OR): ${percentiles(times)}`);
}
for (const k of [10, 50]) {
  const times: number[] = [];
  for (let i = 0; i < 300; i++) {
    const v = vector();
    const s = performance.now();
    await store.knn(collections[i % 3]!, v, k);
    times.push(performance.now() - s);
  }
  console.log(`knn k=${k} (300 queries, ~${Math.round(total / 3)} vectors per collection): ${percentiles(times)}`);
}
await store.close();
console.log(`file size: ${(statSync(file).size / 1e6).toFixed(1)} MB`);
rmSync(dir, { recursive: true, force: true });
