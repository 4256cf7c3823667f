import type { ScoredChunk, SearchHit } from '../types.ts';
import { RRF_DEFAULTS } from './fusion/rrf.ts';

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
 * How each retriever's scores are put on one scale before they are combined: `min-max` (the best of
 * the query's candidates 1, the worst 0) or `reciprocal-rank` (the hit at rank r gets (k₀ + 1) / (k₀ + r),
 * k₀ RRF's, `RRF_DEFAULTS.k0` in fusion/rrf.ts, not tuned here: the best 1, the 50th about 0.55), which at
 * α = 0.5 ranks as reciprocal rank fusion does (Cormack, Clarke & Büttcher 2009). Min–max reads the score's shape: a query whose BM25
 * scores are all near-ties (a translated question that shares only common words with the docs) still
 * spreads them over [0, 1], where ranks say only the order.
 */
export type ScoreScale = 'min-max' | 'reciprocal-rank';

/**
 * Reciprocal-rank values of a list's scores (higher better, in any order): (k₀ + 1) / (k₀ + r) for the hit at rank r,
 * equal scores sharing the rank of the first of them (a tie broken by chunk id is no evidence). Pure.
 */
export function reciprocalRanks(scores: readonly number[], k0 = RRF_DEFAULTS.k0): number[] {
  const order = scores.map((s, i) => [s, i] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  const out = new Array<number>(scores.length);
  let rank = 0;
  order.forEach(([s, i], at) => {
    if (at === 0 || s !== order[at - 1]![0]) rank = at + 1;
    out[i] = (k0 + 1) / (k0 + rank);
  });
  return out;
}

/**
 * Convex combination of normalised BM25 and dense scores: `alpha * dense + (1 - alpha) * bm25`, each
 * put on one scale by `scale` (default min–max). A candidate missing from one list gets 0 for that
 * component (it ranked below every candidate there). Bruch, Gai & Ingber, "An Analysis of Fusion
 * Functions for Hybrid Retrieval", TOIS 2023: convex combination beats RRF, and the weight matters
 * more than the normaliser — in domain, with α tuned there.
 */
export function convexCombination(bm25: ScoredChunk[], dense: ScoredChunk[], alpha: number, scale: ScoreScale = 'min-max'): SearchHit[] {
  const hits = new Map<string, SearchHit>();
  const entry = (s: ScoredChunk): SearchHit => {
    let h = hits.get(s.chunk.id);
    if (!h) {
      h = { chunk: s.chunk, score: 0, bm25: null, dense: null, bm25Norm: 0, denseNorm: 0 };
      hits.set(s.chunk.id, h);
    }
    return h;
  };
  const scaled = (list: ScoredChunk[]) => (scale === 'reciprocal-rank' ? reciprocalRanks : minMax)(list.map((s) => s.score));
  scaled(bm25).forEach((n, i) => {
    const h = entry(bm25[i]!);
    h.bm25 = bm25[i]!.score;
    h.bm25Norm = n;
  });
  scaled(dense).forEach((n, i) => {
    const h = entry(dense[i]!);
    h.dense = dense[i]!.score;
    h.denseNorm = n;
  });
  for (const h of hits.values()) h.score = alpha * h.denseNorm + (1 - alpha) * h.bm25Norm;
  return [...hits.values()].sort((a, b) => b.score - a.score || a.chunk.id.localeCompare(b.chunk.id));
}

/**
 * Evidence from the rest of a hit's file: each file's best hit gains λ times the score of the file's
 * second-best hit among the candidates; every other hit keeps its score; best first. A page two of
 * whose chunks match the question is likelier the page asked about than one that matches once, and
 * across languages, where one chunk's similarity is noisy, the second chunk is a second witness (the
 * "max + λ · second" of passage-to-document aggregation). Only the best hit moves, so the lists do
 * not fill up with more chunks of the same files (a context of fewer pages). λ = 0: the list as it
 * came. Hits group by `citation.path` (an issue's comments share `#N`). Pure.
 */
export function withFileEvidence(hits: readonly SearchHit[], lambda: number): SearchHit[] {
  if (lambda <= 0) return [...hits];
  const best = new Map<string, SearchHit>();
  const second = new Map<string, number>();
  for (const h of hits) {
    const path = h.chunk.citation.path;
    const top = best.get(path);
    if (!top || h.score > top.score) {
      if (top) second.set(path, Math.max(second.get(path) ?? -Infinity, top.score));
      best.set(path, h);
    } else second.set(path, Math.max(second.get(path) ?? -Infinity, h.score));
  }
  return hits
    .map((h) => (best.get(h.chunk.citation.path) === h && second.has(h.chunk.citation.path) ? { ...h, score: h.score + lambda * second.get(h.chunk.citation.path)! } : h))
    .sort((x, y) => y.score - x.score || x.chunk.id.localeCompare(y.chunk.id));
}
