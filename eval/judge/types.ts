import type { Context, VerifiedAnswer } from '../../pipeline/answer/types.ts';

/**
 * A faithfulness judge (DESIGN lesson 5): it reads the very Context object the generator answered
 * from, never a re-retrieved or narrower one, and says which answer sentences the blocks they cite
 * support. It fingerprints what it was given, so the harness can prove the two contexts are equal.
 */
export interface Judge {
  /** e.g. `offline:support`, `llm:openai:gpt-4o-mini`, `llm:local:SmolLM2-135M-Instruct`. */
  readonly id: string;
  judge(question: string, context: Context, answer: VerifiedAnswer): Promise<Judgement>;
  /**
   * For a model judge: the messages last sent to its model, recorded at the provider boundary. The
   * harness fingerprints the rendered context it finds there, not the judge's argument.
   */
  readonly transcript?: { last(): { content: string }[] | null; reset(): void };
  /** What the judge cannot see, in a few words each (shown in the report beside its calibration). */
  readonly blindSpots?: readonly string[];
  close?(): Promise<void>;
}

export interface SentenceVerdict {
  sentence: string;
  /** Markers the sentence cites. */
  markers: number[];
  supported: boolean;
  /** Why, in a few words (overlap share, the model's word). */
  reason: string;
}

export interface Judgement {
  judge: string;
  sentences: SentenceVerdict[];
  /** Fingerprint of the context the judge received (see fingerprint.ts). */
  contextFingerprint: string;
}
