import type { Chunk, Collection, ScoredChunk, StoredChunk } from '../types.ts';

/**
 * The index exists but cannot be used as this cita's index: not a database, a damaged file, another
 * schema version or other vector dimensions. Nothing was changed; `cita index <instance> --rebuild`
 * replaces it. `reason` says what is wrong without saying where (no file path), for API clients.
 */
export class IndexDamagedError extends Error {
  constructor(
    message: string,
    readonly reason: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'IndexDamagedError';
  }
}

/** What one indexing run changes, applied atomically: readers see the old index or the new one, never a mix. */
export interface ChangeSet {
  upsert: StoredChunk[];
  /** Chunk ids to remove. */
  delete: string[];
  /** Free-form metadata recorded with the change (model id, time, counts), readable with `meta()`. */
  meta?: Record<string, string>;
  /**
   * Compare-and-swap: apply only if the index is still at this `generation()` (the one its plan was
   * read at); otherwise throw IndexChangedError and write nothing. The check and the commit are one
   * atomic step, so of two runs that planned against the same generation only the first commits.
   */
  ifGeneration?: string;
}

/** A conditional apply found the index moved on since its plan was read: nothing was written. */
export class IndexChangedError extends Error {
  constructor(
    readonly where: string,
    readonly expected: string,
    readonly actual: string,
    instance?: string,
  ) {
    super(
      `${where}: the index changed while this run was planning (generation ${expected} when planned, ${actual} now): ` +
        `another index run committed first. Nothing was written; run \`cita index ${instance ?? '<instance>'}\` again (vectors already embedded are reused)`,
    );
  }
}

/**
 * One index per instance; every method takes the collection it works on.
 * Implementations live in the folders beside this file (sqlite/, elasticsearch/); retrieval imports only this.
 */
export interface Store {
  /**
   * Applies a whole change set atomically: deletes first, then upserts (an id in both ends up
   * present; of two upserts of one id the last wins), then meta is merged key by key. If any part
   * fails (e.g. a vector of the wrong dimension) nothing of the set is visible.
   */
  apply(changes: ChangeSet): Promise<void>;
  /** `apply` with only upserts: an existing id is replaced everywhere (text, vector, symbols, collection). */
  upsert(chunks: StoredChunk[]): Promise<void>;
  /** `apply` with only deletes; unknown ids are ignored. */
  delete(ids: string[]): Promise<void>;
  /**
   * Full-text search with code-aware tokens (`config` finds `loadConfig`, accents ignored); higher
   * score is better. Any text is a valid query; one without searchable words returns no hits.
   * `phrases`: word sequences searched beside the query's terms, each as one more term that a chunk
   * matches only where its words stand together in that order (`phraseTerms`; fewer than two words: ignored).
   */
  bm25(collection: Collection, query: string, k: number, phrases?: readonly string[]): Promise<ScoredChunk[]>;
  /**
   * For each set of words, how many chunks of the collection hold all of them (in any of the fields
   * bm25 searches, tokens as bm25 reads them; a word of several tokens is a phrase). A set without
   * searchable words counts 0. Word co-occurrence statistics, for choosing among a translated word's senses,
   * and how often each collection mentions a name a question asks about (the learned route's `names:documented`).
   */
  matchCounts(collection: Collection, wordSets: string[][]): Promise<number[]>;
  /**
   * For each phrase, how many chunks of the collection hold its words together, in order, in one of
   * the fields bm25 searches (`phraseTerms`; a phrase of fewer than two words counts 0). Which
   * compound of translated words the corpus uses ("exit code", not "start code").
   */
  phraseCounts(collection: Collection, phrases: string[]): Promise<number[]>;
  /**
   * Nearest neighbours by cosine similarity (score = similarity, higher is better), exact.
   *
   * bm25 and knn depend only on the content, never on the order it was written in: an index updated
   * by any sequence of applies returns the same hits with the same scores as a fresh build of the same
   * chunks. Equal scores are ordered by chunk id (`byScoreThenId`), the k-th place included.
   */
  knn(collection: Collection, vector: Float32Array, k: number): Promise<ScoredChunk[]>;
  /** Chunks (without vectors) in the order asked; unknown ids are skipped. */
  get(ids: string[]): Promise<Chunk[]>;
  /** Every chunk id of a collection (or of all), for incremental planning. */
  ids(collection?: Collection): Promise<string[]>;
  count(collection?: Collection): Promise<number>;
  /** Chunks whose `citation.issue` is n: the body, then the comments by comment id, each in order of lines. */
  lookupIssue(n: number): Promise<Chunk[]>;
  /**
   * Chunks defining `name` (from `symbols` or `citation.symbol`), case-sensitive: exact names first,
   * then qualified names ending in `.name` (`method` finds `Class.method`).
   */
  lookupSymbol(name: string): Promise<Chunk[]>;
  meta(): Promise<Record<string, string>>;
  /**
   * An opaque token of the index's state that changes with every apply that changes it (SQLite: a
   * counter kept with the meta; Elasticsearch: the generations behind the aliases). Read it before
   * planning, pass it as `ifGeneration` when committing the plan.
   */
  generation(): Promise<string>;
  /**
   * Whether this open store still reads the instance's live index: `replaced` once a rebuild swapped
   * another one in (open the backend again to read it), `removed` once it is gone. A long-lived
   * reader (the server) asks before each use; Elasticsearch reads through aliases, which follow every
   * swap, so it is always `live` there.
   */
  standing(): Promise<Standing>;
  close(): Promise<void>;
}

export type Standing = 'live' | 'replaced' | 'removed';

/** A fresh index being built beside the live one (`cita index --rebuild`): readers keep the old one until `commit`. */
export interface RebuildTarget {
  /** Empty at first; reads and writes go to the new index only. */
  store: Store;
  /** Replaces the live index with the new one atomically, then closes the store. */
  commit(): Promise<void>;
  /** Drops the new index (the live one was never touched) and closes the store. */
  discard(): Promise<void>;
}

/**
 * An instance's index where it lives (a file, a cluster) and its lifecycle, before and beside an open
 * `Store`. Each backend folder has one (sqlite/backend.ts, elasticsearch/backend.ts); `storeBackend`
 * (backend.ts) picks it from the config, and no caller outside pipeline/store/ knows which it has.
 */
export interface StoreBackend {
  /** Whether an index exists, creating nothing. */
  exists(): Promise<boolean>;
  /**
   * The index's metadata (model, dims, time) without opening it for writing or creating anything;
   * `{}` when there is none. Keys in `omit` are not read (the indexer's large per-file record).
   */
  meta(omit?: string[]): Promise<Record<string, string>>;
  /** Opens the index for reading and writing, creating an empty one with vectors of `dims` the first time. */
  open(dims: number): Promise<Store>;
  /** Starts a fresh generation beside the live index; see RebuildTarget. */
  rebuild(dims: number): Promise<RebuildTarget>;
}
