import type { CitaConfig } from '../config/schema.ts';
import type { Collection, Embedder, SearchHit } from '../types.ts';
import { rerankHead } from './rerank.ts';

/**
 * Late interaction (ColBERT's MaxSim, Khattab & Zaharia 2020) over the multilingual model's token vectors, as a
 * re-ranker of a collection's first hybrid candidates: each token of the question finds its closest token in the
 * chunk, and the chunk scores the mean of those. A chunk's pooled vector averages a few hundred tokens, and a
 * question's words may each match one of them — across languages too, where BM25 has only the translation's words
 * (`retrieval.lateInteraction`; the A/B in docs/languages.md).
 */

/** The mean over the query's token rows of each one's best dot product with the passage's rows (rows L2-normalised: cosines). */
export function maxSim(query: Float32Array, passage: Float32Array, dims: number): number {
  const q = query.length / dims;
  const p = passage.length / dims;
  if (q === 0 || p === 0) return 0;
  let total = 0;
  for (let i = 0; i < q; i++) {
    let best = -Infinity;
    for (let j = 0; j < p; j++) {
      let dot = 0;
      for (let k = 0; k < dims; k++) dot += query[i * dims + k]! * passage[j * dims + k]!;
      if (dot > best) best = dot;
    }
    total += best;
  }
  return total / q;
}

/** A passage's late-interaction score against several queries (the question as asked, its rendering): the mean of their MaxSims. */
export function meanMaxSim(queries: readonly Float32Array[], passage: Float32Array, dims: number): number {
  return queries.length === 0 ? 0 : queries.reduce((sum, q) => sum + maxSim(q, passage, dims), 0) / queries.length;
}

/**
 * Each of the first `depth` hits' late-interaction score against the queries (the mean over them), through the
 * embedder's token vectors; or undefined when the embedder has none.
 */
export async function lateInteractionScores(embedder: Embedder, hits: readonly SearchHit[], queries: readonly string[], depth: number): Promise<number[] | undefined> {
  if (!embedder.tokenVectors || queries.length === 0) return undefined;
  const head = hits.slice(0, depth);
  const [asked, passages] = await Promise.all([
    embedder.tokenVectors([...queries], 'query'),
    embedder.tokenVectors(
      head.map((h) => h.chunk.text),
      'passage',
    ),
  ]);
  return passages.map((p) => meanMaxSim(asked, p, embedder.dims));
}

type LateInteractionConfig = CitaConfig['retrieval']['lateInteraction'];

/**
 * A collection's hits with their first `depth` re-ranked by late interaction against `queries` (the texts the dense
 * side embeds: the question as asked and, for a question in another language, the language model's rendering), or
 * undefined when the collection is not one of `options.collections` or the embedder gives no token vectors.
 */
export async function lateInteracted(embedder: Embedder, collection: Collection, hits: readonly SearchHit[], queries: readonly string[], options: LateInteractionConfig): Promise<SearchHit[] | undefined> {
  if (!options.collections.includes(collection)) return undefined;
  const sims = await lateInteractionScores(embedder, hits, queries, options.depth);
  return sims && rerankHead(hits, sims, options.weight);
}

/** What the route (and `cita search`) says of a re-ranking. */
export function lateInteractionNote(depth: number, collections: readonly string[]): string {
  return `late interaction: the first ${depth} ${collections.join(' and ')} candidates re-ranked by each question word's closest word in them`;
}
