import type { AskResult } from '../../pipeline/answer/ask.ts';
import type { EvalQuestion } from '../../datasets/questions.ts';
import type { MetricValues } from '../report/types.ts';

/** 1 when the router's top collection is the question's expected source. */
export function routingMetrics(q: EvalQuestion, result: Pick<AskResult, 'route'>): MetricValues {
  return { 'routing.acc': result.route.top === q.gold.source ? 1 : 0 };
}
