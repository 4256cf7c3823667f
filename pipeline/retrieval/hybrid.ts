import type { ScoredChunk, SearchHit } from '../types.ts';

/**
 * Min-max normalisation within one query's candidate list: the best gets 1, the worst 0.
 * A list of one (or of equal scores) maps to 1, so a lone match is not discarded.
 */
export function minMax(scores: number[]): number[] {
  if (scores.length === 0) return [];
  const lo = Math.min(...scores);
  const hi = Math.max(...scores);
  return scores.map((s) => (hi > lo ? (s - lo) / (hi - lo) : 1));
}

/**
 * Convex combination of normalised BM25 and dense scores: `alpha * dense + (1 - alpha) * bm25`.
 * A candidate missing from one list gets 0 for that component (it ranked below every candidate there).
 * Bruch, Gai & Ingber, "An Analysis of Fusion Functions for Hybrid Retrieval", TOIS 2023: convex
 * combination beats RRF, and the weight matters more than the normaliser.
 */
export function convexCombination(bm25: ScoredChunk[], dense: ScoredChunk[], alpha: number): SearchHit[] {
  const hits = new Map<string, SearchHit>();
  const entry = (s: ScoredChunk): SearchHit => {
    let h = hits.get(s.chunk.id);
    if (!h) {
      h = { chunk: s.chunk, score: 0, bm25: null, dense: null, bm25Norm: 0, denseNorm: 0 };
      hits.set(s.chunk.id, h);
    }
    return h;
  };
  minMax(bm25.map((s) => s.score)).forEach((n, i) => {
    const h = entry(bm25[i]!);
    h.bm25 = bm25[i]!.score;
    h.bm25Norm = n;
  });
  minMax(dense.map((s) => s.score)).forEach((n, i) => {
    const h = entry(dense[i]!);
    h.dense = dense[i]!.score;
    h.denseNorm = n;
  });
  for (const h of hits.values()) h.score = alpha * h.denseNorm + (1 - alpha) * h.bm25Norm;
  return [...hits.values()].sort((a, b) => b.score - a.score || a.chunk.id.localeCompare(b.chunk.id));
}
