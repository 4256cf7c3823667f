import { describe, expect, it } from 'vitest';
import { chunkDocument } from '../pipeline/chunking/index.ts';
import { HashingEmbedder } from '../pipeline/embedding/hashing.ts';
import { runIndex, sortedByLength } from '../pipeline/index/indexer.ts';
import { VectorCache } from '../pipeline/index/vectorCache.ts';
import { SqliteStore } from '../pipeline/store/sqlite/sqliteStore.ts';
import type { Chunk, Document, StoredChunk } from '../pipeline/types.ts';
import { recordingEmbedder } from './support/recordingEmbedder.ts';

/**
 * The indexer embeds all pending chunks shortest first (#14 item 2): a runtime that pads each batch
 * to its longest text (onnxruntime) then computes on little padding. What is stored must not depend
 * on that order: every chunk gets the vector of its own text, and the upsert keeps file order.
 */

const words = (n: number, seed: string) => Array.from({ length: n }, (_, i) => `${seed}${i}`).join(' ');
// Sections alternately long and short, so file order is far from length order.
const DOC: Document = {
  collection: 'docs',
  path: 'docs/guide.md',
  format: 'markdown',
  text: `# Guide\n\n${[120, 8, 90, 4, 150, 12, 60, 2, 100, 6]
    .map((n, i) => `## Part ${i}\n\n${words(n, `w${i}x`)}\n`)
    .join('\n')}`,
};

describe('sortedByLength', () => {
  it('orders by token count, ties in the given order, without changing the input', () => {
    const input = [
      { id: 'a', tokens: 30 },
      { id: 'b', tokens: 10 },
      { id: 'c', tokens: 30 },
      { id: 'd', tokens: 5 },
      { id: 'e', tokens: 10 },
    ];
    expect(sortedByLength(input).map((c) => c.id)).toEqual(['d', 'b', 'e', 'a', 'c']);
    expect(input.map((c) => c.id)).toEqual(['a', 'b', 'c', 'd', 'e']);
  });
});

describe('runIndex batching', () => {
  it('sends batches shortest first and stores each chunk with the vector of its own text, in file order', async () => {
    const embedder = recordingEmbedder();
    const chunking = { maxTokens: 512, lineWindow: 60 };
    const expected: Chunk[] = await chunkDocument(DOC, embedder, chunking);
    expect(expected.length).toBe(10);
    // The fixture is only a test if file order is not length order.
    expect(sortedByLength(expected).map((c) => c.id)).not.toEqual(expected.map((c) => c.id));

    const store = SqliteStore.open(':memory:', { dims: embedder.dims, instance: 'batching' });
    const upserts: StoredChunk[][] = [];
    const apply = store.apply.bind(store);
    store.apply = (changes) => {
      upserts.push(changes.upsert);
      return apply(changes);
    };
    const cache = VectorCache.openForReading('/nonexistent/cita-batching-cache.sqlite');
    try {
      const summary = await runIndex({
        instance: 'batching',
        scan: { documents: [DOC], skipped: [], unmatched: 0 },
        embedder,
        store,
        cache,
        chunking,
        batchSize: 3,
      });
      expect(summary.plan.embedded).toBe(10);
    } finally {
      cache.close();
      await store.close();
    }

    // Batches of 3, shortest first across the whole run (not only within a batch).
    expect(embedder.batches.map((b) => b.length)).toEqual([3, 3, 3, 1]);
    const sent = embedder.batches.flat().map((t) => embedder.countTokens(t));
    expect(sent).toEqual([...sent].sort((a, b) => a - b));
    expect(embedder.batches.flat().sort()).toEqual(expected.map((c) => c.text).sort());

    // Stored: the same chunks in file order, each with its own text's vector.
    expect(upserts).toHaveLength(1);
    const upsert = upserts[0]!;
    expect(upsert.map((c) => c.id)).toEqual(expected.map((c) => c.id));
    const reference = new HashingEmbedder();
    for (const c of upsert) expect(Array.from(c.vector)).toEqual(Array.from((await reference.embedPassages([c.text]))[0]!));
  });
});
