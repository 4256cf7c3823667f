import { describe, expect, it } from 'vitest';
import { likelihoodModel, likelihoodPrompt, likelihoodScores, queryLikelihoodReranked } from '../pipeline/retrieval/queryLikelihood.ts';
import { rerankerFor } from '../pipeline/retrieval/rerank.ts';
import { docsHit } from './support/hits.ts';

const hit = docsHit;

const options = { weight: 2, depth: 3, passageChars: 1000, questions: 'all' as const, collections: ['docs' as const] };

/** A model that finds the question likely after a text about skipping, and records what it read. */
function fakeModel() {
  const read: string[] = [];
  return {
    read,
    id: 'fake',
    likelihoods: async (prompt: string, texts: readonly string[]) => {
      read.push(prompt);
      return texts.map(() => (prompt.includes('skipif') ? -1 : -5));
    },
  };
}

describe('likelihoodPrompt', () => {
  it('gives the chunk, blank lines collapsed, then the label the question follows', () => {
    expect(likelihoodPrompt('Skipping › On Windows\n\n\n\nUse skipif.', 1000)).toBe('Text:\nSkipping › On Windows\n\nUse skipif.\n\nA question this text answers:');
  });
  it('cuts a long chunk between words', () => {
    const prompt = likelihoodPrompt(`${'word '.repeat(50)}end`, 23);
    expect(prompt).toBe('Text:\nword word word word\n\nA question this text answers:');
  });
});

describe('queryLikelihoodReranked', () => {
  const hits = [hit('a', 0.9, 'Fixtures'), hit('b', 0.8, 'Plugins'), hit('c', 0.7, 'Use skipif on Windows'), hit('d', 0.1, 'skipif too, past the depth')];
  it('re-ranks the first `depth` hits by how likely the model finds the question after each, and reads no other', async () => {
    const model = fakeModel();
    const out = await queryLikelihoodReranked(model, 'docs', hits, '¿Cómo omito un test?', options);
    expect(out!.map((h) => h.chunk.id)).toEqual(['c', 'a', 'b', 'd']);
    expect(model.read).toHaveLength(3);
    expect(model.read[2]).toBe(likelihoodPrompt('Use skipif on Windows', 1000));
  });
  it('leaves a collection it is not configured for alone, unread', async () => {
    const model = fakeModel();
    expect(await queryLikelihoodReranked(model, 'code', hits, 'q', options)).toBeUndefined();
    expect(model.read).toHaveLength(0);
  });
  it('scores each hit with the question as given', async () => {
    const asked: string[] = [];
    const model = { likelihoods: async (_p: string, texts: readonly string[]) => (asked.push(...texts), texts.map(() => 0)) };
    expect(await likelihoodScores(model, hits, '¿Cómo omito un test?', { depth: 2, passageChars: 100 })).toEqual([0, 0]);
    expect(asked).toEqual(['¿Cómo omito un test?', '¿Cómo omito un test?']);
  });
});

describe('likelihoodModel', () => {
  it('scores with the model translator given when it can; otherwise with the process’s for the config', () => {
    const given = fakeModel();
    const config = { languages: { modelTranslator: { model: 'gemma-3-270m', maxWords: 40, isolate: 'serve' as const } } } as Parameters<typeof likelihoodModel>[0];
    expect(likelihoodModel(config, given)).toBe(given);
    expect(likelihoodModel(config, { id: 'translate only' }).id).toBe('model:gemma-3-270m');
  });
});

describe('rerankerFor', () => {
  it('re-ranks typed questions when on; only translated ones when so configured', () => {
    expect(rerankerFor({ weight: 2, questions: 'all' }, { typed: true, translated: false })).toBe(true);
    expect(rerankerFor({ weight: 0, questions: 'all' }, { typed: true, translated: true })).toBe(false);
    expect(rerankerFor({ weight: 2, questions: 'all' }, { typed: false, translated: true })).toBe(false);
    expect(rerankerFor({ weight: 2, questions: 'translated' }, { typed: true, translated: false })).toBe(false);
    expect(rerankerFor({ weight: 2, questions: 'translated' }, { typed: true, translated: true })).toBe(true);
  });
});
