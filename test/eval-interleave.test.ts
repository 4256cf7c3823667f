import { describe, expect, it } from 'vitest';
import type { EvalQuestion } from '../datasets/questions.ts';
import { collect, medianLatencies, schedule } from '../eval/interleave.ts';
import { compareLatency } from '../eval/latencyCompare.ts';
import { memoizeQueries } from '../eval/queryMemo.ts';
import type { QuestionResult } from '../eval/report/types.ts';
import { median, pairedMedianDiffCI } from '../eval/stats/median.ts';
import type { EvalTarget } from '../eval/target.ts';
import type { Embedder } from '../pipeline/types.ts';

/**
 * Latency you can compare (#13 item 6): A and B share the machine question by question, the one
 * going first alternating, after an uncounted warm-up, each with its own query caches. No timings
 * are asserted: only call orders, counts and the arithmetic of the comparison.
 */

const question = (i: number) => ({ id: `q${i}`, question: `question ${i}` }) as unknown as EvalQuestion;
const fakeTarget = (label: string, log: string[]) => ({ label, resetCaches: () => log.push(`reset ${label}`) }) as unknown as EvalTarget;
const result = (id: string, total: number, extra: Partial<QuestionResult> = {}) => ({ id, latency: { total }, ...extra }) as unknown as QuestionResult;

describe('schedule', () => {
  it('interleaved: per question both targets back to back, the first alternating (AB BA AB …)', () => {
    expect(schedule(4, 2, 'interleaved')).toEqual([[0, 0], [0, 1], [1, 1], [1, 0], [2, 0], [2, 1], [3, 1], [3, 0]]);
  });
  it('sequential: all of A, then all of B (the old order)', () => {
    expect(schedule(2, 2, 'sequential')).toEqual([[0, 0], [1, 0], [0, 1], [1, 1]]);
  });
  it('one target: the questions in order either way', () => {
    expect(schedule(3, 1, 'interleaved')).toEqual([[0, 0], [1, 0], [2, 0]]);
  });
});

describe('collect', () => {
  it('warms each target up uncounted, empties the caches, then interleaves A and B alternating who goes first', async () => {
    const log: string[] = [];
    const targets = [fakeTarget('A', log), fakeTarget('B', log)];
    const questions = [0, 1, 2, 3, 4].map(question);
    const seen: string[] = [];
    const { results, seconds } = await collect(targets, questions, {
      order: 'interleaved',
      warmup: 2,
      indexed: [undefined, undefined],
      evaluate: async (t, q) => {
        log.push(`${t.label} ${q.id}`);
        return result(`${q.id}`, 1);
      },
      onQuestion: (t, done, total, r) => seen.push(`${targets[t]!.label} ${done}/${total} ${r.id}`),
    });
    expect(log).toEqual([
      // warm-up: two questions per target, interleaved too, then both caches emptied
      'A q0', 'B q0', 'B q1', 'A q1',
      'reset A', 'reset B',
      'A q0', 'B q0', 'B q1', 'A q1', 'A q2', 'B q2', 'B q3', 'A q3', 'A q4', 'B q4',
    ]);
    // Per target, results in question order whatever the order they ran in; warm-up runs are not among them.
    expect(results.map((rs) => rs.map((r) => r.id))).toEqual([['q0', 'q1', 'q2', 'q3', 'q4'], ['q0', 'q1', 'q2', 'q3', 'q4']]);
    expect(seen).toHaveLength(10);
    expect(seen.slice(0, 3)).toEqual(['A 1/5 q0', 'B 1/5 q0', 'B 2/5 q1']);
    expect(seconds).toHaveLength(2);
  });

  it('sequential runs all of A before any of B; a warm-up longer than the questions is cut to them', async () => {
    const log: string[] = [];
    const targets = [fakeTarget('A', log), fakeTarget('B', log)];
    await collect(targets, [0, 1].map(question), {
      order: 'sequential',
      warmup: 5,
      indexed: [undefined, undefined],
      evaluate: async (t, q) => {
        log.push(`${t.label} ${q.id}`);
        return result(q.id, 1);
      },
    });
    expect(log).toEqual(['A q0', 'A q1', 'B q0', 'B q1', 'reset A', 'reset B', 'A q0', 'A q1', 'B q0', 'B q1']);
  });
});

describe('collect with questions in flight at once', () => {
  it('keeps at most `concurrency` questions in flight, each with its targets back to back, results in question order', async () => {
    const log: string[] = [];
    const targets = [fakeTarget('A', log), fakeTarget('B', log)];
    const questions = [0, 1, 2, 3, 4, 5].map(question);
    let inFlight = 0;
    let most = 0;
    const order: string[] = [];
    const { results } = await collect(targets, questions, {
      order: 'interleaved',
      warmup: 0,
      concurrency: 2,
      indexed: [undefined, undefined],
      evaluate: async (t, q) => {
        most = Math.max(most, ++inFlight);
        order.push(`${t.label} ${q.id}`);
        // Later questions finish first: completion order must not decide result order.
        await new Promise((r) => setTimeout(r, 10 * (6 - Number(q.id.slice(1)))));
        inFlight--;
        return result(q.id, 1);
      },
    });
    expect(most).toBe(2);
    expect(results.map((rs) => rs.map((r) => r.id))).toEqual([questions.map((q) => q.id), questions.map((q) => q.id)]);
    // Per question, the scheduled order of its targets (AB, BA, …) still holds.
    for (const [i, q] of questions.entries()) {
      const mine = order.filter((o) => o.endsWith(` ${q.id}`));
      expect(mine).toEqual(i % 2 === 0 ? [`A ${q.id}`, `B ${q.id}`] : [`B ${q.id}`, `A ${q.id}`]);
    }
  });
});

