import crypto from 'node:crypto';
import { renderContext } from '../../pipeline/answer/context.ts';
import type { Context } from '../../pipeline/answer/types.ts';

/**
 * One hash over everything a reader of the context sees: each block's marker, chunk id, citation and
 * exact text, and the total characters. Two contexts with the same fingerprint hold the same chunks
 * and the same characters; dropping a block or trimming one character changes it.
 */
export function contextFingerprint(context: Context): string {
  const hash = crypto.createHash('sha256');
  hash.update(JSON.stringify({ question: context.question, chars: context.chars, n: context.blocks.length }));
  for (const b of context.blocks) hash.update(JSON.stringify([b.marker, b.chunk.id, b.citation, b.text]));
  return hash.digest('hex');
}

/** sha256 of the context as the generator's prompt renders it for the model (`renderContext`). */
export function renderedFingerprint(context: Context): string {
  return crypto.createHash('sha256').update(renderContext(context)).digest('hex');
}

/**
 * Computed by the harness from what reached the judge's model: the fingerprint of the generator's
 * rendered context when those exact characters are in the messages sent, else null.
 */
export function sentFingerprint(sent: readonly { content: string }[], generatorContext: Context): string | null {
  const rendered = renderContext(generatorContext);
  return sent.some((m) => m.content.includes(rendered)) ? renderedFingerprint(generatorContext) : null;
}

/** What differs between two contexts, for an error a person can act on. */
export function describeContextDifference(generator: Context, judge: Context): string {
  const gen = new Set(generator.blocks.map((b) => b.chunk.id));
  const jud = new Set(judge.blocks.map((b) => b.chunk.id));
  const missing = [...gen].filter((id) => !jud.has(id)).length;
  const extra = [...jud].filter((id) => !gen.has(id)).length;
  return (
    `blocks ${generator.blocks.length} vs ${judge.blocks.length} (${missing} missing, ${extra} extra), ` +
    `characters ${generator.chars} vs ${judge.chars}`
  );
}

export class JudgeContextMismatch extends Error {
  constructor(detail: string) {
    super(`the judge did not see the generator's context: ${detail}`);
    this.name = 'JudgeContextMismatch';
  }
}
