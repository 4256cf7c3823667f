import { distinct } from './recallAtK.ts';

/**
 * Reciprocal rank: 1 / (rank of the first relevant item), 0 when none is retrieved; its mean over
 * questions is MRR (Voorhees, TREC-8 QA track, 1999). Duplicates collapse first.
 */
export function reciprocalRank(ranked: string[], relevant: string[]): number {
  const gold = new Set(relevant);
  const i = distinct(ranked).findIndex((r) => gold.has(r));
  return i < 0 ? 0 : 1 / (i + 1);
}
