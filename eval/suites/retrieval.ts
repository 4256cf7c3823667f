import type { AskResult } from '../../pipeline/answer/ask.ts';
import type { EvalQuestion } from '../../datasets/questions.ts';
import { sourceOfFile } from '../../datasets/questions.ts';
import { accuracyAt1 } from '../metrics/accuracyAt1.ts';
import { ndcgAtK } from '../metrics/ndcgAtK.ts';
import { distinct, recallAtK } from '../metrics/recallAtK.ts';
import { reciprocalRank } from '../metrics/reciprocalRank.ts';
import type { MetricValues } from '../report/types.ts';

/** The context's files in block order (lookups first, as the generator reads them), each once. */
export function contextFiles(result: Pick<AskResult, 'context'>): string[] {
  return distinct(result.context.blocks.filter((b) => b.chunk.collection !== 'issues').map((b) => b.citation.path));
}

/**
 * Retrieval at file level (and doc / issue level). The metrics at k are over `ask()`'s ranking (to
 * RANK_DEPTH chunks, whatever the answer budget); `context.recall` is over the context the generator
 * read. Null where there is no gold of that kind.
 */
export function retrievalMetrics(q: EvalQuestion, result: Pick<AskResult, 'context' | 'ranking'>): MetricValues {
  const files = result.ranking.files;
  const gold = q.gold.files;
  const goldDocs = gold.filter((f) => sourceOfFile(f) === 'docs');
  const docFiles = files.filter((f) => sourceOfFile(f) === 'docs');
  const inContext = new Set(result.context.blocks.map((b) => b.citation.issue).filter((n) => n !== undefined));
  const contextual = new Set(contextFiles(result));
  const has = gold.length > 0;
  return {
    'file.recall@5': has ? recallAtK(files, gold, 5) : null,
    'file.recall@10': has ? recallAtK(files, gold, 10) : null,
    'file.acc@1': has ? accuracyAt1(files, gold) : null,
    'file.mrr': has ? reciprocalRank(files, gold) : null,
    'file.ndcg@10': has ? ndcgAtK(files, gold, 10) : null,
    'doc.recall@10': goldDocs.length ? recallAtK(docFiles, goldDocs, 10) : null,
    'context.recall': has ? new Set(gold.filter((f) => contextual.has(f))).size / new Set(gold).size : null,
    'issue.recall': q.gold.issues.length ? q.gold.issues.filter((n) => inContext.has(n)).length / q.gold.issues.length : null,
  };
}
