/**
 * chrF (Popović 2015), as sacreBLEU computes it by default (chrF2: character n-grams of orders 1–6, whitespace
 * removed, β = 2, no word n-grams, case kept): for each order, the hypothesis's and the reference's n-gram counts and
 * their clipped matches; precision and recall averaged over the orders both sides have n-grams of; then
 * F_β = (1 + β²)·P·R / (β²·P + R), × 100. A corpus score sums each order's counts over the segments first.
 * Machine translation's usual character-level score: it credits a right stem with a wrong ending, which
 * matters for Spanish. Pure.
 */

const ORDER = 6;
const BETA = 2;

/** Per order: [hypothesis n-grams, reference n-grams, matches]. */
export type ChrfStats = number[];

/** What Python's str.split() splits on (JavaScript's \s also takes a byte-order mark, which XQuAD's Spanish file opens with). */
const WHITESPACE = /[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/;

function ngrams(text: string, n: number): Map<string, number> {
  // Code points, not UTF-16 units, as Python's str does; whitespace removed.
  const chars = Array.from(text.split(WHITESPACE).join(''));
  const counts = new Map<string, number>();
  for (let i = 0; i + n <= chars.length; i++) {
    const g = chars.slice(i, i + n).join('');
    counts.set(g, (counts.get(g) ?? 0) + 1);
  }
  return counts;
}

/** One segment's counts, orders 1..6 flattened. */
export function chrfStats(hypothesis: string, reference: string): ChrfStats {
  const stats: number[] = [];
  for (let n = 1; n <= ORDER; n++) {
    const h = ngrams(hypothesis, n);
    const r = ngrams(reference, n);
    let match = 0;
    for (const [g, c] of h) match += Math.min(c, r.get(g) ?? 0);
    const total = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
    stats.push(total(h), total(r), match);
  }
  return stats;
}

/** The score of summed counts. */
export function chrfScore(stats: ChrfStats): number {
  let prec = 0;
  let rec = 0;
  let orders = 0;
  for (let i = 0; i < ORDER; i++) {
    const [hyp, ref, match] = [stats[3 * i]!, stats[3 * i + 1]!, stats[3 * i + 2]!];
    if (hyp > 0 && ref > 0) {
      prec += match / hyp;
      rec += match / ref;
      orders++;
    }
  }
  if (orders === 0) return 0;
  prec /= orders;
  rec /= orders;
  const f = BETA ** 2;
  return prec + rec > 0 ? (100 * (1 + f) * prec * rec) / (f * prec + rec) : 0;
}

/** A segment's chrF. */
export function chrf(hypothesis: string, reference: string): number {
  return chrfScore(chrfStats(hypothesis, reference));
}

/** A corpus's chrF: each order's counts summed over the segments, then scored. */
export function corpusChrf(pairs: readonly { hypothesis: string; reference: string }[]): number {
  const sum = new Array<number>(3 * ORDER).fill(0);
  for (const p of pairs) chrfStats(p.hypothesis, p.reference).forEach((v, i) => (sum[i]! += v));
  return chrfScore(sum);
}
