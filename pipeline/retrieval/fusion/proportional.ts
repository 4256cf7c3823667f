import { COLLECTIONS, type Collection, type SearchHit } from '../../types.ts';
import type { FusedHit, FusionResult } from './index.ts';

export interface ProportionalOptions {
  /** A collection whose fit is below this gets no slots. */
  minFit: number;
  /** m: how many of a collection's best candidates measure its fit. */
  top: number;
  /** Weight of the BM25 fit against the dense fit, in [0, 1]; 0.5 is their mean. */
  bm25Weight: number;
}

/**
 * `minFit` 0.15: a collection whose best candidates sit in the bottom 15% of the query's range
 * matches no better than the tails of the other lists. It is also below (1 − bm25Weight) / m = 1/6,
 * the least fit the collection holding the query's best dense hit can have (its top-m mean is at
 * least (max + (m − 1)·min) / m), so whenever there are hits and the weights are above 0, some
 * collection gets slots.
 */
export const PROPORTIONAL_DEFAULTS: ProportionalOptions = { minFit: 0.15, top: 3, bm25Weight: 0.5 };

/** Fit of one collection and its parts; a part is null when no candidate of any collection has it. */
export interface CollectionFit {
  dense: number | null;
  bm25: number | null;
  fit: number;
}

/**
 * Proportional slots (DESIGN lesson 2): each collection gets slots in proportion to how well it fits
 * the query, measured against THIS query's score range, and a collection with nothing relevant
 * gets none.
 *
 *     top_c(x)  = mean of the m largest values of x among collection c's candidates (nulls skipped)
 *     dense_c   = (top_c(dense) − min_dense) / (max_dense − min_dense)     over every candidate of every collection
 *     bm25_c    = top_c(bm25) / max_bm25                                   over every candidate of every collection
 *     fit_c     = (1 − β)·dense_c + β·bm25_c          β = bm25Weight; one part alone when the other is absent
                 (dense_c = 1 when max = min, fit_c = 1 when neither part exists: no evidence against c)
 *     share_c   = fit_c · w_c  if fit_c ≥ minFit and w_c > 0, else 0
 *     slots_c   = largest remainder of min(k, Σ hits of the collections with a share) · share_c / Σ share,
 *                 each collection capped at its number of hits
 *     fused(h)  = score(h) · share_c                   score: the hybrid score within the collection
 *
 * Why this fit: e5 similarities crowd into ~0.78–0.88, so a raw ratio (0.80 / 0.88 = 0.91) calls an
 * irrelevant collection nearly as good as the best; rescaling by the query's own min and max spreads
 * that band over [0, 1]. The m-best mean (not the single best) keeps one lucky chunk from carrying a
 * collection. BM25 has a true zero (no query term matched), so it is divided by the query's max and
 * not min-max rescaled. BM25 statistics (IDF, average length) are per collection in our store, so a
 * term rare in one collection scores higher there: the BM25 part is an approximate, secondary
 * signal, hence a mean with the dense part (which compares across collections: one model, one
 * space) and not a max, which would let incidental term matches override the dense evidence.
 *
 * `fit` in the result is fit_c, before the router weight; weights only divide slots among the
 * collections that pass `minFit`, so a router prior alone can neither erase a collection that fits
 * nor rescue one that does not (direct lookups are the router's way to force a chunk in).
 *
 * Largest remainder: Hamilton's method (Balinski & Young, "Fair Representation", 1982): floors
 * first, then one more slot to the largest fractional parts (ties: larger share, then
 * `COLLECTIONS` order). Lists must be sorted by `score`, as hybrid search returns them.
 */
export function proportionalSlots(
  lists: Partial<Record<Collection, SearchHit[]>>,
  weights: Record<Collection, number>,
  k: number,
  options: Partial<ProportionalOptions> & FitLists = {},
): FusionResult {
  // An option given as undefined (an unset config value) keeps its default rather than erasing it.
  const opts = { ...PROPORTIONAL_DEFAULTS, ...definedOnly(options) };
  checkInputs(weights, k, opts);
  const fits = collectionFits(options.fitOn ?? lists, opts);
  const share = zeros();
  const caps = zeros();
  for (const c of COLLECTIONS) {
    const n = (lists[c] ?? []).length;
    if (n > 0 && fits[c].fit >= opts.minFit && weights[c] > 0) {
      share[c] = fits[c].fit * weights[c];
      caps[c] = n;
    }
  }
  const total = Math.min(k, COLLECTIONS.reduce((sum, c) => sum + caps[c], 0));
  const slots = largestRemainder(share, caps, total);

  const ranked: FusedHit[] = COLLECTIONS.flatMap((collection) =>
    (lists[collection] ?? [])
      .slice(0, slots[collection])
      .map((hit, i) => ({ ...hit, collection, fused: hit.score * share[collection], slot: i + 1 })),
  ).sort((a, b) => b.fused - a.fused || a.slot - b.slot || COLLECTIONS.indexOf(a.collection) - COLLECTIONS.indexOf(b.collection));
  const fit = Object.fromEntries(COLLECTIONS.map((c) => [c, fits[c].fit])) as Record<Collection, number>;
  return { ranked, slots, fit, method: 'proportional' };
}

/**
 * Longer lists of the same searches to measure fit on: a ranking read off fusions at k = 1, 2, …
 * (pipeline/answer/ranking.ts) would otherwise judge each collection by its first hit or two, and a
 * min–max range over three hits puts whichever collection has the lowest of them at fit 0.
 */
export interface FitLists {
  fitOn?: Partial<Record<Collection, SearchHit[]>>;
}

