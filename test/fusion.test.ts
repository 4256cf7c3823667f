import { describe, expect, it } from 'vitest';
import { FUSERS, fuse, type FusionResult } from '../pipeline/retrieval/fusion/index.ts';
import { collectionFits, largestRemainder, proportionalSlots } from '../pipeline/retrieval/fusion/proportional.ts';
import { reciprocalRankFusion } from '../pipeline/retrieval/fusion/rrf.ts';
import { COLLECTIONS, type Collection, type SearchHit } from '../pipeline/types.ts';
import { mulberry32 } from './support/prng.ts';

/** `[score, dense, bm25]` per hit; ids are `<collection>-<rank>`. */
type Row = [number, number | null, number | null];

const hit = (collection: Collection, id: string, [score, dense, bm25]: Row): SearchHit => ({
  chunk: { id, collection, text: id, title: id, citation: { path: `${id}.txt`, startLine: 1, endLine: 1 }, tokens: 1 },
  score,
  bm25,
  dense,
  bm25Norm: 0,
  denseNorm: 0,
});

const lists = (rows: Partial<Record<Collection, Row[]>>): Record<Collection, SearchHit[]> =>
  Object.fromEntries(COLLECTIONS.map((c) => [c, (rows[c] ?? []).map((r, i) => hit(c, `${c}-${i + 1}`, r))])) as Record<
    Collection,
    SearchHit[]
  >;

const w = (docs: number, code: number, issues: number): Record<Collection, number> => ({ docs, code, issues });
const EQUAL = w(1, 1, 1);
const slotsOf = (r: FusionResult): [number, number, number] => [r.slots.docs, r.slots.code, r.slots.issues];
const ids = (r: FusionResult): string[] => r.ranked.map((h) => h.chunk.id);

/**
 * Dense only, in the e5 band. Top-3 means: docs 0.86, code 0.79, issues 0.82; the query's range is
 * [0.78, 0.88], so fits are docs (0.86−0.78)/0.10 = 0.8, code 0.01/0.10 = 0.1, issues 0.04/0.10 = 0.4.
 * Code sits at the bottom of the range: nothing relevant there.
 */
const LESSON2 = lists({
  docs: [[1, 0.88, null], [0.9, 0.86, null], [0.6, 0.84, null], [0.3, 0.8, null], [0, 0.79, null]],
  code: [[1, 0.8, null], [0.5, 0.79, null], [0.2, 0.78, null], [0.1, 0.78, null], [0, 0.78, null]],
  issues: [[1, 0.84, null], [0.7, 0.82, null], [0.4, 0.8, null], [0.2, 0.79, null], [0, 0.78, null]],
});

