import type { Embedder } from '../types.ts';

/**
 * Query vectors remembered by text, least recently used out first (#14 item 3): a server sees the
 * same questions again (a user refining, a dashboard polling, an evaluation re-run), and one query
 * embedding is nearly all of a hybrid search. Bounded by entries (384 floats each: 256 entries ≈
 * 400 KB). Passages are not cached here (the index has its own vector cache).
 */
export function withQueryCache(embedder: Embedder, maxEntries = 256): Embedder & { readonly cacheHits: number } {
  const cache = new Map<string, Float32Array>();
  let hits = 0;
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
    get cacheHits() {
      return hits;
    },
    countTokens: (text) => embedder.countTokens(text),
    ...(embedder.countQueryTokens ? { countQueryTokens: (text: string) => embedder.countQueryTokens!(text) } : {}),
    async embedQueries(texts) {
      const missing = [...new Set(texts.filter((t) => !cache.has(t)))];
      const fresh = missing.length ? await embedder.embedQueries(missing) : [];
      missing.forEach((t, i) => remember(t, fresh[i]!));
      return texts.map((t) => {
        const v = cache.get(t) ?? fresh[missing.indexOf(t)]!;
        if (!missing.includes(t)) hits++;
        remember(t, v);
        // A copy: callers may change their vector (e.g. average it) without changing the cache.
        return v.slice();
      });
    },
    embedPassages: (texts) => embedder.embedPassages(texts),
    close: () => embedder.close(),
  };
}
