import { describe, expect, it } from 'vitest';
import { topK } from '../pipeline/store/topK.ts';
import type { ScoredChunk } from '../pipeline/types.ts';

/** An engine's top-n: best scores first, ties in its own (insertion) order, here the reverse of id order. */
function engine(scores: Record<string, number>) {
  const asked: number[] = [];
  const rows = Object.entries(scores)
    .map(([id, score]) => ({ chunk: { id } as ScoredChunk['chunk'], score }))
    .sort((a, b) => b.score - a.score || (a.chunk.id < b.chunk.id ? 1 : -1));
  return { asked, search: (n: number) => (asked.push(n), rows.slice(0, n)) };
}
const ids = (r: { hits: ScoredChunk[] }) => r.hits.map((h) => h.chunk.id);

describe('topK', () => {
  it('asks for k + 1 and stops when the next hit scores lower', async () => {
    const e = engine({ a: 3, b: 2, c: 2, d: 1 });
    expect(ids(await topK(e.search, 1, 100))).toEqual(['a']);
    expect(e.asked).toEqual([2]);
  });

  it('asks for more while the tie at the cut goes on, then takes the smallest ids', async () => {
    const e = engine({ a: 9, t5: 1, t4: 1, t3: 1, t2: 1, t1: 1, z: 0 });
    const r = await topK(e.search, 3, 100);
    expect(ids(r)).toEqual(['a', 't1', 't2']);
    expect(r.complete).toBe(true);
    expect(e.asked).toEqual([4, 8]);
  });

  it('says when a tie still crosses the cut at the engine maximum', async () => {
    const e = engine({ t1: 1, t2: 1, t3: 1, t4: 1, t5: 1 });
    expect((await topK(e.search, 2, 4)).complete).toBe(false);
    // Fewer hits than asked: all of them are in hand.
    expect((await topK(e.search, 2, 6)).complete).toBe(true);
    expect(ids(await topK(e.search, 2, 6))).toEqual(['t1', 't2']);
  });
});