describe('collect with repeats', () => {
  it('runs each timed question n times per target, alternating who goes first, and keeps the median latencies', async () => {
    const log: string[] = [];
    const targets = [fakeTarget('A', log), fakeTarget('B', log)];
    const totals: Record<string, number[]> = { A: [30, 10, 20], B: [5, 50, 7] };
    const { results } = await collect(targets, [question(0)], {
      order: 'interleaved',
      warmup: 0,
      repeat: 3,
      indexed: [undefined, undefined],
      evaluate: async (t) => {
        log.push(t.label);
        const total = totals[t.label]!.shift()!;
        return result('q0', total, { metrics: { 'latency.total': total, 'file.acc@1': 1 } });
      },
    });
    expect(log).toEqual(['reset A', 'reset B', 'A', 'B', 'B', 'A', 'A', 'B']);
    expect(results[0]![0]).toMatchObject({ latency: { total: 20 }, metrics: { 'latency.total': 20, 'file.acc@1': 1 }, repeats: 3 });
    expect(results[1]![0]).toMatchObject({ latency: { total: 7 }, metrics: { 'latency.total': 7 }, repeats: 3 });
  });

  it('medianLatencies keeps one run as it is', () => {
    const r = result('q', 12);
    expect(medianLatencies([r])).toBe(r);
  });
});

describe('query caches', () => {
  /** A model that counts the texts it embeds. */
  const countingModel = () => {
    const embedded: string[] = [];
    const model = {
      id: 'fake',
      dims: 2,
      window: 512,
      countTokens: (t: string) => t.length,
      embedPassages: async (ts: string[]) => ts.map(() => new Float32Array(2)),
      embedQueries: async (ts: string[]) => {
        embedded.push(...ts);
        return ts.map(() => new Float32Array(2));
      },
      close: async () => {},
    } as Embedder;
    return { model, embedded };
  };

  it('two memos over one model do not share: a query embedded for A is embedded again for B', async () => {
    const { model, embedded } = countingModel();
    const a = memoizeQueries(model);
    const b = memoizeQueries(model);
    await a.embedQueries(['how?']);
    await a.embedQueries(['how?']);
    await b.embedQueries(['how?']);
    expect(embedded).toEqual(['how?', 'how?']);
    expect([a.hits, a.misses, b.hits, b.misses]).toEqual([1, 1, 0, 1]);
  });

  it('clear() forgets the vectors and the counts (after the warm-up)', async () => {
    const { model, embedded } = countingModel();
    const a = memoizeQueries(model);
    await a.embedQueries(['how?']);
    a.clear();
    expect([a.hits, a.misses]).toEqual([0, 0]);
    await a.embedQueries(['how?']);
    expect(embedded).toEqual(['how?', 'how?']);
  });
});

describe('compareLatency', () => {
  it('pairs by id, leaves out failed questions and the judge’s time, and gives the median of the differences', () => {
    const a = [result('q1', 100), result('q2', 200, { latency: { total: 260, judge: 60 } }), result('q3', 300), result('q4', 50, { error: 'boom' })];
    const b = [result('q3', 330), result('q1', 110), result('q2', 220), result('q4', 10)];
    const c = compareLatency(a, b, { seed: 's', bootstrap: 200, permutations: 10 }, { order: 'interleaved', warmup: 3 })!;
    expect(c.n).toBe(3);
    expect([c.medianA, c.medianB, c.medianDiff]).toEqual([200, 220, 20]);
    expect(c.relative).toBeCloseTo(0.1);
    expect(c.low).toBeGreaterThanOrEqual(10);
    expect(c.high).toBeLessThanOrEqual(30);
    expect(c.significant).toBe(true);
    expect(c.order).toBe('interleaved');
  });

  it('differences of both signs around zero are not significant', () => {
    const a = [1, 2, 3, 4, 5, 6, 7, 8].map((i) => result(`q${i}`, 100));
    const b = [1, 2, 3, 4, 5, 6, 7, 8].map((i) => result(`q${i}`, i % 2 ? 90 : 110));
    const c = compareLatency(a, b, { seed: 's', bootstrap: 500, permutations: 10 }, { order: 'interleaved', warmup: 0 })!;
    expect(c.low).toBeLessThan(0);
    expect(c.high).toBeGreaterThan(0);
    expect(c.significant).toBe(false);
  });

  it('a question without a total on either side is left out, not an error', () => {
    const untimed = { ...result('q2', 0), latency: {} } as QuestionResult;
    const c = compareLatency([result('q1', 100), untimed], [result('q1', 120), result('q2', 5)], { seed: 's', bootstrap: 50, permutations: 10 }, { order: 'separate', warmup: 0 })!;
    expect(c.n).toBe(1);
    expect(c.medianDiff).toBe(20);
  });

  it('no pairs: undefined', () => {
    expect(compareLatency([result('q1', 1)], [result('q2', 1)], { seed: 's', bootstrap: 10, permutations: 10 }, { order: 'sequential', warmup: 0 })).toBeUndefined();
  });
});

describe('pairedMedianDiffCI', () => {
  it('median of even and odd lists; empty is NaN', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
    expect(median([])).toBeNaN();
    expect(pairedMedianDiffCI([], []).n).toBe(0);
  });
  it('is the median of the per-question differences, not the difference of the medians', () => {
    // medians 2 and 2, but the per-question differences are 0, 0, 3 … median 0
    const ci = pairedMedianDiffCI([1, 2, 3], [1, 2, 6], { iterations: 100 });
    expect(ci.medianDiff).toBe(0);
    expect(ci.medianB - ci.medianA).toBe(0);
  });
});
