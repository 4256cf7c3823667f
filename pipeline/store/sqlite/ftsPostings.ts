import { rankedByIds, type FtsPhraseReads, type RowScore } from './ftsCommonTerms.ts';

/**
 * The SQLite store's exact BM25 at scale (#14 item 4). FTS5's `bm25()` over the OR of a question's
 * terms scores every row any term matches, with every term, on every search: at 200,000 chunks a
 * common word makes that most of the collection, hundreds of milliseconds a question. Yet a score
 * is a sum of one term per phrase, and a phrase's term of a row (its IDF, the row's frequency and
 * length, the average length) changes only when the collection does. So each phrase's rows and
 * terms are read from FTS5 once (`FtsPhraseReads.rowsOf`: the phrase alone, scored by FTS5 itself),
 * kept in memory until the next write, and a search adds them up in an array: the common words,
 * which every question shares, cost an addition per row instead of an FTS5 scoring pass.
 *
 * The scores are FTS5's to the bit (see ftsCommonTerms.ts): each row's terms are added in the
 * query's phrase order, starting from 0.0, as FTS5's `bm25()` sums them. The ranking is the store's:
 * score descending, chunk id ascending, every row tied at the k-th ranked by id.
 *
 * The same kept rows answer `Store.matchCounts` (the AND of a few words: an intersection).
 *
 * Memory: 12 bytes a posting (slot and term), bounded by `budgetBytes`; the phrases used longest ago
 * go first. A phrase larger than the budget is read and used, not kept.
 */
export class FtsPostings {
  private generation = -1;
  /** The collection's FTS rowids, ascending: a row's slot in the sum is its index here. */
  private rowids = new Float64Array(0);
  private readonly kept = new Map<string, Postings>();
  private bytes = 0;
  private hits = 0;
  private misses = 0;

  /**
   * `reads`: the table's phrase reads; `rowidsOf`: every rowid of the table, ascending (read once per
   * generation); `budgetBytes`: what the kept postings may take.
   */
  constructor(
    private readonly reads: FtsPhraseReads,
    private readonly rowidsOf: () => number[],
    private readonly budgetBytes: number,
  ) {}

  /**
   * The k best rows for `phrases` (terms as `ftsMatch` quotes them, in query order) by (score
   * descending, id ascending). `generation`: the store's, read in the same transaction as every read
   * here; a new one drops what was kept. Call inside a read transaction.
   */
  top(phrases: readonly string[], k: number, generation: number, idsOf: (rowids: number[]) => Map<number, string>): RowScore[] {
    if (generation !== this.generation) this.reset(generation);
    const sum = new Float64Array(this.rowids.length);
    for (const phrase of phrases) {
      const { slots, terms } = this.postings(phrase);
      for (let i = 0; i < slots.length; i++) sum[slots[i]!]! += terms[i]!;
    }
    const kth = kthLargestPositive(sum, k);
    const top: { rowid: number; score: number }[] = [];
    // A row matching a phrase scores above 0 (FTS5's IDF is at least 1e-6 and every column weight positive).
    for (let slot = 0; slot < sum.length; slot++) if (sum[slot]! > 0 && sum[slot]! >= kth) top.push({ rowid: this.rowids[slot]!, score: sum[slot]! });
    return rankedByIds(top, k, idsOf);
  }

  /**
   * For each set of phrases, the rows holding every one of them (FTS5's count of their AND): the
   * intersection of their kept rows. `generation`, the transaction: as `top`.
   */
  counts(phraseSets: readonly (readonly string[])[], generation: number): number[] {
    if (generation !== this.generation) this.reset(generation);
    return phraseSets.map((phrases) => {
      if (phrases.length === 0) return 0;
      // Smallest first: the intersection can only shrink.
      const lists = phrases.map((p) => this.postings(p).slots).sort((a, b) => a.length - b.length);
      let common = lists[0]!;
      for (const next of lists.slice(1)) common = intersect(common, next);
      return common.length;
    });
  }

