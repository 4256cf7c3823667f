import { renderContext } from '../context.ts';
import type { Context, GeneratedAnswer, Language } from '../types.ts';

/**
 * The one prompt every model-backed generator sends: a system message with the rules, and a user
 * message with the numbered context blocks (`renderContext`: `[n] <citation line>` then the text)
 * followed by the question. Keeping it in one place means an OpenAI endpoint and a local GGUF model
 * are measured on exactly the same instructions.
 */

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface Prompt {
  system: string;
  user: string;
}

/** What the model is told to say when the context holds no answer: the extractive generator's words, so users see one phrase. */
export const NO_ANSWER: Readonly<Record<Language, string>> = {
  en: 'I could not find the answer in the indexed sources.',
  es: 'No encuentro la respuesta en las fuentes indexadas.',
};

const LANGUAGE_NAME: Readonly<Record<Language, string>> = {
  en: 'English',
  es: 'Spanish (español)',
};

/** The rules, in English (small models follow English instructions best), naming the answer language. */
export function systemPrompt(language: Language): string {
  return [
    'You answer questions about a software repository using only the numbered context blocks you are given.',
    'Rules:',
    '1. Use only facts stated in the context. Do not use outside knowledge.',
    '2. Put the number of the supporting block in square brackets after every claim, like [1] or [2][3]. Cite only numbers that appear in the context.',
    `3. If the context does not contain the answer, say so plainly: "${NO_ANSWER[language]}"`,
    `4. Answer in ${LANGUAGE_NAME[language]}, the language of the question.`,
    '5. Be concise: a few sentences, no preamble.',
  ].join('\n');
}

export function userPrompt(question: string, context: Context): string {
  const blocks = context.blocks.length ? renderContext(context) : '(no context blocks were found)';
  // The question comes last so that it is the freshest text when the model starts writing.
  return `Context:\n\n${blocks}\n\nQuestion: ${question.trim()}`;
}

export function buildPrompt(question: string, context: Context): Prompt {
  return { system: systemPrompt(context.language), user: userPrompt(question, context) };
}

/**
 * Whether a model's answer is exactly the no-answer statement (in either language: small models
 * drift), punctuation and case aside. Only then is nothing of it counted as unsupported; a statement
 * followed by claims is verified like any answer.
 */
export function isNoAnswer(text: string): boolean {
  const norm = (t: string) => t.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
  const said = norm(text);
  return Object.values(NO_ANSWER).some((phrase) => said === norm(phrase));
}

/** The answer as generators return it, flagged when it is the no-answer statement. */
export function toAnswer(text: string, context: Context, generator: string): GeneratedAnswer {
  const trimmed = text.trim();
  const answer: GeneratedAnswer = { text: trimmed, language: context.language, generator };
  if (isNoAnswer(trimmed)) answer.noAnswer = true;
  return answer;
}

/** The prompt as chat messages, for OpenAI-compatible endpoints. */
export function chatMessages(question: string, context: Context): ChatMessage[] {
  const p = buildPrompt(question, context);
  return [
    { role: 'system', content: p.system },
    { role: 'user', content: p.user },
  ];
}

/** What one generation cost; generators keep the last one as `lastStats` (evaluation reads it). */
export interface GenerationStats {
  promptTokens: number | null;
  completionTokens: number | null;
  /** Wall time of the generation, prompt reading included. */
  ms: number;
  /** completionTokens per second of `ms`, when the token count is known. */
  tokensPerSecond: number | null;
}

export function makeStats(promptTokens: number | null, completionTokens: number | null, ms: number): GenerationStats {
  const tokensPerSecond = completionTokens !== null && ms > 0 ? completionTokens / (ms / 1000) : null;
  return { promptTokens, completionTokens, ms, tokensPerSecond };
}
