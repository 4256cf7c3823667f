/**
 * At most `concurrency` tasks at a time, started in the order they were submitted (p-limit's
 * contract, without the dependency). `limit(1)` serialises: the local model's single context, a
 * store's writes, a session's store (re)opening. A task that fails does not stop the ones behind it.
 */

export interface Limit {
  /** Runs `task` when a slot is free; settles as the task does. */
  <T>(task: () => Promise<T> | T): Promise<T>;
  /** Resolves once every task submitted so far has settled (never rejects). */
  idle(): Promise<void>;
  /** Tasks running now. */
  readonly active: number;
  /** Tasks waiting for a slot. */
  readonly pending: number;
}

export function limit(concurrency: number): Limit {
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`limit: concurrency must be a positive integer, got ${String(concurrency)}`);
  const waiting: (() => void)[] = [];
  let active = 0;
  const idleWaiters: (() => void)[] = [];

  const next = () => {
    active--;
    const start = waiting.shift();
    if (start) start();
    else if (active === 0) for (const wake of idleWaiters.splice(0)) wake();
  };

  const run = <T>(task: () => Promise<T> | T): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const start = () => {
        active++;
        // A task that throws synchronously settles like one that rejects.
        new Promise<T>((res) => res(task())).then(resolve, reject).finally(next);
      };
      if (active < concurrency) start();
      else waiting.push(start);
    });

  return Object.defineProperties(run, {
    idle: {
      value: (): Promise<void> => (active === 0 && waiting.length === 0 ? Promise.resolve() : new Promise<void>((resolve) => idleWaiters.push(resolve))),
    },
    active: { get: () => active },
    pending: { get: () => waiting.length },
  }) as Limit;
}
