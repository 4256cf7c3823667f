import type Database from 'better-sqlite3';
import { FtsPhraseReads, kthLargest, rankRows, type RowScore } from '../../pipeline/store/sqlite/ftsCommonTerms.ts';

/**
 * An experiment kept for bench/bm25-plans.ts (#14 item 4), not used by the store: FTS5's bm25 ranking
 * assembled phrase by phrase with MaxScore, exact to the bit (same scores and order as the store's
 * `-bm25()` of the whole OR; the bench checks it on every query) but no faster on long questions,
 * because a phrase's bound, IDF × (k1 + 1), is about twice what it adds to a typical row: with dozens
 * of mid-frequency words the phrases not read can add more than the k-th score, so most are read.
 * Exact for the reason the store's common-terms plan is (pipeline/store/sqlite/ftsCommonTerms.ts,
 * whose phrase reads and summation it uses).
 */

/** FTS5's bm25 k1 (fixed in fts5_aux.c). */
const K1 = 1.2;

/** FTS5's IDF of a phrase held by `hits` of `rows` rows: never 0 or below, so a common word still counts a little. */
export function bm25Idf(rows: number, hits: number, ln: (x: number) => number): number {
  const idf = ln((rows - hits + 0.5) / (hits + 0.5));
  return idf <= 0.0 ? 1e-6 : idf;
}

/** What the search needs from an FTS index of one collection, read in one snapshot. */
export interface Bm25Source {
  /** IDF of each phrase of the query, in query order. */
  idf: readonly number[];
  /** Every row holding phrase i, with the phrase's term of the score. */
  termsOf(phrase: number): Iterable<[rowid: number, term: number]>;
  /** The terms of these phrases for these rows (0 where absent): `terms.get(rowid)[j]` for `phrases[j]`. */
  termsFor(rowids: number[], phrases: number[]): Map<number, Float64Array>;
  /** The chunk id of each row, for ties. */
  ids(rowids: number[]): Map<number, string>;
}

/** A row of the top k: rowid, chunk id, score. */
export type Bm25Hit = RowScore;

/** What a phrase can add at most: its term tends to IDF × (k1 + 1) as its count grows. */
function upperBound(idf: number): number {
  // The margin covers rounding in the sums; it only makes the bound looser.
  return idf * (K1 + 1.0) * (1 + 1e-9);
}

/**
 * The k best rows by (score descending, id ascending), with FTS5's scores: every row whose score
 * reaches the k-th best is scored, so ties at the k-th place are decided by id as before.
 */
export function bm25TopK(source: Bm25Source, k: number): Bm25Hit[] {
  const n = source.idf.length;
  if (n === 0 || k < 1) return [];
  const bound = source.idf.map(upperBound);
  // Rarest (highest bound) first; `rest[j]`: what the phrases after the j first can add together.
  const order = [...bound.keys()].sort((a, b) => bound[b]! - bound[a]! || a - b);
  const rest = new Float64Array(n + 1);
  for (let j = n - 1; j >= 0; j--) rest[j] = rest[j + 1]! + bound[order[j]!]!;

  // Each candidate's terms, by phrase index; `lower` is their sum so far (a lower bound of its score).
  const terms = new Map<number, Float64Array>();
  const lower = new Map<number, number>();
  let read = 0;
  let threshold = -Infinity;
  let highest = -Infinity;
  while (read < n) {
    const phrase = order[read++]!;
    for (const [rowid, term] of source.termsOf(phrase)) {
      let t = terms.get(rowid);
      if (!t) terms.set(rowid, (t = new Float64Array(n)));
      t[phrase] = term;
      const low = (lower.get(rowid) ?? 0) + term;
      lower.set(rowid, low);
      if (low > highest) highest = low;
    }
    // A row holding none of the phrases read scores at most rest[read]: once that is below the k-th
    // partial sum, it cannot reach the top k. (The k-th is at most the highest: skip it till then.)
    if (rest[read]! < highest) {
      threshold = kthLargest(lower.values(), k);
      if (rest[read]! < threshold) break;
    }
  }
  // The phrases not read, for the rows that can still reach the k-th score.
  const unread = order.slice(read);
  const survivors = [...lower].filter(([, low]) => low + rest[read]! >= threshold).map(([rowid]) => rowid);
  if (unread.length > 0 && survivors.length > 0) {
    const more = source.termsFor(survivors, unread);
    for (const rowid of survivors) {
      const t = terms.get(rowid)!;
      const m = more.get(rowid)!;
      for (const [j, phrase] of unread.entries()) t[phrase] = m[j]!;
    }
  }
  return rankRows(survivors, terms, k, source.ids);
}

