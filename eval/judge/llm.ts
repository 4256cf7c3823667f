import type { Context, VerifiedAnswer } from '../../pipeline/answer/types.ts';
import { renderContext } from '../../pipeline/answer/context.ts';
import type { ChatMessage } from '../../pipeline/answer/generators/prompt.ts';
import { contextFingerprint } from './fingerprint.ts';
import { claimsOf, type Claim } from './sentences.ts';
import type { Judge, Judgement, SentenceVerdict } from './types.ts';

/** A chat model behind one of the generators' providers (openai-compatible endpoint or local GGUF). */
export interface Completer {
  readonly id: string;
  complete(messages: ChatMessage[]): Promise<string>;
  close?(): Promise<void>;
}

/**
 * Records the messages each call sends to the model, at the provider boundary: the harness reads what
 * the judge's model was actually given from here, not from the judge's own account (#13 item 5).
 */
export class RecordingCompleter implements Completer {
  private sent: ChatMessage[] | null = null;
  constructor(private readonly inner: Completer) {}
  get id(): string {
    return this.inner.id;
  }
  complete(messages: ChatMessage[]): Promise<string> {
    this.sent = messages.map((m) => ({ ...m }));
    return this.inner.complete(messages);
  }
  /** The messages of the last call since `reset`, or null when the model was not called. */
  last(): ChatMessage[] | null {
    return this.sent;
  }
  reset(): void {
    this.sent = null;
  }
  close(): Promise<void> {
    return this.inner.close?.() ?? Promise.resolve();
  }
}

const SYSTEM =
  'You check citations. You get the numbered context blocks an answer was written from, and numbered claims with the blocks each cites. Reply with one line per claim, ' +
  'exactly `<claim number>: yes` if the cited blocks state or directly imply the claim, `<claim number>: no` otherwise. ' +
  'Judge only from the blocks shown, not from what you know. No other text.';

/**
 * The judging prompt: the whole context exactly as the generator's prompt renders it
 * (`renderContext`, every block, not only the cited ones), then the claims with the markers each cites.
 */
export function judgePrompt(question: string, claims: Claim[], context: Context): ChatMessage[] {
  const parts = claims.map((c, i) => `Claim ${i + 1}: ${c.sentence.trim()}\nCites: ${c.markers.length ? c.markers.map((m) => `[${m}]`).join(' ') : '(none)'}`);
  return [
    { role: 'system', content: SYSTEM },
    {
      role: 'user',
      content: `Context:\n\n${renderContext(context)}\n\nQuestion: ${question}\n\n${parts.join('\n\n')}\n\nAnswer lines for claims 1 to ${claims.length}:`,
    },
  ];
}

/** Reads `n: yes|no` (also sí/no, true/false) per claim; a claim the model did not answer counts as unsupported. */
export function parseVerdicts(text: string, count: number): (boolean | null)[] {
  const out: (boolean | null)[] = Array.from({ length: count }, () => null);
  for (const m of text.matchAll(/(?:claim\s*)?(\d+)\s*[:.)-]\s*(yes|no|s[ií]|true|false|supported|unsupported)(?![\p{L}])/giu)) {
    const i = Number(m[1]) - 1;
    if (i < 0 || i >= count || out[i] !== null) continue;
    out[i] = /^(yes|s[ií]|true|supported)$/i.test(m[2]!);
  }
  return out;
}

/**
 * LLM judge through the same providers as the generators. A claim without any cited block is
 * unsupported without asking the model; only cited claims are sent.
 */
export class LlmJudge implements Judge {
  readonly id: string;
  /** Set when the model is behind a recorder: the harness checks what was actually sent. */
  readonly transcript?: RecordingCompleter;
  constructor(private readonly model: Completer) {
    this.id = `llm:${model.id}`;
    if (model instanceof RecordingCompleter) this.transcript = model;
  }

  async judge(question: string, context: Context, answer: VerifiedAnswer): Promise<Judgement> {
    const claims = claimsOf(context, answer);
    const asked = claims.filter((c) => c.evidence.length > 0);
    const verdicts = asked.length ? parseVerdicts(await this.model.complete(judgePrompt(question, asked, context)), asked.length) : [];
    const byClaim = new Map(asked.map((c, i) => [c, verdicts[i] ?? null]));
    const sentences: SentenceVerdict[] = claims.map((c) => {
      if (c.evidence.length === 0) return { sentence: c.sentence, markers: c.markers, supported: false, reason: 'cites no block' };
      const v = byClaim.get(c) ?? null;
      return { sentence: c.sentence, markers: c.markers, supported: v === true, reason: v === null ? 'no verdict from the model' : v ? 'model: yes' : 'model: no' };
    });
    return { judge: this.id, sentences, contextFingerprint: contextFingerprint(context) };
  }

  async close(): Promise<void> {
    await this.model.close?.();
  }
}
