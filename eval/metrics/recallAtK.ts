/**
 * Recall@k: the share of relevant items found among the first k retrieved.
 *   recall@k = |relevant ∩ retrieved[0:k]| / |relevant|
 * Duplicates in the ranking count once (several chunks of one file are one file).
 */
export function recallAtK(ranked: string[], relevant: string[], k: number): number {
  if (relevant.length === 0) throw new Error('recall@k is undefined without relevant items');
  const top = new Set(distinct(ranked).slice(0, k));
  const gold = new Set(relevant);
  let hit = 0;
  for (const r of gold) if (top.has(r)) hit++;
  return hit / gold.size;
}

/** Keeps the first occurrence of each item, in order: a chunk ranking becomes a file ranking. */
export function distinct(items: string[]): string[] {
  return [...new Set(items)];
}
