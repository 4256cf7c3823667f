import type { Context, VerifiedAnswer } from '../../pipeline/answer/types.ts';
import { contextFingerprint } from './fingerprint.ts';
import { claimsOf } from './sentences.ts';
import type { Judge, Judgement } from './types.ts';

/** Words of at least two letters or digits, lower-cased, accents kept (a Spanish claim must match Spanish text). */
export function contentWords(text: string): string[] {
  return (text.replace(/\[\d+(?:\s*,\s*\d+)*\]/g, ' ').toLowerCase().match(/[\p{L}\p{N}_]{2,}/gu) ?? []);
}

/**
 * Share of a claim's words found in the blocks it cites. A claim with no evidence scores 0. Pure, so
 * the threshold's effect can be tested on hand-made sentences.
 */
export function supportShare(sentence: string, evidence: string[]): number {
  const words = contentWords(sentence);
  if (words.length === 0 || evidence.length === 0) return 0;
  const pool = new Set(evidence.flatMap(contentWords));
  return words.filter((w) => pool.has(w)).length / words.length;
}

/**
 * Offline judge: a sentence is supported when the blocks it cites hold at least `threshold` of its
 * words. It rewards quoting and catches citing the wrong block or saying what no block says; it
 * cannot judge a paraphrase's meaning (that is the LLM judge's job).
 */
export class OfflineSupportJudge implements Judge {
  readonly id: string;
  constructor(private readonly threshold = 0.8) {
    this.id = `offline:support@${threshold}`;
  }

  judge(_question: string, context: Context, answer: VerifiedAnswer): Promise<Judgement> {
    const sentences = claimsOf(context, answer).map((c) => {
      const share = supportShare(c.sentence, c.evidence);
      return {
        sentence: c.sentence,
        markers: c.markers,
        supported: share >= this.threshold,
        reason: c.markers.length === 0 ? 'cites no block' : `${Math.round(share * 100)}% of its words in the cited blocks`,
      };
    });
    return Promise.resolve({ judge: this.id, sentences, contextFingerprint: contextFingerprint(context) });
  }
}
