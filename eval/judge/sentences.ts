import { answerSentences, parseMarkers } from '../../pipeline/answer/citations.ts';
import type { Context, VerifiedAnswer } from '../../pipeline/answer/types.ts';

export interface Claim {
  sentence: string;
  markers: number[];
  /** The texts of the cited blocks that exist in the context, in marker order. */
  evidence: string[];
}

/** A sentence that only introduces what follows makes no claim (as in citation verification). */
const LEAD_IN = /:\s*(?:\[\d+(?:\s*,\s*\d+)*\]\s*)*$/;

/** The claims of an answer: its sentences with the blocks they cite. A no-answer makes none. */
export function claimsOf(context: Context, answer: VerifiedAnswer): Claim[] {
  if (answer.noAnswer) return [];
  const byMarker = new Map(context.blocks.map((b) => [b.marker, b.text]));
  return answerSentences(answer.text, answer.language)
    .filter((s) => s.trim() && !LEAD_IN.test(s.trim()))
    .map((sentence) => {
      const markers = [...new Set(parseMarkers(sentence))];
      return { sentence, markers, evidence: markers.map((m) => byMarker.get(m)).filter((t): t is string => t !== undefined) };
    });
}
