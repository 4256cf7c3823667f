/**
 * Cost of incremental applies on the Elasticsearch store: loads N chunks into one collection, then
 * times applies of one new chunk (and one delete), each a whole new generation swapped in, and the
 * history of #11 item 7: removing M chunks (a file excluded), then adding them back. An apply that
 * deletes also compacts the new generation (a second clone and a force merge), so that BM25
 * statistics count no deleted document.
 * Usage: node --import tsx bench/es-apply.ts [chunks=5000] [applies=5] [removed=575]   (needs `npm run es:start`)
 * URL from CITA_ES_URL (default http://127.0.0.1:9200). Prints figures, asserts nothing; the
 * benchmark's indices are deleted at the end.
 */
import { performance } from 'node:perf_hooks';
import { ElasticsearchStore } from '../pipeline/store/elasticsearch/elasticsearchStore.ts';
import type { StoredChunk } from '../pipeline/types.ts';
import { mulberry32 } from '../test/support/prng.ts';

const total = Number(process.argv[2] ?? 5000);
const applies = Number(process.argv[3] ?? 5);
const removed = Number(process.argv[4] ?? 575);
const dims = 384;
const url = process.env.CITA_ES_URL ?? 'http://127.0.0.1:9200';
const random = mulberry32(7);
const words = ['fixture', 'parametrize', 'config', 'the', 'of', 'skip', 'marker', 'node', 'report', 'capture', 'plugin', 'hook', 'assert', 'tmp_path'];
const text = () => Array.from({ length: 180 }, () => words[Math.floor(random() * words.length)]).join(' ');
const chunk = (i: number): StoredChunk => ({
  id: `c${i}`,
  collection: 'code',
  text: text(),
  title: `src/m${i}.py:f${i}`,
  citation: { path: `src/m${i}.py`, startLine: 1, endLine: 40, symbol: `f${i}` },
  tokens: 300,
  symbols: [`f${i}`],
  vector: Float32Array.from({ length: dims }, () => random() * 2 - 1),
});

const store = await ElasticsearchStore.open({ dims, instance: `bench-apply-${process.pid}`, client: { node: url, requestTimeout: 120_000 } });
try {
  let t = performance.now();
  await store.upsert(Array.from({ length: total }, (_, i) => chunk(i)));
  console.log(`load ${total} chunks into one collection: ${((performance.now() - t) / 1000).toFixed(2)} s`);
  const times: number[] = [];
  for (let i = 0; i < applies; i++) {
    t = performance.now();
    await store.apply({ upsert: [chunk(total + i)], delete: [`c${i}`], meta: { round: String(i) } });
    times.push(performance.now() - t);
  }
  const sorted = [...times].sort((a, b) => a - b);
  console.log(
    `apply of 1 upsert + 1 delete on ${total} chunks (${applies} runs): ` +
      `median ${(sorted[Math.floor(sorted.length / 2)]! / 1000).toFixed(2)} s, min ${(sorted[0]! / 1000).toFixed(2)} s, max ${(sorted.at(-1)! / 1000).toFixed(2)} s`,
  );
  console.log(`count after: ${await store.count('code')} (expected ${total})`);
  const gone = Array.from({ length: removed }, (_, i) => chunk(total + applies + i));
  await store.upsert(gone);
  t = performance.now();
  await store.delete(gone.map((c) => c.id));
  const tRemove = performance.now() - t;
  t = performance.now();
  await store.upsert(gone);
  const tAdd = performance.now() - t;
  console.log(`remove ${removed} of ${total + removed} chunks: ${(tRemove / 1000).toFixed(2)} s; add them back: ${(tAdd / 1000).toFixed(2)} s`);
} finally {
  await store.dropAll();
  await store.close();
}