describe('proportionalSlots', () => {
  it('gives an irrelevant collection zero slots where RRF gives it its quota (DESIGN lesson 2)', () => {
    const p = proportionalSlots(LESSON2, EQUAL, 6);
    expect(p.fit.docs).toBeCloseTo((0.86 - 0.78) / (0.88 - 0.78), 12);
    expect(p.fit.code).toBeCloseTo((0.79 - 0.78) / (0.88 - 0.78), 12);
    expect(p.fit.issues).toBeCloseTo((0.82 - 0.78) / (0.88 - 0.78), 12);
    // code: 0.1 < minFit 0.15 → 0; docs 6·0.8/(0.8+0.4) = 4, issues 6·0.4/1.2 = 2
    expect(slotsOf(p)).toEqual([4, 0, 2]);
    expect(slotsOf(reciprocalRankFusion(LESSON2, EQUAL, 6))).toEqual([2, 2, 2]);
  });

  it('interleaves by score × fit × weight and numbers slots within each collection', () => {
    const p = proportionalSlots(LESSON2, EQUAL, 6);
    // docs 1·0.8, 0.9·0.8 = 0.72, 0.6·0.8 = 0.48, 0.3·0.8 = 0.24; issues 1·0.4, 0.7·0.4 = 0.28
    expect(ids(p)).toEqual(['docs-1', 'docs-2', 'docs-3', 'issues-1', 'issues-2', 'docs-4']);
    expect(p.ranked.map((h) => h.fused)).toEqual([0.8, 0.72, 0.48, 0.4, 0.28, 0.24].map((v) => expect.closeTo(v, 12)));
    expect(p.ranked.map((h) => `${h.collection}:${h.slot}`)).toEqual(['docs:1', 'docs:2', 'docs:3', 'issues:1', 'issues:2', 'docs:4']);
    expect(p.ranked[0]!.dense).toBe(0.88); // components travel with the hit
    expect(p.method).toBe('proportional');
  });

  it.each<[string, Record<Collection, number>, [number, number, number]]>([
    // shares docs 0.8, issues 0.4·½ = 0.2: quotas 6·0.8/1.0 = 4.8 → 4, 6·0.2/1.0 = 1.2 → 1; remainder to docs (.8 > .2)
    ['issues halved', w(1, 1, 0.5), [5, 0, 1]],
    // shares docs 0.8·¼ = 0.2, issues 0.4: quotas 6·0.2/0.6 = 2, 6·0.4/0.6 = 4
    ['docs quartered', w(0.25, 1, 1), [2, 0, 4]],
    // a weight cannot rescue code: its fit 0.1 is below minFit whatever the weight
    ['code favoured ×10', w(0.1, 1, 0.1), [4, 0, 2]],
    // weight 0 means "not this collection": issues gets nothing, docs takes what it can
    ['issues weight 0', w(1, 1, 0), [5, 0, 0]],
  ])('router weights shift slots: %s', (_name, weights, expected) => {
    const p = proportionalSlots(LESSON2, weights, 6);
    expect(slotsOf(p)).toEqual(expected);
    expect(p.fit.docs).toBeCloseTo(0.8, 12); // fit is measured before the weight
  });

  it('with minFit 0 every collection with hits shares the slots', () => {
    // shares 0.8, 0.1, 0.4 (sum 1.3): quotas 6·0.8/1.3 = 3.69, 6·0.1/1.3 = 0.46, 6·0.4/1.3 = 1.85
    // floors 3, 0, 1 (sum 4); remainders .85 (issues), .69 (docs) take the 2 left
    expect(slotsOf(proportionalSlots(LESSON2, EQUAL, 6, { minFit: 0 }))).toEqual([4, 0, 2]);
    // k = 9: quotas 5.54, 0.69, 2.77 → floors 5, 0, 2; remainders .77 (issues), .69 (code)
    expect(slotsOf(proportionalSlots(LESSON2, EQUAL, 9, { minFit: 0 }))).toEqual([5, 1, 3]);
  });

  it('measures BM25 against the query max, and a strong exact-term match keeps a collection in', () => {
    const mixed = lists({
      docs: [[1, 0.88, 3], [0.5, 0.86, 3], [0, 0.84, 3]],
      code: [[1, 0.8, 30], [0.5, 0.79, 15], [0, 0.78, 0]],
    });
    const fits = collectionFits(mixed);
    // dense: docs 0.8, code 0.1; bm25 over max 30: docs 3/30 = 0.1, code mean(30, 15, 0)/30 = 0.5
    expect(fits.docs.dense).toBeCloseTo(0.8, 12);
    expect(fits.docs.bm25).toBeCloseTo(0.1, 12);
    expect(fits.code.bm25).toBeCloseTo(0.5, 12);
    expect(fits.docs.fit).toBeCloseTo(0.5 * 0.8 + 0.5 * 0.1, 12);
    expect(fits.code.fit).toBeCloseTo(0.5 * 0.1 + 0.5 * 0.5, 12);
    expect(fits.issues).toEqual({ dense: 0, bm25: 0, fit: 0 });
    // shares 0.45, 0.3: quotas 4·0.45/0.75 = 2.4 → 2, 4·0.3/0.75 = 1.6 → 1 + remainder
    expect(slotsOf(proportionalSlots(mixed, EQUAL, 4))).toEqual([2, 2, 0]);
    // dense alone (bm25Weight 0): code 0.1 < 0.15 → docs takes what it has
    expect(slotsOf(proportionalSlots(mixed, EQUAL, 4, { bm25Weight: 0 }))).toEqual([3, 0, 0]);
  });

  it('uses BM25 alone when no hit has a dense score', () => {
    const bm25Only = lists({
      docs: [[1, null, 12], [0.8, null, 9], [0.6, null, 6], [0.4, null, 3], [0.2, null, 2], [0, null, 1]],
      code: [[1, null, 3], [0.5, null, 1.5], [0.2, null, 1.5], [0, null, 1]],
    });
    const p = proportionalSlots(bm25Only, EQUAL, 5);
    // docs mean(12, 9, 6)/12 = 0.75; code mean(3, 1.5, 1.5)/12 = 2/12
    expect(p.fit.docs).toBeCloseTo(9 / 12, 12);
    expect(p.fit.code).toBeCloseTo(2 / 12, 12);
    // quotas 5·0.75/(0.75+2/12) = 4.09 → 4, 5·(2/12)/(0.75+2/12) = 0.91 → 0 + the remainder
    expect(slotsOf(p)).toEqual([4, 1, 0]);
    expect(collectionFits(bm25Only).docs.dense).toBeNull();
  });

  it('never gives a collection more slots than it has hits: the rest goes to the others', () => {
    const short = lists({
      docs: [[1, 0.88, null], [0, 0.86, null]],
      issues: [[1, 0.84, null], [0.8, 0.82, null], [0.6, 0.8, null], [0.4, 0.79, null], [0.2, 0.78, null], [0, 0.78, null]],
    });
    const p = proportionalSlots(short, EQUAL, 6);
    // docs mean(0.88, 0.86) → 0.9, issues 0.4: docs quota 6·0.9/1.3 = 4.15 > 2 hits → 2, issues the other 4
    expect(p.fit.docs).toBeCloseTo(0.9, 12);
    expect(slotsOf(p)).toEqual([2, 0, 4]);
  });

  it.each<[string, Partial<Record<Collection, Row[]>>, number, [number, number, number]]>([
    ['all lists empty', {}, 6, [0, 0, 0]],
    ['k = 0', { docs: [[1, 0.9, 1]] }, 0, [0, 0, 0]],
    ['a single collection takes every slot it can fill', { code: [[1, 0.9, 5], [0.5, 0.85, 2], [0, 0.8, 1]] }, 6, [0, 3, 0]],
    ['a single hit', { issues: [[1, 0.83, null]] }, 6, [0, 0, 1]],
    // equal similarities everywhere: nothing tells the collections apart, so the split is even
    ['all fits equal', { docs: [[1, 0.8, null], [0, 0.8, null]], code: [[1, 0.8, null], [0, 0.8, null]], issues: [[1, 0.8, null], [0, 0.8, null]] }, 4, [2, 1, 1]],
    ['no dense and no BM25 scores at all', { docs: [[1, null, null]], code: [[1, null, null]] }, 2, [1, 1, 0]],
    ['dense-only run', { docs: [[1, 0.88, null]], code: [[1, 0.78, null]] }, 2, [1, 0, 0]],
  ])('edge case: %s', (_name, rows, k, expected) => {
    const p = proportionalSlots(lists(rows), EQUAL, k);
    expect(slotsOf(p)).toEqual(expected);
    expect(p.ranked).toHaveLength(expected[0] + expected[1] + expected[2]);
  });

  it.each<[string, () => unknown, string]>([
    ['k negative', () => proportionalSlots(LESSON2, EQUAL, -1), 'k must be a whole number'],
    ['k fractional', () => proportionalSlots(LESSON2, EQUAL, 2.5), 'got 2.5'],
    ['minFit above 1', () => proportionalSlots(LESSON2, EQUAL, 6, { minFit: 2 }), 'minFit must be in [0, 1]'],
    ['top 0', () => proportionalSlots(LESSON2, EQUAL, 6, { top: 0 }), 'top must be'],
    ['weight NaN', () => proportionalSlots(LESSON2, w(1, Number.NaN, 1), 6), 'weight of code'],
  ])('refuses %s', (_name, call, message) => {
    expect(call).toThrow(message);
  });
});

