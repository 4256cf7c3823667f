import { describe, expect, it } from 'vitest';
import { HashingEmbedder } from '../pipeline/embedding/hashing.ts';
import { withQueryCache } from '../pipeline/embedding/queryCache.ts';
import type { Embedder } from '../pipeline/types.ts';

/** A hashing embedder that records every text the model is asked to embed. */
function counting(): { embedder: Embedder; queried: string[]; passages: string[] } {
  const inner = new HashingEmbedder({ dims: 16, window: 64 });
  const queried: string[] = [];
  const passages: string[] = [];
  const embedder: Embedder = {
    id: inner.id,
    dims: inner.dims,
    window: inner.window,
    countTokens: (t) => inner.countTokens(t),
    embedQueries: (texts) => (queried.push(...texts), inner.embedQueries(texts)),
    embedPassages: (texts) => (passages.push(...texts), inner.embedPassages(texts)),
    close: () => inner.close(),
  };
  return { embedder, queried, passages };
}

describe('withQueryCache', () => {
  it('embeds a repeated question once and returns the same vector', async () => {
    const { embedder, queried } = counting();
    const cached = withQueryCache(embedder, 4);
    const [a] = await cached.embedQueries(['how do I skip a test?']);
    const [b, c] = await cached.embedQueries(['how do I skip a test?', 'how do I skip a test?']);
    expect(queried).toEqual(['how do I skip a test?']);
    expect([...b!]).toEqual([...a!]);
    expect([...c!]).toEqual([...a!]);
    expect(cached.hits).toBe(2);
  });

  it('keeps at most maxEntries, dropping the least recently used', async () => {
    const { embedder, queried } = counting();
    const cached = withQueryCache(embedder, 2);
    await cached.embedQueries(['a']);
    await cached.embedQueries(['b']);
    await cached.embedQueries(['a']); // a is now more recent than b
    await cached.embedQueries(['c']); // evicts b
    await cached.embedQueries(['a', 'c']);
    expect(queried).toEqual(['a', 'b', 'c']);
    await cached.embedQueries(['b']);
    expect(queried).toEqual(['a', 'b', 'c', 'b']);
  });

  it('gives each caller its own copy and never caches passages', async () => {
    const { embedder, passages } = counting();
    const cached = withQueryCache(embedder, 4);
    const [v] = await cached.embedQueries(['q']);
    v!.fill(0);
    const [w] = await cached.embedQueries(['q']);
    expect(w!.some((x) => x !== 0)).toBe(true);
    await cached.embedPassages(['p']);
    await cached.embedPassages(['p']);
    expect(passages).toEqual(['p', 'p']);
  });

  it("keeps passages' token vectors up to a byte bound, least recently used out first; queries' never", async () => {
    const asked: string[] = [];
    const base: Embedder = {
      id: 'tokens',
      dims: 2,
      window: 64,
      countTokens: () => 1,
      embedQueries: async (texts) => texts.map(() => new Float32Array(2)),
      embedPassages: async (texts) => texts.map(() => new Float32Array(2)),
      // One row of 2 floats (8 bytes) per text.
      tokenVectors: async (texts, kind) => (asked.push(...texts.map((t) => `${kind}:${t}`)), texts.map(() => Float32Array.of(1, 0))),
      close: async () => {},
    };
    const cached = withQueryCache(base, 4, 16);
    await cached.tokenVectors!(['a', 'b'], 'passage');
    await cached.tokenVectors!(['a'], 'passage'); // a now more recent than b
    await cached.tokenVectors!(['c'], 'passage'); // 24 bytes > 16: evicts b
    await cached.tokenVectors!(['a', 'c', 'b'], 'passage');
    await cached.tokenVectors!(['q'], 'query');
    await cached.tokenVectors!(['q'], 'query');
    expect(asked).toEqual(['passage:a', 'passage:b', 'passage:c', 'passage:b', 'query:q', 'query:q']);
    // A call holding more than the bound, a cached text among them: each comes back (none evicted before it is read).
    const all = await cached.tokenVectors!(['a', 'c', 'd', 'e'], 'passage');
    expect(all.map((v) => [...v])).toEqual([[1, 0], [1, 0], [1, 0], [1, 0]]);
    cached.clear();
    await cached.tokenVectors!(['c'], 'passage');
    expect(asked.at(-1)).toBe('passage:c');
    // An embedder without token vectors gives a cache without them.
    const { embedder } = counting();
    expect(withQueryCache(embedder).tokenVectors).toBeUndefined();
  });
});
