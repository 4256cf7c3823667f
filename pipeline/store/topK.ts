import type { ScoredChunk } from '../types.ts';

/**
 * The order every Store returns hits in: score descending, then chunk id ascending. Ids come from
 * content, so equal scores are ordered the same whatever order the chunks were written in. (Chunk ids
 * are hex, so this code-unit order is also the byte order of SQLite's BINARY collation and of
 * Elasticsearch's keyword sort.)
 */
export function byScoreThenId(a: ScoredChunk, b: ScoredChunk): number {
  return b.score - a.score || (a.chunk.id < b.chunk.id ? -1 : a.chunk.id > b.chunk.id ? 1 : 0);
}

/**
 * The k best hits in `byScoreThenId` order, from an engine whose top-n search breaks ties by its own
 * row order (sqlite-vec, Lucene: the order of insertion), which would make the hits at the k-th
 * place depend on the index's history. `search(n)` must return n hits with the best scores, in any
 * order among equal scores. Asks for k + 1 and, while the last hit still ties the k-th, for twice as
 * many, up to `max`; then every hit tied at the cut is in hand and the id decides.
 * `complete` is false when a tie still crosses the cut at `max` (the caller needs an exhaustive order).
 */
export async function topK(
  search: (n: number) => Promise<ScoredChunk[]> | ScoredChunk[],
  k: number,
  max: number,
): Promise<{ hits: ScoredChunk[]; complete: boolean }> {
  for (let n = Math.min(k + 1, max); ; n = Math.min(n * 2, max)) {
    const hits = [...(await search(n))].sort(byScoreThenId);
    // Fewer than asked: that is every hit there is.
    const complete = hits.length < n || (n > k && hits[n - 1]!.score !== hits[k - 1]!.score);
    if (complete || n === max) return { hits: hits.slice(0, k), complete };
  }
}
