import { describe, expect, it } from 'vitest';
import { asClient, fairlyShared } from '../pipeline/session.ts';
import { recordingEmbedder } from './support/recordingEmbedder.ts';

const sentence = (i: number) => `Sentence ${i} of an answer: use the skipif marker to skip a test on some platforms.`;
const words = (n: number, tag: string) => `${tag} ${Array.from({ length: n }, (_, i) => `w${i}`).join(' ')}`;

describe("cita serve's shared embedder (turns at the model)", () => {
  it("shares calls by tokens up to one window: an answer's sentences take a few calls, not one per kilobyte", async () => {
    const inner = recordingEmbedder();
    const shared = fairlyShared(inner);
    // 40 sentences of ~22 tokens (~80 bytes): the first runs at once (the model was free), the other 39
    // wait and then share calls of at most 512 tokens — two calls (1 KB calls took four).
    const texts = Array.from({ length: 40 }, (_, i) => sentence(i));
    const vectors = await asClient('a', () => shared.embedPassages(texts));
    expect(vectors).toHaveLength(40);
    expect(inner.batches.flat()).toEqual(texts);
    const tokens = inner.batches.map((b) => b.reduce((n, t) => n + inner.countTokens(t), 0));
    expect(tokens.every((n) => n <= inner.window), tokens.join(' ')).toBe(true);
    expect(inner.batches.map((b) => b.length)).toEqual([1, 23, 16]);
  });

  it('never lets a turn cost much more than one long text: texts over half the window run alone', async () => {
    const inner = recordingEmbedder();
    const shared = fairlyShared(inner);
    const long = [words(300, 'a'), words(300, 'b'), words(300, 'c')];
    await asClient('a', () => shared.embedPassages(long));
    expect(inner.batches.map((b) => b.length)).toEqual([1, 1, 1]);
  });

  it('serves token vectors in turns of their own kind, never in a call with pooled vectors', async () => {
    const calls: string[] = [];
    const inner = recordingEmbedder();
    const withTokens = { ...inner, countTokens: (t: string) => inner.countTokens(t), tokenVectors: async (texts: string[], kind: 'query' | 'passage') => (calls.push(`${kind} tokens: ${texts.join(',')}`), texts.map(() => Float32Array.of(1, 0))) };
    const shared = fairlyShared(withTokens);
    const [tokens, pooled] = await asClient('a', () => Promise.all([shared.tokenVectors!(['x', 'y'], 'passage'), shared.embedPassages(['x'])]));
    expect(tokens.map((v) => [...v])).toEqual([[1, 0], [1, 0]]);
    expect(pooled).toHaveLength(1);
    expect(calls.join(' | ')).toMatch(/^passage tokens: x( \| passage tokens: y|,y)$/);
    expect(inner.batches).toEqual([['x']]);
    expect(fairlyShared(inner).tokenVectors).toBeUndefined();
  });
});

