/**
 * A writer in its own process, for the crash and concurrency tests of the SQLite store.
 * Usage: node --import tsx test/support/sqlite-apply-child.ts <file> <dims> <count> <run>
 * Builds <count> chunks whose text holds the word `<run>marker`, prints `applying`, applies them
 * (with meta run=<run>) in one change set, prints `applied`.
 */
import { SqliteStore } from '../../pipeline/store/sqlite/sqliteStore.ts';
import type { Collection, StoredChunk } from '../../pipeline/types.ts';

const [file, dimsArg, countArg, run] = process.argv.slice(2);
if (!file || !dimsArg || !countArg || !run) throw new Error('usage: sqlite-apply-child.ts <file> <dims> <count> <run>');
const dims = Number(dimsArg);
const collections: Collection[] = ['docs', 'code', 'issues'];

let seed = 1;
const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
const filler = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore. ';
const chunks: StoredChunk[] = Array.from({ length: Number(countArg) }, (_, i) => ({
  id: `${run}-${i}`,
  collection: collections[i % collections.length]!,
  text: `${run}marker chunk ${i} def ${run}_function_${i}(): ${filler.repeat(10)}`,
  title: `${run} ${i}`,
  citation: { path: `src/${run}/${i}.py`, startLine: 1, endLine: 20 },
  tokens: 300,
  symbols: [`${run}_function_${i}`],
  vector: Float32Array.from({ length: dims }, () => random() - 0.5),
}));

const store = SqliteStore.open(file, { dims });
process.stdout.write('applying\n');
await store.apply({ upsert: chunks, delete: [], meta: { run } });
process.stdout.write('applied\n');
await store.close();
