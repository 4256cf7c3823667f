import { describe, expect, it } from 'vitest';
import { lateInteractionScores, maxSim } from '../pipeline/retrieval/lateInteraction.ts';
import { rerankHead } from '../pipeline/retrieval/rerank.ts';
import type { Embedder } from '../pipeline/types.ts';
import { docsHit } from './support/hits.ts';

const rows = (...vs: number[][]) => Float32Array.from(vs.flat());
const hit = docsHit;

describe('maxSim', () => {
  it('averages each query row’s best dot product with the passage rows', () => {
    const q = rows([1, 0], [0, 1]);
    const p = rows([1, 0], [0.6, 0.8]);
    // Row 1 finds 1 (first passage row), row 2 finds 0.8 (second).
    expect(maxSim(q, p, 2)).toBeCloseTo(0.9);
  });
  it('is 0 for an empty query or passage', () => {
    expect(maxSim(new Float32Array(0), rows([1, 0]), 2)).toBe(0);
    expect(maxSim(rows([1, 0]), new Float32Array(0), 2)).toBe(0);
  });
});

describe('rerankHead', () => {
  const hits = [hit('a', 0.9), hit('b', 0.8), hit('c', 0.7), hit('d', 0.1)];
  it('re-orders the first hits by hybrid + weight × late interaction, keeping the scores in their places', () => {
    const out = rerankHead(hits, [0, 0.2, 1], 2);
    // Scaled: hybrid a 1, b 0.5, c 0; late a 0, b 0.2, c 1 → a 1, b 0.9, c 2.
    expect(out.map((h) => h.chunk.id)).toEqual(['c', 'a', 'b', 'd']);
    expect(out.map((h) => h.score)).toEqual([0.9, 0.8, 0.7, 0.1]);
  });
  it('leaves the list as it was at weight 0 or with fewer than two scores', () => {
    expect(rerankHead(hits, [0, 0.2, 1], 0)).toEqual(hits);
    expect(rerankHead(hits, [1], 2)).toEqual(hits);
  });
});

describe('lateInteractionScores', () => {
  it('averages the MaxSim of each query (the question and its translation) over the first `depth` hits', async () => {
    const vectors: Record<string, Float32Array> = { q: rows([1, 0]), t: rows([0, 1]), a: rows([1, 0]), b: rows([0, 1], [1, 0]), c: rows([0, 1]) };
    const embedder = { dims: 2, tokenVectors: async (texts: string[]) => texts.map((t) => vectors[t]!) } as unknown as Embedder;
    const hits = [hit('a', 0.9), hit('b', 0.8), hit('c', 0.7)];
    expect(await lateInteractionScores(embedder, hits, ['q', 't'], 2)).toEqual([0.5, 1]);
    expect(await lateInteractionScores({ dims: 2 } as unknown as Embedder, hits, ['q'], 2)).toBeUndefined();
  });
});