  /** Phrases kept, postings kept, and lookups served from memory or read since the store opened. */
  stats(): { phrases: number; postings: number; bytes: number; hits: number; misses: number } {
    return { phrases: this.kept.size, postings: this.bytes / POSTING_BYTES, bytes: this.bytes, hits: this.hits, misses: this.misses };
  }

  private reset(generation: number): void {
    this.generation = generation;
    this.kept.clear();
    this.bytes = 0;
    this.rowids = Float64Array.from(this.rowidsOf());
  }

  private postings(phrase: string): Postings {
    const kept = this.kept.get(phrase);
    if (kept) {
      this.hits++;
      // Most recently used last: a Map iterates in insertion order, so eviction takes the first.
      this.kept.delete(phrase);
      this.kept.set(phrase, kept);
      return kept;
    }
    this.misses++;
    const rows = this.reads.rowsOf(phrase);
    const slots = new Int32Array(rows.length);
    const terms = new Float64Array(rows.length);
    for (let i = 0; i < rows.length; i++) {
      slots[i] = slotOf(this.rowids, rows[i]![0]);
      terms[i] = rows[i]![1];
    }
    const postings = { slots, terms };
    const size = rows.length * POSTING_BYTES;
    if (size <= this.budgetBytes) {
      this.kept.set(phrase, postings);
      this.bytes += size;
      for (const [oldest, p] of this.kept) {
        if (this.bytes <= this.budgetBytes) break;
        this.kept.delete(oldest);
        this.bytes -= p.slots.length * POSTING_BYTES;
      }
    }
    return postings;
  }
}

/** One phrase's rows (as slots) and its term of each row's score. */
interface Postings {
  slots: Int32Array;
  terms: Float64Array;
}

const POSTING_BYTES = 12;

/** The values in both ascending lists. */
export function intersect(a: Int32Array, b: Int32Array): Int32Array {
  const out = new Int32Array(Math.min(a.length, b.length));
  let n = 0;
  for (let i = 0, j = 0; i < a.length && j < b.length; ) {
    if (a[i]! < b[j]!) i++;
    else if (a[i]! > b[j]!) j++;
    else {
      out[n++] = a[i]!;
      i++;
      j++;
    }
  }
  return out.subarray(0, n);
}

/** The index of `rowid` in the ascending `rowids`; a rowid FTS5 returned is always there (same snapshot). */
export function slotOf(rowids: Float64Array, rowid: number): number {
  let lo = 0;
  let hi = rowids.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = rowids[mid]!;
    if (v === rowid) return mid;
    if (v < rowid) lo = mid + 1;
    else hi = mid - 1;
  }
  throw new Error(`FTS rowid ${rowid} is not among the table's rows`);
}

/** The k-th largest positive value of `values` (-Infinity when fewer than k are positive), by a min-heap of k. */
export function kthLargestPositive(values: Float64Array, k: number): number {
  if (k <= 0) return Infinity;
  // More places than values: fewer than k can be positive (and a heap of k could not be allocated for k = 2^53).
  if (k > values.length) return -Infinity;
  const heap = new Float64Array(k);
  let size = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (!(v > 0)) continue;
    if (size < k) {
      // Sift up.
      let j = size++;
      heap[j] = v;
      while (j > 0) {
        const parent = (j - 1) >> 1;
        if (heap[parent]! <= heap[j]!) break;
        [heap[parent], heap[j]] = [heap[j]!, heap[parent]!];
        j = parent;
      }
    } else if (v > heap[0]!) {
      // Replace the smallest and sift down.
      heap[0] = v;
      let j = 0;
      for (;;) {
        const l = 2 * j + 1;
        const r = l + 1;
        let m = j;
        if (l < k && heap[l]! < heap[m]!) m = l;
        if (r < k && heap[r]! < heap[m]!) m = r;
        if (m === j) break;
        [heap[m], heap[j]] = [heap[j]!, heap[m]!];
        j = m;
      }
    }
  }
  return size < k ? -Infinity : heap[0]!;
}
