import { answerSentences, parseMarkers } from '../../pipeline/answer/citations.ts';
import type { VerifiedAnswer } from '../../pipeline/answer/types.ts';
import type { MetricValues } from '../report/types.ts';

/**
 * Citation quality of a verified answer: the share of distinct markers that resolved to a verified
 * citation, and the share of (sentence, marker) pairs whose cited block holds what the sentence quotes.
 */
export function citationMetrics(answer: VerifiedAnswer | undefined): MetricValues {
  if (!answer) return { 'answer.answered': null, 'citations.resolved': null, 'citations.holdText': null };
  const answered = answer.noAnswer ? 0 : 1;
  const markers = new Set(parseMarkers(answer.text));
  const valid = new Set(answer.citations.map((c) => c.marker));
  const pairs = answerSentences(answer.text, answer.language).flatMap((s) => [...new Set(parseMarkers(s))].map((m) => `${m}\u0000${s.trim()}`));
  const failedPairs = new Set(answer.invalid.filter((i) => i.sentence !== undefined).map((i) => `${i.marker}\u0000${i.sentence!.trim()}`));
  // A marker invalid as a whole (no such block, path or lines wrong) fails every sentence citing it.
  const badMarkers = new Set(answer.invalid.filter((i) => i.sentence === undefined).map((i) => i.marker));
  const held = pairs.filter((p) => !failedPairs.has(p) && !badMarkers.has(Number(p.split('\u0000')[0]))).length;
  return {
    'answer.answered': answered,
    'citations.resolved': markers.size ? [...markers].filter((m) => valid.has(m)).length / markers.size : null,
    'citations.holdText': pairs.length ? held / pairs.length : null,
  };
}