/** fit_c and its parts, as defined on `proportionalSlots`. */
export function collectionFits(
  lists: Partial<Record<Collection, SearchHit[]>>,
  options: Pick<ProportionalOptions, 'top' | 'bm25Weight'> = PROPORTIONAL_DEFAULTS,
): Record<Collection, CollectionFit> {
  const all = COLLECTIONS.flatMap((c) => lists[c] ?? []);
  const dense = all.flatMap((h) => (h.dense === null ? [] : [h.dense]));
  const bm25 = all.flatMap((h) => (h.bm25 === null ? [] : [Math.max(0, h.bm25)]));
  const lo = Math.min(...dense);
  const hi = Math.max(...dense);
  const bMax = Math.max(0, ...bm25);
  const denseOn = dense.length > 0;
  const bm25On = bMax > 0; // all-zero BM25 ranks nothing

  return Object.fromEntries(
    COLLECTIONS.map((c): [Collection, CollectionFit] => {
      const hits = lists[c] ?? [];
      if (hits.length === 0) return [c, { dense: denseOn ? 0 : null, bm25: bm25On ? 0 : null, fit: 0 }];
      const d = denseOn ? topMean(hits.map((h) => h.dense), options.top) : null;
      const b = bm25On ? topMean(hits.map((h) => (h.bm25 === null ? null : Math.max(0, h.bm25))), options.top) : null;
      // Equal similarities everywhere: nothing to tell collections apart, so all fit fully (as minMax does).
      const dFit = d === null ? null : d === undefined ? 0 : hi > lo ? (d - lo) / (hi - lo) : 1;
      const bFit = b === null ? null : b === undefined ? 0 : b / bMax;
      const fit =
        dFit !== null && bFit !== null
          ? (1 - options.bm25Weight) * dFit + options.bm25Weight * bFit
          : (dFit ?? bFit ?? 1); // neither part anywhere: no evidence against any collection with hits
      return [c, { dense: dFit, bm25: bFit, fit }];
    }),
  ) as Record<Collection, CollectionFit>;
}

/** Mean of the m largest non-null values; undefined when there are none. */
function topMean(values: (number | null)[], m: number): number | undefined {
  const best = values.filter((v): v is number => v !== null).sort((a, b) => b - a).slice(0, m);
  return best.length === 0 ? undefined : best.reduce((s, v) => s + v, 0) / best.length;
}

/**
 * Hamilton's largest-remainder apportionment of `total` slots by `share`, with `caps[c]` the most
 * slots c can take (its hits). Collections with cap 0 take nothing. A collection whose quota exceeds
 * its cap is fixed at the cap and the rest is re-apportioned among the others; if the remaining
 * shares are all 0, the rest is split equally. Requires total ≤ Σ caps.
 */
export function largestRemainder(
  share: Record<Collection, number>,
  caps: Record<Collection, number>,
  total: number,
): Record<Collection, number> {
  const capacity = COLLECTIONS.reduce((sum, c) => sum + caps[c], 0);
  if (total > capacity) throw new Error(`largestRemainder: ${total} slots but only ${capacity} hits to fill them`);
  const slots = zeros();
  let open = COLLECTIONS.filter((c) => caps[c] > 0);
  let left = total;
  const quotas = (): Record<Collection, number> => {
    const sum = open.reduce((s, c) => s + share[c], 0);
    const q = zeros();
    for (const c of open) q[c] = sum > 0 ? (left * share[c]) / sum : left / open.length;
    return q;
  };
  let quota = quotas();
  for (let full = open.filter((c) => quota[c] >= caps[c]); full.length > 0; full = open.filter((c) => quota[c] >= caps[c])) {
    for (const c of full) {
      slots[c] = caps[c];
      left -= caps[c];
    }
    open = open.filter((c) => !full.includes(c));
    quota = quotas();
  }
  // 1e-9 absorbs float error so a quota of 2.9999999999 counts as 3.
  for (const c of open) {
    slots[c] = Math.min(caps[c], Math.floor(quota[c] + 1e-9));
    left -= slots[c];
  }
  const byRemainder = [...open].sort(
    (a, b) => quota[b] - slots[b] - (quota[a] - slots[a]) || share[b] - share[a] || COLLECTIONS.indexOf(a) - COLLECTIONS.indexOf(b),
  );
  while (left > 0) {
    const next = byRemainder.find((c) => slots[c] < caps[c]);
    if (!next) break; // unreachable while total ≤ Σ caps
    slots[next]++;
    left--;
    byRemainder.splice(byRemainder.indexOf(next), 1);
  }
  return slots;
}

function definedOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as Partial<T>;
}

const zeros = (): Record<Collection, number> => Object.fromEntries(COLLECTIONS.map((c) => [c, 0])) as Record<Collection, number>;

function checkInputs(weights: Record<Collection, number>, k: number, o: ProportionalOptions): void {
  const bad = (what: string, value: unknown, allowed: string): never => {
    throw new Error(`proportionalSlots: ${what} must be ${allowed}, got ${String(value)}`);
  };
  if (!Number.isInteger(k) || k < 0) bad('k', k, 'a whole number ≥ 0');
  if (!(o.minFit >= 0 && o.minFit <= 1)) bad('minFit', o.minFit, 'in [0, 1]');
  if (!(Number.isInteger(o.top) && o.top >= 1)) bad('top', o.top, 'a whole number ≥ 1');
  if (!(o.bm25Weight >= 0 && o.bm25Weight <= 1)) bad('bm25Weight', o.bm25Weight, 'in [0, 1]');
  for (const c of COLLECTIONS) {
    if (!(Number.isFinite(weights[c]) && weights[c] >= 0)) bad(`the weight of ${c}`, weights[c], 'a finite number ≥ 0');
  }
}
