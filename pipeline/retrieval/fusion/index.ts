import type { Collection, SearchHit } from '../../types.ts';
import { proportionalSlots, type FitLists, type ProportionalOptions } from './proportional.ts';
import { reciprocalRankFusion, type RrfOptions } from './rrf.ts';

/**
 * Fusion across collections: one ranked list per collection (each from hybrid search) → one ranked
 * list plus the slot distribution that says how much of the context each collection got, and why.
 * One fuser per file; this file holds the shared shapes and the registry.
 */

/** A hit in the fused list; keeps its search components so it can explain its place. */
export type FusedHit = SearchHit & {
  collection: Collection;
  /** The fuser's score; the ranked list is sorted by it. */
  fused: number;
  /** 1-based rank within the slots its collection got. */
  slot: number;
};

export interface FusionResult {
  ranked: FusedHit[];
  /** Hits per collection in `ranked`; sums to `ranked.length`. */
  slots: Record<Collection, number>;
  /** How well each collection fits the query, in [0, 1] (see each fuser for what it measures). */
  fit: Record<Collection, number>;
  method: FusionMethod;
}

export type FusionMethod = 'proportional' | 'rrf';

/** Every fuser's options; each fuser reads its own and fills the rest from its defaults. */
export type FusionOptions = Partial<ProportionalOptions> & Partial<RrfOptions> & FitLists;

/** `lists` holds one list per collection searched; a missing collection counts as one with no hits. */
export type FuserFn = (
  lists: Partial<Record<Collection, SearchHit[]>>,
  weights: Record<Collection, number>,
  k: number,
  options?: FusionOptions,
) => FusionResult;

export const FUSERS: Record<FusionMethod, FuserFn> = {
  proportional: proportionalSlots,
  rrf: reciprocalRankFusion,
};

/** Fuses with the fuser named `method` (a config value, hence `string`). */
export function fuse(
  method: string,
  lists: Partial<Record<Collection, SearchHit[]>>,
  weights: Record<Collection, number>,
  k: number,
  options: FusionOptions = {},
): FusionResult {
  if (!Object.hasOwn(FUSERS, method)) {
    throw new Error(`fuse: unknown fusion method ${JSON.stringify(method)}; supported: ${Object.keys(FUSERS).join(', ')}`);
  }
  return FUSERS[method as FusionMethod](lists, weights, k, options);
}
