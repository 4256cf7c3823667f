import { COLLECTIONS, type Collection, type StoredChunk } from '../types.ts';
import { foldAccents } from '../text/analysis.ts';
import { expandIdentifiers, ftsTerms } from '../text/codeTokens.ts';

/**
 * What every Store backend does alike, written once: which chunks and query vectors it accepts, the
 * searchable copies of a chunk's text, the names it is found by, accent folding and the terms of a query. The
 * backends differ only in how they store and search these (SQLite FTS5 + vec0, Elasticsearch).
 * `where` names the store in messages (`SqliteStore <file>`, `ElasticsearchStore <instance>`).
 */

/** Throws unless `collection` is one cita indexes (an unknown one is a caller's bug, not an empty result). */
export function checkCollection(collection: Collection, where: string): void {
  if (!COLLECTIONS.includes(collection)) throw new Error(`${where}: unknown collection ${JSON.stringify(collection)}; allowed: ${COLLECTIONS.join(', ')}`);
}

/**
 * Whether a vector has a direction cosine similarity can score: not all zeros, every value finite.
 * Elasticsearch refuses the others outright; SQLite would store them and score them NaN.
 */
function hasDirection(v: Float32Array): boolean {
  let norm = 0;
  for (const x of v) norm += x * x;
  return norm > 0 && Number.isFinite(norm);
}

/** A chunk a store may write: a known collection, a Float32Array of the index's dimensions with a direction. */
export function checkChunk(chunk: StoredChunk, dims: number, where: string): void {
  if (!COLLECTIONS.includes(chunk.collection)) {
    throw new Error(`${where}: chunk ${chunk.id} has collection ${JSON.stringify(chunk.collection)}; allowed: ${COLLECTIONS.join(', ')}`);
  }
  const v = chunk.vector as unknown;
  if (!(v instanceof Float32Array) || v.length !== dims) {
    const got = v instanceof Float32Array ? `${v.length} dimensions` : `a ${Object.prototype.toString.call(v)}`;
    throw new Error(
      `${where}: chunk ${chunk.id} (${chunk.citation.path}) has a vector of ${got}; this index holds Float32Array vectors of ${dims} dimensions`,
    );
  }
  if (!hasDirection(v)) {
    throw new Error(`${where}: chunk ${chunk.id} (${chunk.citation.path}) has a zero or non-finite vector, which cosine similarity cannot score`);
  }
}

/** A query vector a store can search with (same rules as a stored one). */
export function checkQueryVector(vector: Float32Array, dims: number, where: string): void {
  if (vector.length !== dims) throw new Error(`${where}: query vector has ${vector.length} dimensions, the index ${dims}`);
  if (!hasDirection(vector)) throw new Error(`${where}: the query vector is zero or non-finite, which cosine similarity cannot score`);
}

/** Whether a search for `k` hits returns any: k of at least 1 (NaN, 0 and negatives ask for none). */
export function wantsHits(k: number): boolean {
  return k >= 1;
}

/** The last part of a qualified name: `Class.method` → `method`. */
export function leafOf(name: string): string {
  return name.slice(name.lastIndexOf('.') + 1);
}

/** The names a chunk is found by with `lookupSymbol`: its `symbols`, then its citation's symbol (even when the chunker left `symbols` empty), each once. */
export function symbolNames(chunk: StoredChunk): string[] {
  const names = new Set(chunk.symbols ?? []);
  if (chunk.citation.symbol) names.add(chunk.citation.symbol);
  return [...names];
}

/**
 * The searchable copies of a chunk's title and text: NFC (a decomposed accent, e + U+0301, folds like
 * a precomposed one) plus the identifier parts from `expandIdentifiers`. A pure function of the two:
 * SQLite removes a row by giving these very values again.
 */
export function searchFields(title: string, text: string): { title: string; text: string; identifiers: string } {
  const t = title.normalize('NFC');
  const x = text.normalize('NFC');
  return { title: t, text: x, identifiers: expandIdentifiers(`${t}\n${x}`) };
}

/** Accents off (`configuración` → `configuracion`), as SQLite's FTS5 `remove_diacritics 2` does: the one folding of pipeline/text/analysis.ts. */
export const fold = foldAccents;

/**
 * The terms of free user text that bm25 searches for, each once, in order: every word and identifier,
 * whole and in parts, lower-cased (see `ftsTerms`). SQLite quotes them into an FTS5 MATCH (`ftsQuery`);
 * Elasticsearch folds them and matches them against its folded fields.
 */
export function queryTerms(query: string): string[] {
  return ftsTerms(query);
}

/**
 * Phrases as the stores search them: lower-case words (letters and digits) joined by one space, at
 * least two words (one word is a term, not a phrase), each phrase once.
 */
export function phraseTerms(phrases: readonly string[] = []): string[] {
  const words = phrases.map((p) => p.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
  return [...new Set(words.filter((w) => w.length >= 2).map((w) => w.join(' ')))];
}

/**
 * Whether a query of these terms is pruned by `selectTerms` (then, and only then, a store looks up
 * their document frequencies): more terms than `maxTerms`.
 */
export function prunesTerms(terms: readonly string[], maxTerms: number | undefined): boolean {
  return maxTerms !== undefined && terms.length > maxTerms;
}

/**
 * The terms a long query is searched with (#14 item 4): at most `maxTerms`, the most selective ones.
 * A bm25 score is a sum over terms, and a term found in most chunks adds little to any of them while
 * every chunk it matches must be scored: FTS5's `bm25()` scores each row matching any term, at a cost
 * per row that grows with the number of terms, so a pasted issue of 200 terms scored most of a large
 * collection. Short queries (`prunesTerms` false) are returned as they are. Otherwise terms found
 * nowhere (`docFreq` 0 or absent) are dropped (they add nothing to any score), then the `maxTerms` of
 * lowest document frequency (highest IDF) in the collection searched are kept, in the query's order;
 * equal frequencies go by position. Both stores call this with their own collection's frequencies.
 */
export function selectTerms(terms: string[], maxTerms: number | undefined, docFreq: ReadonlyMap<string, number>): string[] {
  if (!prunesTerms(terms, maxTerms)) return terms;
  const found = terms.flatMap((term, i) => {
    const n = docFreq.get(term) ?? 0;
    return n > 0 ? [{ i, n }] : [];
  });
  found.sort((a, b) => a.n - b.n || a.i - b.i);
  const kept = new Set(found.slice(0, maxTerms).map((t) => t.i));
  return terms.filter((_, i) => kept.has(i));
}

/**
 * Which of a query's terms are common (#14 item 4): Lucene's common-terms query, in both stores
 * alike. A term found in more than `cutoff` rows (below 1: that share of the collection's `rows`,
 * as Lucene's `cutoff_frequency`) matches so many rows that scoring each of them is most of a
 * search's cost at scale, while it adds little to any score; so only the rows holding a rarer term
 * are scored, each with every term (common ones included), and a row holding only common terms is
 * left out, which is the approximation. `true` marks a common term; undefined when the query is
 * searched whole: no cutoff, or every term rare, or every term common (then nothing would be left
 * to choose the rows by).
 */
export function commonTerms(terms: readonly string[], cutoff: number | undefined, docFreq: ReadonlyMap<string, number>, rows: number): boolean[] | undefined {
  if (cutoff === undefined || terms.length < 2) return undefined;
  const most = cutoff < 1 ? cutoff * rows : cutoff;
  const common = terms.map((t) => (docFreq.get(t) ?? 0) > most);
  const n = common.filter(Boolean).length;
  return n === 0 || n === terms.length ? undefined : common;
}