describe('largestRemainder (Hamilton)', () => {
  const caps10 = w(10, 10, 10);
  it.each<[string, Record<Collection, number>, Record<Collection, number>, number, [number, number, number]]>([
    // 4/3 each → floors 1, 1, 1; the one left goes to docs (equal remainders and shares: order)
    ['equal shares', w(1, 1, 1), caps10, 4, [2, 1, 1]],
    // 3.5, 2.1, 1.4 → 3, 2, 1; remainder to docs (.5 > .4 > .1)
    ['one left over', w(0.5, 0.3, 0.2), caps10, 7, [4, 2, 1]],
    // 3, 1.5, 0.5 → 3, 1, 0; remainders tie at .5: the larger share (code) wins
    ['tied remainders', w(0.6, 0.3, 0.1), caps10, 5, [3, 2, 0]],
    // docs 5·0.9 = 4.5 > cap 1 → 1; the 4 left split 0.05 : 0.05 → 2, 2
    ['a cap binds', w(0.9, 0.05, 0.05), w(1, 10, 10), 5, [1, 2, 2]],
    // code 3·0.8/1.0 = 2.4 > cap 2 → 2; then docs 1·0.1/0.2 = 0.5 and issues 0.5 → docs by order
    ['caps bind in turn', w(0.1, 0.8, 0.1), w(10, 2, 10), 3, [1, 2, 0]],
    ['all shares 0: equal split', w(0, 0, 0), w(3, 3, 3), 3, [1, 1, 1]],
    // cap 0 takes nothing: 3 over code and issues → 1.5, 1.5 → 1, 1 + remainder to code
    ['cap 0', w(1, 1, 1), w(0, 5, 5), 3, [0, 2, 1]],
    ['total 0', w(1, 1, 1), caps10, 0, [0, 0, 0]],
    ['total = capacity', w(0.7, 0.2, 0.1), w(1, 2, 3), 6, [1, 2, 3]],
  ])('%s', (_name, share, caps, total, expected) => {
    const s = largestRemainder(share, caps, total);
    expect([s.docs, s.code, s.issues]).toEqual(expected);
  });

  it('refuses more slots than hits', () => {
    expect(() => largestRemainder(w(1, 1, 1), w(1, 1, 1), 4)).toThrow('4 slots but only 3 hits');
  });
});

