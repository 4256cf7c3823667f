import type { Embedder } from '../types.ts';

/** An embedder that remembers query vectors by text, counting how often it reused one, and passages' token vectors. */
export type CachedQueries = Embedder & { readonly hits: number; readonly misses: number; clear(): void };

/**
 * Query vectors remembered by text, least recently used out first (#14 item 3): a server sees the
 * same questions again (a user refining, a dashboard polling, an evaluation re-run), and one query
 * embedding is nearly all of a hybrid search. Bounded by entries (384 floats each: 256 entries ≈
 * 400 KB); the evaluation keeps every query of a run (`maxEntries` Infinity, eval/queryMemo.ts).
 * Passages' vectors are not cached here (the index has its own vector cache); their token vectors are (late
 * interaction re-ranks the same popular chunks question after question), up to `tokenBytes`, least recently
 * used out first. Explicit delegation, so the wrapped embedder's own getters and private fields keep their `this`.
 */
export function withQueryCache(embedder: Embedder, maxEntries = 256, tokenBytes = 64 * 2 ** 20): CachedQueries {
  const cache = new Map<string, Float32Array>();
  const tokens = new Map<string, Float32Array>();
  let tokenBytesHeld = 0;
  const rememberTokens = (key: string, v: Float32Array) => {
    const old = tokens.get(key);
    if (old) tokenBytesHeld -= old.byteLength;
    tokens.delete(key);
    tokens.set(key, v);
    tokenBytesHeld += v.byteLength;
    while (tokenBytesHeld > tokenBytes && tokens.size > 0) {
      const [first, held] = tokens.entries().next().value!;
      tokens.delete(first);
      tokenBytesHeld -= held.byteLength;
    }
  };
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
      tokens.clear();
      tokenBytesHeld = 0;
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
    ...(embedder.tokenVectors
      ? {
          async tokenVectors(texts: string[], kind: 'query' | 'passage') {
            if (kind === 'query') return embedder.tokenVectors!(texts, kind);
            const missing = [...new Set(texts.filter((t) => !tokens.has(t)))];
            const fresh = missing.length ? await embedder.tokenVectors!(missing, kind) : [];
            const got = new Map(missing.map((t, i) => [t, fresh[i]!]));
            // All read before any is remembered: remembering one can evict another of the same call.
            const vectors = texts.map((t) => got.get(t) ?? tokens.get(t)!);
            texts.forEach((t, i) => rememberTokens(t, vectors[i]!));
            return vectors;
          },
        }
      : {}),
    close: () => embedder.close(),
  };
}
