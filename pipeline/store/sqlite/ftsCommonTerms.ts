import type Database from 'better-sqlite3';

/**
 * Lucene's common-terms query on FTS5 (#14 item 4; which terms are common: `commonTerms` in
 * ../shared.ts). FTS5's `bm25()` over the OR of a question's terms scores every row matching any of
 * them, at a cost per row that grows with the number of terms: at 200,000 chunks a common word
 * makes that most of the collection. Here the rows come from the rare phrases alone, and each is
 * scored with every phrase, common ones read only for those rows.
 *
 * The scores are FTS5's to the bit: a score is a sum of one term per phrase, `IDF × f(k1 + 1) / (f +
 * k1(1 − b + b·D/avgdl))`; FTS5's bm25 of one phrase alone gives that phrase's term (same IDF, row
 * length and average length), and adding the terms in query order, skipping absent phrases (which
 * add 0.0), repeats FTS5's own summation. Only the set of rows scored differs from the exact plan.
 */

/** A row of the top k: its rowid (the chunk's `seq`), its chunk id and its score. */
export interface RowScore {
  rowid: number;
  id: string;
  score: number;
}

/** The phrase-by-phrase reads of one FTS5 table, each scored as FTS5 scores that phrase inside an OR. */
export class FtsPhraseReads {
  private readonly rows: Database.Statement;
  private readonly rowsAmong: Database.Statement;

  /** `weights`: the bm25 column weights, in column order. */
  constructor(db: Database.Database, table: string, weights: readonly number[]) {
    const bm25 = `-bm25(${table}, ${weights.join(', ')})`;
    this.rows = db.prepare(`SELECT rowid, ${bm25} FROM ${table} WHERE ${table} MATCH ?`).raw();
    // `+rowid`: filtered by SQLite as FTS5 reads the phrase's rows, not one FTS5 query per rowid (each would count the phrase again).
    this.rowsAmong = db.prepare(`SELECT rowid, ${bm25} FROM ${table} WHERE ${table} MATCH ? AND +rowid IN (SELECT value FROM json_each(?))`).raw();
  }

  /** Every row holding the phrase (a term as `ftsMatch` quotes it), with the phrase's term of the score. */
  rowsOf(phrase: string): [rowid: number, term: number][] {
    return this.rows.all(quote(phrase)) as [number, number][];
  }

  /** For each phrase, the rows among `rowids` holding it, with its term of their scores (the list is serialised once for all). */
  termsAmong(phrases: readonly string[], rowids: readonly number[]): [rowid: number, term: number][][] {
    const list = JSON.stringify(rowids);
    return phrases.map((phrase) => this.rowsAmong.all(quote(phrase), list) as [number, number][]);
  }
}

/** A phrase as `ftsMatch` quotes a term. */
const quote = (phrase: string) => `"${phrase.replaceAll('"', '""')}"`;

/**
 * The k best rows of the common-terms query for `phrases` (`common[i]`: phrase i is common, at least
 * one is not): the rows holding a rare phrase, scored with every phrase, by (score descending, id
 * ascending). Call inside a read transaction, so every read sees one snapshot.
 */
export function commonTermsTop(reads: FtsPhraseReads, phrases: readonly string[], common: readonly boolean[], k: number, idsOf: (rowids: number[]) => Map<number, string>): RowScore[] {
  const terms = new Map<number, Float64Array>();
  for (const [i, phrase] of phrases.entries()) {
    if (common[i]) continue;
    for (const [rowid, term] of reads.rowsOf(phrase)) {
      let t = terms.get(rowid);
      if (!t) terms.set(rowid, (t = new Float64Array(phrases.length)));
      t[i] = term;
    }
  }
  const candidates = [...terms.keys()];
  if (candidates.length === 0) return [];
  const commonAt = [...phrases.keys()].filter((i) => common[i]);
  const read = reads.termsAmong(commonAt.map((i) => phrases[i]!), candidates);
  for (const [j, i] of commonAt.entries()) for (const [rowid, term] of read[j]!) terms.get(rowid)![i] = term;
  return rankRows(candidates, terms, k, idsOf);
}

/**
 * The k best of `rowids` by (score descending, id ascending), each scored by FTS5's sum: its terms in
 * phrase order (absent phrases add 0, which changes nothing); every row tied at the k-th is ranked by id.
 */
export function rankRows(rowids: number[], terms: Map<number, Float64Array>, k: number, idsOf: (rowids: number[]) => Map<number, string>): RowScore[] {
  const scores = new Map<number, number>();
  for (const rowid of rowids) {
    const t = terms.get(rowid)!;
    let score = 0.0;
    for (let i = 0; i < t.length; i++) if (t[i] !== 0) score += t[i]!;
    scores.set(rowid, score);
  }
  const kth = kthLargest(scores.values(), k);
  return rankedByIds(
    rowids.filter((rowid) => scores.get(rowid)! >= kth).map((rowid) => ({ rowid, score: scores.get(rowid)! })),
    k,
    idsOf,
  );
}

/** The k best of scored rows (all those tied at the k-th among them) by (score descending, chunk id ascending), their ids read once. */
export function rankedByIds(rows: { rowid: number; score: number }[], k: number, idsOf: (rowids: number[]) => Map<number, string>): RowScore[] {
  const ids = idsOf(rows.map((r) => r.rowid));
  const hits = rows.map((r) => ({ ...r, id: ids.get(r.rowid)! }));
  hits.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return hits.slice(0, k);
}

/** The k-th largest value (-Infinity when fewer). */
export function kthLargest(values: Iterable<number>, k: number): number {
  const all = Float64Array.from(values).sort();
  return all.length < k ? -Infinity : all[all.length - k]!;
}
