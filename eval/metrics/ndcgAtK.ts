import { distinct } from './recallAtK.ts';

/**
 * nDCG@k with binary relevance (Järvelin & Kekäläinen, TOIS 2002):
 *   DCG@k  = Σ_{i=1..k} rel_i / log2(i + 1)
 *   IDCG@k = Σ_{i=1..min(k, |relevant|)} 1 / log2(i + 1)
 *   nDCG@k = DCG@k / IDCG@k
 * Duplicates collapse first (several chunks of one file are one file).
 */
export function ndcgAtK(ranked: string[], relevant: string[], k: number): number {
  if (relevant.length === 0) throw new Error('nDCG@k is undefined without relevant items');
  const gold = new Set(relevant);
  const dcg = distinct(ranked)
    .slice(0, k)
    .reduce((sum, r, i) => sum + (gold.has(r) ? 1 / Math.log2(i + 2) : 0), 0);
  let idcg = 0;
  for (let i = 0; i < Math.min(k, gold.size); i++) idcg += 1 / Math.log2(i + 2);
  return dcg / idcg;
}
