import type { Chunk, Citation, Collection } from '../types.ts';

/**
 * The answer path's shapes: question → route → retrieve → fuse → Context → Generator → verified Answer.
 * A Context is built once and is exactly what the generator and any judge see (DESIGN lesson 5).
 */

export type Language = 'en' | 'es';

/** Why a block is in the context: its scores from retrieval and fusion. */
export interface BlockScores {
  collection: Collection;
  fused: number;
  bm25: number | null;
  dense: number | null;
  /** How the block got in: ranked by search, or looked up directly (issue #n, a symbol). */
  via: 'search' | 'lookup';
}

export interface ContextBlock {
  /** 1-based; the answer cites the block as `[marker]`. */
  marker: number;
  chunk: Chunk;
  /** The lines the block shows: the chunk's citation, its end moved up when the text was cut. */
  citation: Citation;
  /** The text the generator reads: the chunk text, cut to the per-block character budget at a line end. */
  text: string;
  scores: BlockScores;
  /**
   * Set when `text` is shorter than the chunk's: `lines` cut at a line end; `words` cut inside a line
   * longer than the budget, at a word boundary, the text ending with ` …` (the cut mark is not source text).
   */
  cut?: 'lines' | 'words';
}

export interface ContextBudget {
  /** Most blocks in the context. */
  chunks: number;
  /** Most characters per block. */
  chars: number;
}

/** Immutable (deeply frozen) once built. */
export interface Context {
  readonly question: string;
  readonly language: Language;
  /** The question in the corpus language, when it was asked in another and translated. */
  readonly translation?: string;
  /** The sources' language (`languages.corpus`); English when absent. */
  readonly corpus?: Language;
  readonly budget: ContextBudget;
  readonly blocks: readonly ContextBlock[];
  /** Total characters of block text: what a judge must also receive. */
  readonly chars: number;
}

/** What a generator returns before verification. */
export interface GeneratedAnswer {
  text: string;
  language: Language;
  /** e.g. `extractive`, `openai:gpt-4o-mini`, `local:SmolLM2-135M-Instruct`. */
  generator: string;
  /**
   * Every sentence that carries a marker quotes its block verbatim (whitespace aside), so verification
   * checks each whole sentence against the block; otherwise only quoted and backtick spans are checked.
   */
  verbatim?: boolean;
  /** The generator found no answer in the context and says so: no markers, and nothing counts as unsupported. */
  noAnswer?: boolean;
  /** The sentences it quotes verbatim, as the text shows them, with their markers (the extractive generator). */
  quotes?: { marker: number; text: string }[];
  /**
   * Reading aids for a question asked in another language than the sources: each quote machine-translated
   * into it (`answer.glosses`), set by `ask()` after verification. Never part of `text`, never cited,
   * never verified: the quote above it is what the sources say.
   */
  glosses?: { marker: number; quote: string; text: string }[];
  /** The translator that made `glosses` (`apertium`), or why there are none (`gloss failed: …`). */
  glossedBy?: string;
}

export interface Generator {
  readonly id: string;
  generate(question: string, context: Context): Promise<GeneratedAnswer>;
  /** Frees a loaded model, if any. */
  close?(): Promise<void>;
}

/** A marker of the answer resolved against the context and the indexed tree. */
export interface ResolvedCitation {
  marker: number;
  collection: Collection;
  path: string;
  startLine: number;
  endLine: number;
  headings?: string[];
  symbol?: string;
  issue?: number;
  commentId?: number;
  /** GitHub permalink (file at `repository.ref` with `#Lstart-Lend`) or the issue/comment URL. */
  url?: string;
  snippet: string;
  verified: boolean;
  /** Why not verified, e.g. `path not in the indexed tree`, `lines 40-52 do not hold the quoted text`. */
  problem?: string;
}

export interface VerifiedAnswer extends GeneratedAnswer {
  /** Valid citations, one per distinct marker used, in order of first use. */
  citations: ResolvedCitation[];
  /**
   * Markers that refer to no block, or whose citation failed a check: never shown as citations.
   * `sentence` is set when the block is sound but does not hold the text that sentence quotes; the
   * marker may then still be a citation, for another sentence that quotes it faithfully.
   */
  invalid: { marker: number; problem: string; sentence?: string }[];
  /** Sentences of the answer without a valid citation. */
  unsupported: string[];
}
