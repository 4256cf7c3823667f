import type { Chunk, Collection, ScoredChunk, StoredChunk } from '../types.ts';

/** What one indexing run changes, applied atomically: readers see the old index or the new one, never a mix. */
export interface ChangeSet {
  upsert: StoredChunk[];
  /** Chunk ids to remove. */
  delete: string[];
  /** Free-form metadata recorded with the change (model id, time, counts), readable with `meta()`. */
  meta?: Record<string, string>;
}

/**
 * One index per instance; every method takes the collection it works on.
 * Implementations live beside this file (sqlite.ts, later elasticsearch.ts); retrieval imports only this.
 */
export interface Store {
  readonly kind: string;
  /** Applies a whole change set in one transaction. */
  apply(changes: ChangeSet): Promise<void>;
  upsert(chunks: StoredChunk[]): Promise<void>;
  delete(ids: string[]): Promise<void>;
  /** Full-text search with code-aware tokens; higher score is better. */
  bm25(collection: Collection, query: string, k: number): Promise<ScoredChunk[]>;
  /** Nearest neighbours by cosine similarity (score = similarity, higher is better). */
  knn(collection: Collection, vector: Float32Array, k: number): Promise<ScoredChunk[]>;
  get(ids: string[]): Promise<Chunk[]>;
  /** Every chunk id of a collection (or of all), for incremental planning. */
  ids(collection?: Collection): Promise<string[]>;
  count(collection?: Collection): Promise<number>;
  lookupIssue(n: number): Promise<Chunk[]>;
  lookupSymbol(name: string): Promise<Chunk[]>;
  meta(): Promise<Record<string, string>>;
  close(): Promise<void>;
}
