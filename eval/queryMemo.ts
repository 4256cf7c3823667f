import type { Embedder } from '../pipeline/types.ts';

/** An embedder that embeds each distinct query text once and counts how often it reused a vector. */
export type MemoizedEmbedder = Embedder & { readonly hits: number; readonly misses: number; clear(): void };

/**
 * Remembers query vectors by text (a question asked again, a hop text seen before); passages and
 * everything else go straight to the model. Explicit delegation, so the wrapped embedder's own
 * getters and private fields keep their `this`.
 */
export function memoizeQueries(embedder: Embedder): MemoizedEmbedder {
  const memo = new Map<string, Float32Array>();
  let hits = 0;
  let misses = 0;
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
      memo.clear();
      hits = 0;
      misses = 0;
    },
    countTokens: (text: string) => embedder.countTokens(text),
    // Query and passage prefixes differ: without this, query lengths would be counted as passages.
    ...(embedder.countQueryTokens ? { countQueryTokens: (text: string) => embedder.countQueryTokens!(text) } : {}),
    embedPassages: (texts: string[]) => embedder.embedPassages(texts),
    close: () => embedder.close(),
    async embedQueries(texts: string[]): Promise<Float32Array[]> {
      const missing = [...new Set(texts.filter((t) => !memo.has(t)))];
      hits += texts.length - missing.length;
      misses += missing.length;
      if (missing.length) (await embedder.embedQueries(missing)).forEach((v, i) => memo.set(missing[i]!, v));
      return texts.map((t) => memo.get(t)!);
    },
  };
}
