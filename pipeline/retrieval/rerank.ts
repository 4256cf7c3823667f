import type { SearchHit } from '../types.ts';
import { minMax } from './hybrid.ts';

/**
 * The first `scores.length` hits re-ordered by their hybrid score plus `weight` × their re-ranker's score (late
 * interaction, query likelihood), both min–max scaled among them; the hits after them stay as they were. The scores
 * keep their places (the best score goes to the new first hit, and so on), so what reads a list's scores — fusion's
 * fit, the file evidence — sees the same profile, only other chunks in it. Pure.
 */
export function rerankHead(hits: readonly SearchHit[], scores: readonly number[], weight: number): SearchHit[] {
  const n = Math.min(scores.length, hits.length);
  if (n < 2 || weight <= 0) return [...hits];
  const head = hits.slice(0, n);
  const hybrid = minMax(head.map((h) => h.score));
  const signal = minMax(scores.slice(0, n));
  const order = head.map((h, i) => ({ h, s: hybrid[i]! + weight * signal[i]!, i })).sort((a, b) => b.s - a.s || a.i - b.i);
  return [...order.map((o, rank) => ({ ...o.h, score: head[rank]!.score })), ...hits.slice(n)];
}

/**
 * Whether a re-ranker (`retrieval.lateInteraction`, `retrieval.queryLikelihood`) re-ranks a question's candidates:
 * the option on, the question typed (not pasted text, nor an issue's), and of the questions it is for. Pure.
 */
export function rerankerFor(options: { weight: number; questions: 'all' | 'translated' }, question: { typed: boolean; translated: boolean }): boolean {
  return options.weight > 0 && question.typed && (options.questions === 'all' || question.translated);
}
