import type { Context, VerifiedAnswer } from '../../pipeline/answer/types.ts';
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

const SYSTEM =
  'You check citations. For each numbered claim you get the source blocks it cites. Reply with one line per claim, ' +
  'exactly `<claim number>: yes` if the cited blocks state or directly imply the claim, `<claim number>: no` otherwise. ' +
  'Judge only from the blocks shown, not from what you know. No other text.';

/** The judging prompt: the claims with the exact text of the blocks each cites (the generator's context, nothing else). */
export function judgePrompt(question: string, claims: Claim[], context: Context): ChatMessage[] {
  const byMarker = new Map(context.blocks.map((b) => [b.marker, b]));
  const parts = claims.map((c, i) => {
    const blocks = c.markers
      .map((m) => byMarker.get(m))
      .filter((b) => b !== undefined)
      .map((b) => `[${b.marker}] ${b.citation.path}:${b.citation.startLine}-${b.citation.endLine}\n${b.text}`);
    return `Claim ${i + 1}: ${c.sentence.trim()}\nCited blocks:\n${blocks.length ? blocks.join('\n\n') : '(none)'}`;
  });
  return [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: `Question: ${question}\n\n${parts.join('\n\n---\n\n')}\n\nAnswer lines for claims 1 to ${claims.length}:` },
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
  constructor(private readonly model: Completer) {
    this.id = `llm:${model.id}`;
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
