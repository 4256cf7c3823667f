import { describe, expect, it } from 'vitest';
import { FairQueue } from '../pipeline/fairQueue.ts';

/** The model's fair queue: which job runs when, checked by order alone (no clocks). */

interface Recorder {
  queue: FairQueue<string, string>;
  /** Each turn: the payloads run together. */
  turns: string[][];
  /** Lets the running turn finish (when gated). */
  release(): void;
}

function recorder(options: { share?: { budget: number }; gated?: boolean; fail?: (payload: string) => boolean } = {}): Recorder {
  const turns: string[][] = [];
  const gates: (() => void)[] = [];
  const queue = new FairQueue<string, string>({
    async execute(payloads) {
      turns.push(payloads);
      if (options.gated) await new Promise<void>((resolve) => gates.push(resolve));
      const bad = payloads.find((p) => options.fail?.(p));
      if (bad) throw new Error(`cannot run ${bad}`);
      return payloads.map((p) => `done ${p}`);
    },
    // Jobs named BIG… have size 10, others 1.
    ...(options.share ? { canShare: () => true, size: (p: string) => (p.startsWith('BIG') ? 10 : 1), budget: options.share.budget } : {}),
  });
  return { queue, turns, release: () => gates.shift()?.() };
}

const flat = (turns: string[][]) => turns.flat();
/** Lets every pending promise callback run (an ordering point, not a clock). */
const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('FairQueue: turns', () => {
  it('a client with ten jobs waiting delays another client by one job, not ten', async () => {
    const { queue, turns } = recorder();
    const a = Array.from({ length: 10 }, (_, i) => queue.submit('A', `a${i + 1}`, `a${i + 1}`));
    const b = queue.submit('B', 'b1', 'b1');
    await Promise.all([...a, b]);
    // a1 started as it arrived; B arrived while it ran, so B goes next.
    expect(flat(turns)).toEqual(['a1', 'b1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7', 'a8', 'a9', 'a10']);
  });

  it('takes clients in turn, each client’s jobs in the order it sent them', async () => {
    const { queue, turns } = recorder();
    const all = ['A', 'B', 'C'].flatMap((c) => [1, 2, 3].map((i) => queue.submit(c, `${c}${i}`, `${c}${i}`)));
    await Promise.all(all);
    expect(flat(turns)).toEqual(['A1', 'B1', 'C1', 'A2', 'B2', 'C2', 'A3', 'B3', 'C3']);
  });

  it('a client that arrives while another’s job runs goes next, even behind a long line', async () => {
    const { queue, turns, release } = recorder({ gated: true });
    const a = Array.from({ length: 5 }, (_, i) => queue.submit('A', `a${i + 1}`, `a${i + 1}`));
    release(); // a1 done
    await flush();
    expect(flat(turns)).toEqual(['a1', 'a2']); // nobody else waited
    const b = queue.submit('B', 'b1', 'b1');
    release(); // a2 done
    await flush();
    expect(turns.at(-1)).toEqual(['b1']);
    for (let i = 0; i < 4; i++) {
      release();
      await flush();
    }
    await Promise.all([...a, b]);
    expect(flat(turns)).toEqual(['a1', 'a2', 'b1', 'a3', 'a4', 'a5']);
  });

  it('lets small jobs share a turn within the budget: the first of each client in line, then more of theirs', async () => {
    const { queue, turns } = recorder({ share: { budget: 3 } });
    const a = Array.from({ length: 4 }, (_, i) => queue.submit('A', `a${i + 1}`, `a${i + 1}`));
    const b = [queue.submit('B', 'b1', 'b1'), queue.submit('B', 'b2', 'b2')];
    const c = queue.submit('C', 'c1', 'c1');
    expect(await Promise.all([...a, ...b, c])).toEqual(['done a1', 'done a2', 'done a3', 'done a4', 'done b1', 'done b2', 'done c1']);
    expect(turns).toEqual([['a1'], ['b1', 'c1', 'a2'], ['b2', 'a3', 'a4']]);
  });

  it('runs a job bigger than the budget alone: small jobs of others are not held back behind it', async () => {
    const { queue, turns } = recorder({ share: { budget: 4 } });
    const a = ['BIG1', 'BIG2', 'BIG3'].map((k) => queue.submit('A', k, k));
    const b = ['b1', 'b2', 'b3'].map((k) => queue.submit('B', k, k));
    await Promise.all([...a, ...b]);
    expect(turns).toEqual([['BIG1'], ['b1', 'b2', 'b3'], ['BIG2'], ['BIG3']]);
  });

  it('is idle when nothing waits or runs', async () => {
    const { queue, release } = recorder({ gated: true });
    await queue.idle();
    const job = queue.submit('A', 'x', 'x');
    let idle = false;
    const waiting = queue.idle().then(() => (idle = true));
    await flush();
    expect(idle).toBe(false);
    release();
    await job;
    await waiting;
    expect(idle).toBe(true);
  });
});

describe('FairQueue: identical jobs', () => {
  it('runs a job queued by two clients once, at the earlier of their turns, and both get its result', async () => {
    const { queue, turns } = recorder();
    const a = ['a1', 'a2', 'a3', 'a4', 'same'].map((k) => queue.submit('A', k, k));
    const b = queue.submit('B', 'same', 'same');
    const results = await Promise.all([...a, b]);
    expect(flat(turns)).toEqual(['a1', 'same', 'a2', 'a3', 'a4']); // B's turn came first; A's copy is not run again
    expect(results[4]).toBe('done same');
    expect(results[5]).toBe('done same');
  });

  it('shares a running job; the same job sent after it finished runs again', async () => {
    const { queue, turns, release } = recorder({ gated: true });
    const first = queue.submit('A', 'q', 'q');
    const second = queue.submit('B', 'q', 'q');
    release();
    expect(await Promise.all([first, second])).toEqual(['done q', 'done q']);
    expect(turns).toEqual([['q']]);
    const again = queue.submit('B', 'q', 'q');
    release();
    await again;
    expect(turns).toEqual([['q'], ['q']]);
  });
});

describe('FairQueue: failures', () => {
  it('rejects the failing job with its error and runs the others', async () => {
    const { queue, turns } = recorder({ fail: (p) => p === 'bad' });
    const jobs = [queue.submit('A', 'bad', 'bad'), queue.submit('A', 'a2', 'a2'), queue.submit('B', 'b1', 'b1')];
    const settled = await Promise.allSettled(jobs);
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'fulfilled', 'fulfilled']);
    expect((settled[0] as PromiseRejectedResult).reason.message).toBe('cannot run bad');
    expect(flat(turns)).toEqual(['bad', 'b1', 'a2']);
  });

  it('a shared turn that fails is run again job by job: one client’s input fails only its own job', async () => {
    const { queue, turns } = recorder({ share: { budget: 10 }, fail: (p) => p === 'bad' });
    const first = queue.submit('A', 'a1', 'a1');
    const shared = [queue.submit('B', 'bad', 'bad'), queue.submit('C', 'c1', 'c1')];
    const settled = await Promise.allSettled([first, ...shared]);
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(turns).toEqual([['a1'], ['bad', 'c1'], ['bad'], ['c1']]);
  });

  it('keeps going after a turn returns the wrong number of results', async () => {
    let calls = 0;
    const queue = new FairQueue<string, string>({ execute: async (p) => (++calls === 1 ? [] : p) });
    await expect(queue.submit('A', 'x', 'x')).rejects.toThrow(/a turn of 1 jobs returned 0 results/);
    expect(await queue.submit('A', 'y', 'y')).toBe('y');
  });
});
