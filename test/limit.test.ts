import { describe, expect, it } from 'vitest';
import { limit } from '../pipeline/limit.ts';

/** The one concurrency helper (local model, Elasticsearch writes, session store opening): checked by order and counts, no clocks. */

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

describe('limit', () => {
  it('runs at most n tasks at once, starting them in the order they were submitted', async () => {
    const run = limit(2);
    const gates = [gate(), gate(), gate(), gate()];
    const started: number[] = [];
    let peak = 0;
    const results = gates.map((g, i) =>
      run(async () => {
        started.push(i);
        peak = Math.max(peak, run.active);
        await g.opened;
        return i * 10;
      }),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    expect(run.pending).toBe(2);
    gates[1]!.open();
    await results[1];
    await Promise.resolve();
    expect(started).toEqual([0, 1, 2]);
    for (const g of gates) g.open();
    expect(await Promise.all(results)).toEqual([0, 10, 20, 30]);
    expect(peak).toBe(2);
    expect(run.active).toBe(0);
  });

  it('limit(1) serialises, and a failed task (thrown or rejected) does not stop the next', async () => {
    const run = limit(1);
    const order: string[] = [];
    const a = run(async () => {
      order.push('a');
      throw new Error('a failed');
    });
    const b = run(() => {
      order.push('b');
      throw new Error('b failed');
    });
    const c = run(async () => {
      order.push('c');
      return 'c done';
    });
    await expect(a).rejects.toThrow('a failed');
    await expect(b).rejects.toThrow('b failed');
    expect(await c).toBe('c done');
    expect(order).toEqual(['a', 'b', 'c']);
  });

  it('idle() waits for every task submitted so far, failed ones included, and never rejects', async () => {
    const run = limit(1);
    await run.idle();
    const g = gate();
    const done: string[] = [];
    void run(async () => {
      await g.opened;
      done.push('first');
    });
    void run(async () => {
      done.push('second');
      throw new Error('second failed');
    }).catch(() => undefined);
    const idle = run.idle().then(() => done.push('idle'));
    g.open();
    await idle;
    expect(done).toEqual(['first', 'second', 'idle']);
  });

  it('refuses a concurrency that is not a positive integer', () => {
    expect(() => limit(0)).toThrow(/positive integer/);
    expect(() => limit(1.5)).toThrow(/positive integer/);
  });
});
