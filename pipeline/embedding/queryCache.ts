import type { Embedder } from '../types.ts';

/** An embedder that remembers query vectors by text, counting how often it reused one. */
export type CachedQueries = Embedder & { readonly hits: number; readonly misses: number; clear(): void };

/**
 * Query vectors remembered by text, least recently used out first (#14 item 3): a server sees the
 * same questions again (a user refining, a dashboard polling, an evaluation re-run), and one query
 * embedding is nearly all of a hybrid search. Bounded by entries (384 floats each: 256 entries ≈
 * 400 KB); the evaluation keeps every query of a run (`maxEntries` Infinity, eval/queryMemo.ts).
 * Passages are not cached here (the index has its own vector cache). Explicit delegation, so the
 * wrapped embedder's own getters and private fields keep their `this`.
 */
export function withQueryCache(embedder: Embedder, maxEntries = 256): CachedQueries {
  const cache = new Map<string, Float32Array>();
  let hits = 0;
  let misses = 0;
  const remember = (text: string, v: Float32Array) => {
    cache.delete(text);
    cache.set(text, v);
    // A Map iterates in insertion order: the first key is the least recently used.
    while (cache.size > maxEntries) cache.delete(cache.keys().next().value!);
  };
  return {
    get id() {
      return embedder.id;
    },
    get dims() {
      return embedder.dims;
    },
    get window() {
      return embedder.window;
    },
    get hits() {
      return hits;
    },
    get misses() {
      return misses;
    },
    /** Forgets every vector and the counts (after a warm-up, so timed questions start cold). */
    clear() {
      cache.clear();
      hits = 0;
      misses = 0;
    },
    countTokens: (text) => embedder.countTokens(text),
    // Query and passage prefixes differ: without this, query lengths would be counted as passages.
    ...(embedder.countQueryTokens ? { countQueryTokens: (text: string) => embedder.countQueryTokens!(text) } : {}),
    async embedQueries(texts) {
      const missing = [...new Set(texts.filter((t) => !cache.has(t)))];
      hits += texts.length - missing.length;
      misses += missing.length;
      const fresh = missing.length ? await embedder.embedQueries(missing) : [];
      const got = new Map(missing.map((t, i) => [t, fresh[i]!]));
      return texts.map((t) => {
        const v = got.get(t) ?? cache.get(t)!;
        remember(t, v);
        // A copy: callers may change their vector (e.g. average it) without changing the cache.
        return v.slice();
      });
    },
    embedPassages: (texts) => embedder.embedPassages(texts),
    close: () => embedder.close(),
  };
}
