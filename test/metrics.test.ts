import { describe, expect, it } from 'vitest';
import { accuracyAt1 } from '../eval/metrics/accuracyAt1.ts';
import { ndcgAtK } from '../eval/metrics/ndcgAtK.ts';
import { percentile } from '../eval/metrics/percentile.ts';
import { distinct, recallAtK } from '../eval/metrics/recallAtK.ts';
import { reciprocalRank } from '../eval/metrics/reciprocalRank.ts';
import { convexCombination, minMax, reciprocalRanks, withFileEvidence } from '../pipeline/retrieval/hybrid.ts';
import type { Chunk, ScoredChunk, SearchHit } from '../pipeline/types.ts';

describe('recallAtK', () => {
  it.each([
    [['a', 'b', 'c'], ['a'], 1, 1],
    [['b', 'a', 'c'], ['a'], 1, 0],
    [['b', 'a', 'c'], ['a', 'c'], 2, 1 / 2],
    [['b', 'b', 'b', 'a'], ['a'], 2, 1], // duplicates collapse: files, not chunks
    [['x', 'y'], ['a', 'b'], 10, 0],
    [['a', 'b'], ['a', 'b', 'c', 'd'], 10, 2 / 4],
  ])('%j vs gold %j at %i = %d', (ranked, gold, k, expected) => {
    expect(recallAtK(ranked, gold, k)).toBeCloseTo(expected, 12);
  });
  it('refuses an empty gold set', () => {
    expect(() => recallAtK(['a'], [], 1)).toThrow();
  });
  it('distinct keeps first occurrences in order', () => {
    expect(distinct(['b', 'a', 'b', 'c', 'a'])).toEqual(['b', 'a', 'c']);
  });
});

describe('accuracyAt1', () => {
  it.each([
    [['a', 'b'], ['a'], 1],
    [['b', 'a'], ['a'], 0],
    [['a', 'a', 'b'], ['b'], 0],
    [[], ['a'], 0],
  ])('%j vs gold %j = %d', (ranked, gold, expected) => {
    expect(accuracyAt1(ranked, gold)).toBe(expected);
  });
});

describe('reciprocalRank', () => {
  it.each([
    [['a', 'b', 'c'], ['a'], 1],
    [['b', 'a', 'c'], ['a'], 1 / 2],
    [['b', 'b', 'c', 'a'], ['a'], 1 / 3], // the repeated b counts once
    [['b', 'c'], ['a'], 0],
    [['c', 'b', 'a'], ['a', 'b'], 1 / 2],
  ])('%j vs gold %j = %d', (ranked, gold, expected) => {
    expect(reciprocalRank(ranked, gold)).toBeCloseTo(expected, 12);
  });
});

describe('ndcgAtK', () => {
  it.each([
    [['a', 'b'], ['a'], 10, 1],
    [['b', 'a'], ['a'], 10, 1 / Math.log2(3)],
    [['b', 'a', 'c'], ['a', 'c'], 10, (1 / Math.log2(3) + 1 / Math.log2(4)) / (1 + 1 / Math.log2(3))],
    [['b', 'a'], ['a'], 1, 0],
    [['x', 'y'], ['a'], 10, 0],
    [['a', 'a', 'b'], ['a', 'b'], 10, 1], // duplicates collapse: a then b is the ideal order
  ])('%j vs gold %j at %i = %d', (ranked, gold, k, expected) => {
    expect(ndcgAtK(ranked, gold, k)).toBeCloseTo(expected, 12);
  });
  it('refuses an empty gold set', () => {
    expect(() => ndcgAtK(['a'], [], 10)).toThrow();
  });
});

const chunk = (id: string): Chunk => ({
  id,
  collection: 'code',
  text: id,
  title: id,
  citation: { path: `${id}.py`, startLine: 1, endLine: 1 },
  tokens: 3,
});
const scored = (pairs: [string, number][]): ScoredChunk[] => pairs.map(([id, score]) => ({ chunk: chunk(id), score }));