/** The FTS5 record (in `<table>_data`) that starts with the table's row count. */
const AVERAGES_ROWID = 1;

/** One SQLite varint (the format of FTS5's records): big-endian 7-bit groups, a 9th byte of 8 bits. */
function readVarint(buf: Uint8Array, at: number): number {
  let value = 0;
  for (let i = 0; i < 8; i++) {
    const byte = buf[at + i]!;
    value = value * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) return value;
  }
  return value * 256 + buf[at + 8]!;
}

export interface FtsBm25Options {
  db: Database.Database;
  /** The FTS5 table. */
  table: string;
  /** bm25 column weights, in column order. */
  weights: readonly number[];
  /** The chunk id of each rowid. */
  ids: (rowids: number[]) => Map<number, string>;
  /** Changes whenever the table may have changed (the store's generation), to drop cached counts. */
  generation: () => number;
}

/** Phrase counts kept at most; beyond, the cache starts over. */
const CACHE_LIMIT = 100_000;

export class FtsBm25 {
  private readonly o: FtsBm25Options;
  private readonly averages: Database.Statement;
  private readonly hits: Database.Statement;
  private readonly reads: FtsPhraseReads;
  private cacheGeneration = -1;
  /** Rows holding each quoted phrase, at `cacheGeneration`. */
  private readonly hitCache = new Map<string, number>();

  constructor(o: FtsBm25Options) {
    this.o = o;
    const { table } = o;
    this.averages = o.db.prepare(`SELECT block FROM ${table}_data WHERE id = ${AVERAGES_ROWID}`).pluck();
    this.hits = o.db.prepare(`SELECT count(*) FROM ${table} WHERE ${table} MATCH ?`).pluck();
    this.reads = new FtsPhraseReads(o.db, table, o.weights);
  }

  /** The k best rows for the OR of the phrases (the texts of FTS5 phrases), scored as FTS5's `-bm25()` of that OR. Call inside a read transaction. */
  search(phrases: readonly string[], k: number): Bm25Hit[] {
    const source = this.prepare(phrases);
    return source ? bm25TopK(source, k) : [];
  }

  /** The phrases' IDFs and the reads of their rows; undefined for an empty table. */
  private prepare(phrases: readonly string[]): Bm25Source | undefined {
    const block = this.averages.get() as Buffer | undefined;
    const rows = block && block.length > 0 ? readVarint(block, 0) : 0;
    if (rows === 0) return undefined;
    const generation = this.o.generation();
    if (generation !== this.cacheGeneration || this.hitCache.size > CACHE_LIMIT) {
      this.hitCache.clear();
      this.cacheGeneration = generation;
    }
    const hits = phrases.map((p) => {
      let n = this.hitCache.get(p);
      if (n === undefined) this.hitCache.set(p, (n = this.hits.get(`"${p.replaceAll('"', '""')}"`) as number));
      return n;
    });
    return {
      // Only orders and bounds the phrases: the scores are FTS5's.
      idf: hits.map((n) => bm25Idf(rows, n, Math.log)),
      termsOf: (i) => this.reads.rowsOf(phrases[i]!),
      termsFor: (rowids, which) => {
        const out = new Map(rowids.map((r) => [r, new Float64Array(which.length)]));
        const read = this.reads.termsAmong(which.map((i) => phrases[i]!), rowids);
        for (const [j, rows] of read.entries()) for (const [rowid, term] of rows) out.get(rowid)![j] = term;
        return out;
      },
      ids: this.o.ids,
    };
  }
}