describe('reciprocalRankFusion', () => {
  it('ties rank for rank across collections: a quota of 2 each at k = 6', () => {
    const r = reciprocalRankFusion(LESSON2, EQUAL, 6);
    expect(ids(r)).toEqual(['docs-1', 'code-1', 'issues-1', 'docs-2', 'code-2', 'issues-2']);
    expect(r.ranked.map((h) => h.fused)).toEqual([1 / (60 + 1), 1 / (60 + 1), 1 / (60 + 1), 1 / (60 + 2), 1 / (60 + 2), 1 / (60 + 2)]);
    expect(r.ranked.map((h) => h.slot)).toEqual([1, 1, 1, 2, 2, 2]);
    expect(r.fit).toEqual({ docs: 1, code: 1, issues: 1 });
    expect(r.method).toBe('rrf');
  });

  it('at k = 5 the rank-2 tie goes by collection order', () => {
    expect(slotsOf(reciprocalRankFusion(LESSON2, EQUAL, 5))).toEqual([2, 2, 1]);
  });

  it('weights each list: w / (k0 + rank)', () => {
    const r = reciprocalRankFusion(
      lists({ docs: LESSON2.docs.map(() => [1, null, null]), code: [[1, null, null], [1, null, null], [1, null, null]], issues: LESSON2.issues.map(() => [1, null, null]) }),
      w(0.5, 1, 0.5),
      6,
    );
    // code 1/61, 1/62, 1/63 all beat 0.5/61 = 1/122; then docs-1 and issues-1 (0.5/61 each), docs-2 (0.5/62)
    expect(ids(r)).toEqual(['code-1', 'code-2', 'code-3', 'docs-1', 'issues-1', 'docs-2']);
    expect(r.ranked[3]!.fused).toBeCloseTo(0.5 / (60 + 1), 15);
    expect(slotsOf(r)).toEqual([2, 3, 1]);
  });

  it('sums over the lists that hold a chunk, and honours k0', () => {
    const shared = lists({ docs: [[1, null, null]], code: [[1, null, null], [1, null, null]] });
    shared.code[1] = { ...shared.docs[0]! }; // docs-1 is also code's rank 2
    const r = reciprocalRankFusion(shared, EQUAL, 10);
    expect(r.ranked[0]!.chunk.id).toBe('docs-1');
    expect(r.ranked[0]!.fused).toBeCloseTo(1 / (60 + 1) + 1 / (60 + 2), 15);
    expect(r.ranked[0]!.collection).toBe('docs'); // where it ranks best
    expect(r.ranked).toHaveLength(2);
    expect(reciprocalRankFusion(shared, EQUAL, 10, { k0: 0 }).ranked[0]!.fused).toBeCloseTo(1 / 1 + 1 / 2, 15);
  });

  it('gives an empty collection fit 0 and nothing else', () => {
    const r = reciprocalRankFusion(lists({ docs: [[1, null, null]] }), EQUAL, 3);
    expect(r.fit).toEqual({ docs: 1, code: 0, issues: 0 });
    expect(slotsOf(r)).toEqual([1, 0, 0]);
  });
});

describe('fuse and FUSERS', () => {
  it('is a registry of named fusers', () => {
    expect(Object.keys(FUSERS).sort()).toEqual(['proportional', 'rrf']);
    expect(fuse('proportional', LESSON2, EQUAL, 6)).toEqual(proportionalSlots(LESSON2, EQUAL, 6));
    expect(fuse('rrf', LESSON2, EQUAL, 6, { k0: 10 })).toEqual(reciprocalRankFusion(LESSON2, EQUAL, 6, { k0: 10 }));
    expect(fuse('proportional', LESSON2, EQUAL, 6, { minFit: 0 }).slots.code).toBe(0);
  });

  it('treats a missing collection as an empty one and an undefined option as unset', () => {
    const partial = { docs: LESSON2.docs, issues: LESSON2.issues }; // code not searched
    const options = { minFit: undefined, k0: undefined };
    expect(slotsOf(fuse('proportional', partial, EQUAL, 6, options))).toEqual([4, 0, 2]);
    expect(slotsOf(fuse('rrf', partial, EQUAL, 6, options))).toEqual([3, 0, 3]);
    expect(fuse('rrf', partial, EQUAL, 1, options).ranked[0]!.fused).toBe(1 / (60 + 1));
  });

  it.each(['bogus', 'toString', ''])('refuses the unknown method %j and lists the supported ones', (method) => {
    expect(() => fuse(method, LESSON2, EQUAL, 6)).toThrow(`unknown fusion method ${JSON.stringify(method)}; supported: proportional, rrf`);
  });
});


