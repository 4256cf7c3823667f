import type { MetricInfo } from '../report/types.ts';

/** Every metric the harness reports, in display order. Shares are per question, averaged over the questions where they apply. */
export const METRICS: MetricInfo[] = [
  { name: 'file.recall@5', label: 'Recall@5 (files)', direction: 'higher', unit: 'share', description: "gold files among the first 5 distinct files of ask()'s ranking (deeper than the context, whatever the answer budget); questions with gold files" },
  { name: 'file.recall@10', label: 'Recall@10 (files)', direction: 'higher', unit: 'share', description: 'gold files among the first 10 distinct files of the ranking' },
  { name: 'file.acc@1', label: 'Acc@1 (files)', direction: 'higher', unit: 'share', description: 'the first file of the ranking is a gold file' },
  { name: 'file.mrr', label: 'MRR (files)', direction: 'higher', unit: 'share', description: 'reciprocal rank of the first gold file in the ranking (0 when none in its first 50 chunks)' },
  { name: 'file.ndcg@10', label: 'nDCG@10 (files)', direction: 'higher', unit: 'share', description: 'binary-relevance nDCG of the first 10 distinct files of the ranking' },
  { name: 'doc.recall@10', label: 'Recall@10 (docs)', direction: 'higher', unit: 'share', description: 'gold documentation files among the first 10 distinct doc files of the ranking; questions with gold docs' },
  { name: 'context.recall', label: 'Context recall (files)', direction: 'higher', unit: 'share', description: 'gold files with a block in the context the generator read (moves with answer.budget); questions with gold files' },
  { name: 'gold.reachable', label: 'Gold indexed (recall ceiling)', direction: 'higher', unit: 'share', description: "share of the question's gold files the index holds; its mean is the highest file recall the index allows; questions with gold files" },
  { name: 'query.overWindow', label: 'Queries over the model window', direction: 'lower', unit: 'share', description: 'the question is longer than the model window as a query (the model reads only its first tokens)' },
  { name: 'issue.recall', label: 'Recall (issues)', direction: 'higher', unit: 'share', description: 'gold issues with a block in the context; questions with gold issues' },
  { name: 'routing.acc', label: 'Routing accuracy', direction: 'higher', unit: 'share', description: "the router's top collection is the expected source" },
  { name: 'fusion.evenQuota', label: 'Even-quota slots', direction: 'lower', unit: 'share', description: 'the collections used got exactly equal slots (the RRF symptom)' },
  { name: 'fusion.wastedSlots', label: 'Slots without gold', direction: 'lower', unit: 'share', description: 'share of context slots spent on collections holding none of the gold' },
  { name: 'answer.answered', label: 'Answered', direction: 'higher', unit: 'share', description: 'the generator gave an answer rather than "not found"' },
  { name: 'answer.right', label: 'Answered right', direction: 'higher', unit: 'share', description: 'an answer whose verified citations include a gold file (a page that holds the answer); answerable questions' },
  { name: 'answer.firstFile', label: 'First cited file right', direction: 'higher', unit: 'share', description: 'the first file the answer cites is a gold file (0 when it abstains); answerable questions with gold files' },
  { name: 'answer.citedGold', label: 'Cited files that are gold', direction: 'higher', unit: 'share', description: "share of the distinct files the answer cites that are gold files (its precision); answered questions with gold files that cite a file", over: 'answers' },
  { name: 'answer.goldSymbol', label: 'Gold symbol cited', direction: 'higher', unit: 'share', description: "the answer cites a gold symbol (a fix's function or method) in a gold file (0 when it abstains); questions whose gold names symbols (a symbol renamed since the fix is never matched)" },
  { name: 'answer.referenceTerms', label: 'Reference identifiers named', direction: 'higher', unit: 'share', description: "share of the reference answer's key identifiers the answer names (0 when it abstains); questions with a reference that names any" },
  { name: 'answer.referenceQuoted', label: 'Reference line quoted', direction: 'higher', unit: 'share', description: "the answer quotes the line of a gold page that holds the answer (6 of its words in a row; 0 when it abstains); questions whose reference is a verbatim quote (cita's datasets)" },
  { name: 'answer.abstained', label: 'Abstained (unanswerable)', direction: 'higher', unit: 'share', description: 'said the sources hold no answer; questions whose sources do not hold one' },
  { name: 'citations.invalid', label: 'Answers with an invalid citation', direction: 'lower', unit: 'share', description: 'answers with a marker that failed verification; answered questions', over: 'answers' },
  { name: 'citations.resolved', label: 'Markers resolved', direction: 'higher', unit: 'share', description: 'distinct markers of the answer that became verified citations; answers with markers', over: 'answers' },
  { name: 'citations.holdText', label: 'Cited ranges hold the text', direction: 'higher', unit: 'share', description: '(sentence, marker) pairs whose cited block holds what the sentence quotes', over: 'answers' },
  { name: 'faithfulness', label: 'Faithfulness', direction: 'higher', unit: 'share', description: 'answer sentences the judge finds supported by the blocks they cite', over: 'answers' },
  { name: 'latency.total', label: 'Latency (total)', direction: 'lower', unit: 'ms', description: 'wall time of ask() plus judging, per question' },
];

export const METRIC_NAMES = METRICS.map((m) => m.name);

/** A metric's catalogue entry; a name the catalogue lacks reads as a share where higher is better. */
export function metricInfo(name: string): MetricInfo {
  return METRICS.find((m) => m.name === name) ?? { name, label: name, direction: 'higher', unit: 'share', description: '' };
}
