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

/** A hit of an engine's top-n search; `engineScore` is what the engine ranked by, when not `score` itself. */
export type Candidate = ScoredChunk & { engineScore?: number };

/**
 * The k best hits in `byScoreThenId` order, from an engine whose top-n search cuts at n in its own row
 * order among equal scores (sqlite-vec, FTS5 and Lucene: the order of insertion), which would make
 * the hits at the k-th place depend on the index's history. `search(n)` must return the engine's n
 * best. Asks for k + 1 and, while the engine's n-th could still tie the k-th, for twice as many, up
 * to `max`; then every hit that belongs at the cut is in hand and the id decides.
 *
 * `slack` is for an engine whose own scores may differ from `score` by up to that much (Lucene's
 * float32 kNN scores, recomputed by the caller): the n fetched are complete once the engine's lowest
 * is more than `slack` below the k-th score; `pad` (default 1) extra hits on the first request make
 * that likely at once. `complete` is false when it never happened by `max` (the caller then needs
 * an exhaustive order).
 */
export async function topK(
  search: (n: number) => Promise<Candidate[]> | Candidate[],
  k: number,
  max: number,
  { slack = 0, pad = 1 }: { slack?: number; pad?: number } = {},
): Promise<{ hits: ScoredChunk[]; complete: boolean }> {
  for (let n = Math.min(k + pad, max); ; n = Math.min(n * 2, max)) {
    const found = await search(n);
    const hits = found.map(({ chunk, score }) => ({ chunk, score })).sort(byScoreThenId);
    const lowest = found.reduce((low, h) => Math.min(low, h.engineScore ?? h.score), Infinity);
    // Fewer than asked: that is every hit there is.
    const complete = hits.length < n || (n > k && lowest < hits[k - 1]!.score - slack);
    if (complete || n === max) return { hits: hits.slice(0, k), complete };
  }
}