describe('hybrid scoring', () => {
  it.each([
    [[], []],
    [[5], [1]],
    [[2, 2], [1, 1]],
    [[10, 5, 0], [1, 0.5, 0]],
    [[0.88, 0.83, 0.78], [1, (0.83 - 0.78) / (0.88 - 0.78), 0]],
  ])('minMax(%j) = %j', (scores, expected) => {
    minMax(scores).forEach((v, i) => expect(v).toBeCloseTo(expected[i]!, 12));
  });

  it('combines normalised scores convexly and keeps the components', () => {
    const bm25 = scored([['a', 12], ['b', 6], ['c', 0]]);
    const dense = scored([['b', 0.9], ['d', 0.8]]);
    const hits = convexCombination(bm25, dense, 0.25);
    const byId = Object.fromEntries(hits.map((h) => [h.chunk.id, h]));
    expect(byId.a!.score).toBeCloseTo(0.75 * 1 + 0.25 * 0, 12);
    expect(byId.b!.score).toBeCloseTo(0.75 * 0.5 + 0.25 * 1, 12);
    expect(byId.d!.score).toBeCloseTo(0.75 * 0 + 0.25 * 0, 12);
    expect(byId.b!.bm25).toBe(6);
    expect(byId.b!.dense).toBe(0.9);
    expect(byId.a!.dense).toBeNull();
    expect(hits.map((h) => h.chunk.id)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('alpha 0 ranks by BM25 alone and alpha 1 by dense alone', () => {
    const bm25 = scored([['a', 3], ['b', 2]]);
    const dense = scored([['b', 0.9], ['a', 0.1]]);
    expect(convexCombination(bm25, dense, 0).map((h) => h.chunk.id)).toEqual(['a', 'b']);
    expect(convexCombination(bm25, dense, 1).map((h) => h.chunk.id)).toEqual(['b', 'a']);
  });

  it('reciprocal ranks: (k0 + 1) / (k0 + r), ties sharing the first rank of them, in the order given', () => {
    expect(reciprocalRanks([0.2, 0.9, 0.5], 60)).toEqual([61 / 63, 1, 61 / 62]);
    expect(reciprocalRanks([3, 3, 1], 60)).toEqual([1, 1, 61 / 63]);
    expect(reciprocalRanks([])).toEqual([]);
  });

  it('on the reciprocal-rank scale only the order counts: a near-tie in BM25 weighs what a landslide does', () => {
    // BM25 barely prefers a (10.01 vs 10); dense strongly prefers b (0.9 vs 0.1, then c far below).
    const bm25 = scored([['a', 10.01], ['b', 10], ['c', 0]]);
    const dense = scored([['b', 0.9], ['a', 0.1], ['c', 0.05]]);
    // Min–max reads BM25's a–b gap as nothing and dense's as everything: b first.
    expect(convexCombination(bm25, dense, 0.5).map((h) => h.chunk.id)).toEqual(['b', 'a', 'c']);
    const ranked = convexCombination(bm25, dense, 0.5, 'reciprocal-rank');
    const byId = Object.fromEntries(ranked.map((h) => [h.chunk.id, h]));
    expect(byId.a!.score).toBeCloseTo(0.5 * 1 + 0.5 * (61 / 62), 12);
    expect(byId.b!.score).toBeCloseTo(0.5 * (61 / 62) + 0.5 * 1, 12);
    expect(byId.c!.bm25Norm).toBeCloseTo(61 / 63, 12);
    expect(byId.c!.bm25).toBe(0);
    // A candidate one retriever did not return gets 0 there, below its 50th.
    const only = convexCombination(scored([['a', 1]]), scored([['d', 0.5]]), 0.5, 'reciprocal-rank');
    expect(only.map((h) => h.score)).toEqual([0.5, 0.5]);
  });

  // Hits of files: a.py once at 0.9; b.py twice, at 0.8 and 0.6; c.py once at 0.3.
  const inFiles = (): SearchHit[] =>
    ([['a1', 'a.py', 0.9], ['b1', 'b.py', 0.8], ['b2', 'b.py', 0.6], ['c1', 'c.py', 0.3]] as const).map(([id, path, score]) => ({
      chunk: { ...chunk(id), citation: { path, startLine: 1, endLine: 1 } },
      score,
      bm25: null,
      dense: null,
      bm25Norm: 0,
      denseNorm: 0,
    }));

  it('file evidence: a file that matches twice outranks one that matches once as well; its other hits keep their scores', () => {
    const hits = withFileEvidence(inFiles(), 0.5);
    const byId = Object.fromEntries(hits.map((h) => [h.chunk.id, h.score]));
    expect(byId.b1).toBeCloseTo(0.8 + 0.5 * 0.6, 12); // its file's second hit is a second witness
    expect(byId.b2).toBe(0.6); // not lifted: the list does not fill up with one file's chunks
    expect(byId.a1).toBe(0.9); // alone in its file
    expect(hits.map((h) => h.chunk.id)).toEqual(['b1', 'a1', 'b2', 'c1']);
    // At a smaller λ the single strong match keeps its place: 0.9 > 0.8 + 0.1 × 0.6.
    expect(withFileEvidence(inFiles(), 0.1).map((h) => h.chunk.id)).toEqual(['a1', 'b1', 'b2', 'c1']);
  });

  it('file evidence at λ = 0 leaves the list as it came', () => {
    expect(withFileEvidence(inFiles(), 0)).toEqual(inFiles());
  });
});

describe('percentile (nearest rank)', () => {
  it.each([
    [[5, 1, 3, 2, 4], 0.5, 3], // ⌈2.5⌉ = 3rd smallest
    [[5, 1, 3, 2, 4], 0.95, 5], // ⌈4.75⌉ = 5th
    [[5, 1, 3, 2, 4], 0.2, 1], // ⌈1⌉ = 1st
    [[10, 20, 30, 40], 0.5, 20], // ⌈2⌉ = 2nd
    [[7], 0.99, 7],
  ])('%j at %d = %d', (xs, p, expected) => {
    expect(percentile(xs, p)).toBe(expected);
  });
  it('is NaN without values and leaves the input unsorted', () => {
    expect(percentile([], 0.5)).toBeNaN();
    const xs = [3, 1, 2];
    percentile(xs, 0.5);
    expect(xs).toEqual([3, 1, 2]);
  });
});
