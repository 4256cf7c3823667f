import type { Store } from '../store/store.ts';
import type { Collection, Embedder, SearchHit } from '../types.ts';
import { denseVector, type QueryPlan } from './crossLingual.ts';
import { convexCombination, withFileEvidence, type ScoreScale } from './hybrid.ts';

export interface HybridOptions {
  /** Dense weight in [0, 1]: 0 is BM25 only, 1 is dense only. */
  alpha: number;
  /** Candidates from each retriever before combining. */
  candidates: number;
  /** λ of `withFileEvidence` (hybrid.ts): a file's best hit gains λ × its second-best hit's score; 0 or unset: none. */
  fileEvidence?: number;
  /** How BM25's and k-NN's scores are put on one scale before they are combined (`ScoreScale`; unset: min–max). */
  scale?: ScoreScale;
}

/** Hybrid search within one collection: BM25 and k-NN candidates, combined convexly. */
export async function searchCollection(
  store: Store,
  queryVector: Float32Array | undefined,
  collection: Collection,
  query: string,
  k: number,
  options: HybridOptions,
  phrases?: readonly string[],
): Promise<SearchHit[]> {
  const hits = await hybridCandidates(store, queryVector, collection, query, Math.max(k, options.candidates), options.alpha, phrases, options.scale);
  return withFileEvidence(hits, options.fileEvidence ?? 0).slice(0, k);
}

/**
 * Every candidate of hybrid search, best first: BM25's and k-NN's top `n` each, combined. With the
 * file evidence applied (`withFileEvidence`), its first k are `searchCollection` with `max(k,
 * candidates) = n`; a deeper prefix of the same list is the ranking `ask()` reports beside its
 * context (the normalisation depends on `n`, not on k).
 */
export async function hybridCandidates(
  store: Store,
  queryVector: Float32Array | undefined,
  collection: Collection,
  query: string,
  n: number,
  alpha: number,
  phrases?: readonly string[],
  scale?: ScoreScale,
): Promise<SearchHit[]> {
  const [bm25, dense] = await Promise.all([
    alpha < 1 ? store.bm25(collection, query, n, phrases) : Promise.resolve([]),
    alpha > 0 && queryVector ? store.knn(collection, queryVector, n) : Promise.resolve([]),
  ]);
  return convexCombination(bm25, dense, alpha, scale);
}

/** Embeds the query once (only when the dense side is used). */
export async function embedQuery(embedder: Embedder, query: string, alpha: number): Promise<Float32Array | undefined> {
  if (alpha <= 0) return undefined;
  const [v] = await embedder.embedQueries([query]);
  return v;
}

/**
 * Hybrid search in several collections with one query vector; empty collections are left out.
 * `plan` (a translated question, see crossLingual.ts) gives BM25's text and the texts whose mean
 * vector the dense side uses (the question as asked less `offset`, its language's, where the plan says); without it
 * both use `query`.
 */
export async function searchCollections(
  store: Store,
  embedder: Embedder,
  query: string,
  collections: readonly Collection[],
  k: number,
  options: HybridOptions,
  plan: QueryPlan = { bm25: query, dense: [query] },
  offset?: ArrayLike<number>,
): Promise<Partial<Record<Collection, SearchHit[]>>> {
  let vector: Float32Array | undefined;
  if (options.alpha > 0) {
    const vs = await embedder.embedQueries(plan.dense);
    vector = denseVector(plan, (t) => vs[plan.dense.indexOf(t)]!, offset);
  }
  const results: Partial<Record<Collection, SearchHit[]>> = {};
  for (const c of collections) {
    if ((await store.count(c)) === 0) continue;
    results[c] = await searchCollection(store, vector, c, plan.bm25, k, options, plan.phrases);
  }
  return results;
}
