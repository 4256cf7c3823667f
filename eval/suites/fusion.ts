import { sourceOfFile, type EvalQuestion } from '../../datasets/questions.ts';
import type { AskResult } from '../../pipeline/answer/ask.ts';
import { COLLECTIONS, type Collection } from '../../pipeline/types.ts';
import type { MetricValues } from '../report/types.ts';

/** Context blocks per collection (lookups included): what the generator actually got from each source. */
export function contextSlots(result: Pick<AskResult, 'context'>): Record<Collection, number> {
  const slots = Object.fromEntries(COLLECTIONS.map((c) => [c, 0])) as Record<Collection, number>;
  for (const b of result.context.blocks) slots[b.chunk.collection]++;
  return slots;
}

/** More than one collection used, all with the same number of slots: the fixed quota RRF tends to produce. */
export function isEvenQuota(slots: Record<Collection, number>): boolean {
  const used = COLLECTIONS.map((c) => slots[c]).filter((n) => n > 0);
  return used.length > 1 && used.every((n) => n === used[0]);
}

/** The collections that hold any of the question's gold. */
export function goldCollections(q: EvalQuestion): Set<Collection> {
  const out = new Set<Collection>(q.gold.files.map(sourceOfFile));
  if (q.gold.issues.length) out.add('issues');
  return out;
}

export function fusionMetrics(q: EvalQuestion, slots: Record<Collection, number>): MetricValues {
  const total = COLLECTIONS.reduce((s, c) => s + slots[c], 0);
  const gold = goldCollections(q);
  const wasted = COLLECTIONS.filter((c) => !gold.has(c)).reduce((s, c) => s + slots[c], 0);
  return { 'fusion.evenQuota': isEvenQuota(slots) ? 1 : 0, 'fusion.wastedSlots': total ? wasted / total : null };
}
