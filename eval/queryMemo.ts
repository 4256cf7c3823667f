import { withQueryCache, type CachedQueries } from '../pipeline/embedding/queryCache.ts';
import type { Embedder } from '../pipeline/types.ts';

/** An embedder that embeds each distinct query text once and counts how often it reused a vector. */
export type MemoizedEmbedder = CachedQueries;

/**
 * The query cache without a bound: an evaluation run's queries are few, and each is kept for the run. Passages'
 * token vectors (late interaction) up to 256 MB: a run re-ranks the same chunks for many questions.
 */
export function memoizeQueries(embedder: Embedder): MemoizedEmbedder {
  return withQueryCache(embedder, Infinity, 256 * 2 ** 20);
}
