/**
 * Where to cut a run too long for one chunk and without a space to cut at (a data URI, a minified
 * line): its longest prefix that fits the token budget. Token counts do not add up across a cut, so
 * a prefix is measured only by counting it whole. A binary search over the whole remainder counts
 * O(n) characters at every probe, O(n²) over the run (87 s for a 100k-character line). Here
 * every probe stays within twice the longest prefix known to fit, and probes go where the
 * tokens-per-unit rate of the counts so far puts the budget, so a cut costs a few counts of about
 * one chunk each: O(n) tokenizer work over the run.
 */

export interface PrefixFit {
  /** Units in the prefix (characters, or code points: whatever `count` measures). */
  length: number;
  /** `count(length)`. */
  tokens: number;
}

/**
 * The longest prefix, of 1 to `size` units, whose count is at most `limit`: a length n that fits
 * with n + 1 over the limit (or n = size); undefined if not even one unit fits. `count(n)` counts
 * the first n units with whatever the caller adds around them (a header); `base` is `count(0)`;
 * `guess` is a length to try first (from the rate of an earlier count). When counts grow with the
 * length, as they do but for rare merges, the answer is the one a binary search over [1, size]
 * finds; in any case it fits, as it was counted.
 */
export function longestFittingPrefix(
  size: number,
  count: (length: number) => number,
  limit: number,
  base: number,
  guess: number,
): PrefixFit | undefined {
  if (size < 1) return undefined;
  // Longest length known to fit (0: the empty prefix), shortest known not to (size + 1: none yet).
  let lo = 0;
  let loTokens = base;
  let hi = size + 1;
  let hiTokens = Infinity;
  let next = Math.min(size, Math.max(1, Math.round(Number.isFinite(guess) ? guess : 1)));
  let bisect = false;
  while (hi - lo > 1) {
    const width = hi - lo;
    const tokens = count(next);
    if (tokens <= limit) {
      lo = next;
      loTokens = tokens;
    } else {
      hi = next;
      hiTokens = tokens;
    }
    if (hi - lo <= 1) break;
    if (hi > size) {
      // Nothing known to be too long yet: aim by the average rate, but at most double what fits.
      const rate = (loTokens - base) / lo;
      const aim = rate > 0 ? lo + Math.floor((limit - loTokens) / rate) : Infinity;
      next = Math.min(size, 2 * lo, Math.max(lo + 1, aim));
    } else if (bisect) {
      next = lo + Math.floor((hi - lo) / 2);
    } else {
      // The rate between the two bounds is positive (hiTokens > limit >= loTokens); aim for the last
      // length it keeps within the budget (lo + 1 when lo is at the budget, to confirm the cut).
      const rate = (hiTokens - loTokens) / (hi - lo);
      next = Math.min(hi - 1, Math.max(lo + 1, lo + Math.floor((limit - loTokens) / rate)));
    }
    // An aim that did not halve the bracket is followed by a halving, so the search takes O(log) probes.
    bisect = !bisect && hi <= size && hi - lo > width / 2;
  }
  return lo > 0 ? { length: lo, tokens: loTokens } : undefined;
}

/** UTF-16 offset of every code point of `text`, then its length: cuts at these never split a surrogate pair. */
export function codePointStarts(text: string): Uint32Array {
  const starts = new Uint32Array(text.length + 1);
  let n = 0;
  for (let i = 0; i < text.length; i += text.codePointAt(i)! > 0xffff ? 2 : 1) starts[n++] = i;
  starts[n++] = text.length;
  return starts.subarray(0, n);
}
