import { COLLECTIONS, type Collection, type SearchHit } from '../../types.ts';
import type { FusedHit, FusionResult } from './index.ts';

export interface RrfOptions {
  /** The rank constant: larger values flatten the difference between ranks. */
  k0: number;
}

export const RRF_DEFAULTS: RrfOptions = { k0: 60 };

/**
 * Weighted reciprocal rank fusion:
 *
 *     fused(d) = Σ_c w_c / (k0 + rank_c(d))        rank 1-based, k0 = 60
 *
 * summed over the lists that hold d, then the top k. Cormack, Clarke & Büttcher, "Reciprocal Rank
 * Fusion outperforms Condorcet and individual Rank Learning Methods", SIGIR 2009 (k0 = 60 there).
 *
 * Kept as the baseline that DESIGN lesson 2 measured against: with one list per collection every
 * collection's rank 1 ties with the others' rank 1, so the fused list takes the same number of
 * hits from each collection whatever they contain (a quota). RRF measures no fit, so `fit` is 1
 * for every collection with hits and 0 for an empty one. Ties (equal fused score) go to the better
 * rank, then to collections in `COLLECTIONS` order. A chunk in several lists takes the collection
 * of the list where it ranks best.
 */
export function reciprocalRankFusion(
  lists: Partial<Record<Collection, SearchHit[]>>,
  weights: Record<Collection, number>,
  k: number,
  options: Partial<RrfOptions> = {},
): FusionResult {
  const k0 = options.k0 ?? RRF_DEFAULTS.k0; // undefined (an unset config value) keeps the default
  checkInputs(weights, k, k0);
  const byId = new Map<string, { hit: SearchHit; collection: Collection; order: number; rank: number; fused: number }>();
  COLLECTIONS.forEach((collection, order) => {
    (lists[collection] ?? []).forEach((hit, i) => {
      const rank = i + 1;
      const add = weights[collection] / (k0 + rank);
      const seen = byId.get(hit.chunk.id);
      if (!seen) byId.set(hit.chunk.id, { hit, collection, order, rank, fused: add });
      else {
        seen.fused += add;
        if (rank < seen.rank) Object.assign(seen, { hit, collection, order, rank });
      }
    });
  });

  const chosen = [...byId.values()]
    .sort((a, b) => b.fused - a.fused || a.rank - b.rank || a.order - b.order)
    .slice(0, k);
  const slots = Object.fromEntries(COLLECTIONS.map((c) => [c, 0])) as Record<Collection, number>;
  const ranked: FusedHit[] = chosen.map(({ hit, collection, fused }) => ({ ...hit, collection, fused, slot: ++slots[collection] }));
  const fit = Object.fromEntries(COLLECTIONS.map((c) => [c, (lists[c] ?? []).length > 0 ? 1 : 0])) as Record<Collection, number>;
  return { ranked, slots, fit, method: 'rrf' };
}

function checkInputs(weights: Record<Collection, number>, k: number, k0: number): void {
  if (!Number.isInteger(k) || k < 0) throw new Error(`reciprocalRankFusion: k must be a whole number ≥ 0, got ${k}`);
  if (!(Number.isFinite(k0) && k0 >= 0)) throw new Error(`reciprocalRankFusion: k0 must be a finite number ≥ 0, got ${k0}`);
  for (const c of COLLECTIONS) {
    const w = weights[c];
    if (!(Number.isFinite(w) && w >= 0)) {
      throw new Error(`reciprocalRankFusion: weight of ${c} must be a finite number ≥ 0, got ${w}`);
    }
  }
}