describe('properties over random inputs (seed 20240611)', () => {
  const rand = mulberry32(20240611);
  const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const cases = Array.from({ length: 300 }, () => {
    const dense = rand() < 0.8;
    const bm25 = rand() < 0.8;
    const rows: Partial<Record<Collection, Row[]>> = {};
    for (const c of COLLECTIONS) {
      const n = pick([0, 0, 1, 2, 3, 5, 8]);
      rows[c] = Array.from({ length: n }, (_, i): Row => [
        1 - i / Math.max(1, n),
        dense && rand() < 0.9 ? 0.75 + rand() * 0.15 : null,
        bm25 && rand() < 0.7 ? rand() * 20 : null,
      ]);
    }
    const weights = w(pick([0.1, 0.5, 1, 1, 1]), pick([0.1, 0.5, 1, 1, 1]), pick([0.1, 0.5, 1, 1, 1]));
    return { l: lists(rows), weights, k: Math.floor(rand() * 13), minFit: pick([0, 0.15, 0.3, 0.5]) };
  });

  const check = (r: FusionResult, l: Record<Collection, SearchHit[]>) => {
    for (const c of COLLECTIONS) {
      expect(Number.isInteger(r.slots[c]) && r.slots[c] >= 0).toBe(true);
      expect(r.slots[c]).toBeLessThanOrEqual(l[c].length);
      expect(r.ranked.filter((h) => h.collection === c).map((h) => h.slot)).toEqual(Array.from({ length: r.slots[c] }, (_, i) => i + 1));
    }
    expect(r.ranked).toHaveLength(COLLECTIONS.reduce((s, c) => s + r.slots[c], 0));
    r.ranked.slice(1).forEach((h, i) => expect(h.fused).toBeLessThanOrEqual(r.ranked[i]!.fused));
  };
  const hits = (l: Record<Collection, SearchHit[]>, only: (c: Collection) => boolean = () => true) =>
    COLLECTIONS.filter(only).reduce((s, c) => s + l[c].length, 0);

  it('proportional: slots are whole, within each list, and fill min(k, hits of the collections that fit)', () => {
    for (const { l, weights, k, minFit } of cases) {
      const r = proportionalSlots(l, weights, k, { minFit });
      check(r, l);
      const sum = COLLECTIONS.reduce((s, c) => s + r.slots[c], 0);
      expect(sum).toBe(Math.min(k, hits(l, (c) => r.fit[c] >= minFit)));
      for (const c of COLLECTIONS) if (r.fit[c] < minFit) expect(r.slots[c]).toBe(0);
      // with minFit 0 every hit is available: min(k, total hits)
      const all = proportionalSlots(l, weights, k, { minFit: 0 });
      expect(COLLECTIONS.reduce((s, c) => s + all.slots[c], 0)).toBe(Math.min(k, hits(l)));
      // with the defaults some collection always gets slots (see PROPORTIONAL_DEFAULTS)
      if (k > 0 && hits(l) > 0) expect(proportionalSlots(l, weights, k).ranked.length).toBeGreaterThan(0);
    }
  });

  it('Hamilton: when no cap binds, every collection is within one slot of its exact quota', () => {
    for (const { weights, k } of cases) {
      const caps = w(100, 100, 100);
      const s = largestRemainder(weights, caps, k);
      const sum = weights.docs + weights.code + weights.issues;
      for (const c of COLLECTIONS) expect(Math.abs(s[c] - (k * weights[c]) / sum)).toBeLessThan(1);
      expect(s.docs + s.code + s.issues).toBe(k);
    }
  });

  it('rrf: slots fill min(k, total hits) and the list is sorted by fused score', () => {
    for (const { l, weights, k } of cases) {
      const r = reciprocalRankFusion(l, weights, k);
      check(r, l);
      expect(r.ranked).toHaveLength(Math.min(k, hits(l)));
    }
  });
});
