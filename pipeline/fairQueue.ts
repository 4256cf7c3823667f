/**
 * One shared resource (the model engine, one call at a time), many clients: clients take turns
 * (round robin), and each client's own jobs run in the order it sent them. A client that sends a
 * hundred jobs delays another client's next job by at most one turn, not by a hundred jobs.
 *
 * - A turn runs the first waiting job of the client whose turn it is. Small jobs share a turn (the
 *   engine embeds short texts together in far less time than one by one): the first jobs of the
 *   clients next in line, then more of the same clients' jobs, while `canShare` allows and their
 *   total `size` stays within `budget`. A job bigger than the budget runs alone, so a turn never
 *   costs much more than one big job.
 * - Clients served in a turn go to the back of the line when it ends, so a client that arrives while
 *   another's job runs goes next.
 * - Identical jobs (same key) queued or running share one run and one result; a client whose line
 *   holds a job another client sent first can run it at its own turn.
 * - A shared turn that fails is run again one job at a time, so one client's input fails only its own job.
 */

export interface FairQueueOptions<P, R> {
  /** Runs one turn: results in the order of `payloads`. */
  execute(payloads: P[]): Promise<R[]>;
  /** Whether `other` may run in the same call as `first`; default: never. */
  canShare?(first: P, other: P): boolean;
  /** A job's size, for the budget of a shared turn; default 1. */
  size?(payload: P): number;
  /** Largest total size of a shared turn; default no limit. */
  budget?: number;
  /** Most jobs in one turn; default no limit. */
  maxShare?: number;
}

interface Job<P, R> {
  key: string;
  payload: P;
  started: boolean;
  promise: Promise<R>;
  resolve(value: R): void;
  reject(err: unknown): void;
}

export class FairQueue<P, R> {
  /** Each client's waiting jobs, oldest first (a job already started for another client is skipped). */
  private readonly lines = new Map<string, Job<P, R>[]>();
  /** Clients with waiting jobs, whose turn is next first. */
  private readonly order: string[] = [];
  /** Clients served in the running turn: back in `order` when it ends. */
  private readonly serving = new Set<string>();
  /** Queued or running jobs by key. */
  private readonly byKey = new Map<string, Job<P, R>>();
  private running = false;
  private idleWaiters: (() => void)[] = [];

  constructor(private readonly options: FairQueueOptions<P, R>) {}

  /** Runs `payload` for `client` in its turn; a job with the same key queued or running is shared. */
  submit(client: string, key: string, payload: P): Promise<R> {
    const same = this.byKey.get(key);
    if (same) {
      if (!same.started) this.enlist(client, same);
      return same.promise;
    }
    let resolve!: (value: R) => void;
    let reject!: (err: unknown) => void;
    const promise = new Promise<R>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    const job: Job<P, R> = { key, payload, started: false, promise, resolve, reject };
    this.byKey.set(key, job);
    this.enlist(client, job);
    void this.pump();
    return promise;
  }

  /** Resolves when no job is waiting or running. */
  idle(): Promise<void> {
    if (!this.running && this.order.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private enlist(client: string, job: Job<P, R>): void {
    let line = this.lines.get(client);
    if (!line) this.lines.set(client, (line = []));
    if (line.includes(job)) return;
    line.push(job);
    if (!this.serving.has(client) && !this.order.includes(client)) this.order.push(client);
  }

  /** The client's oldest job not started yet (for another client); drops the started ones. */
  private head(client: string): Job<P, R> | undefined {
    const line = this.lines.get(client);
    while (line?.length && line[0]!.started) line.shift();
    if (!line?.length) {
      this.lines.delete(client);
      return undefined;
    }
    return line[0];
  }

  private nextTurn(): Job<P, R>[] {
    const { canShare, size = () => 1, budget = Infinity, maxShare = Infinity } = this.options;
    const jobs: Job<P, R>[] = [];
    let total = 0;
    const fits = (job: Job<P, R>) =>
      jobs.length === 0 || (jobs.length < maxShare && (canShare?.(jobs[0]!.payload, job.payload) ?? false) && total + size(job.payload) <= budget);
    const take = (client: string, job: Job<P, R>) => {
      this.lines.get(client)!.shift();
      job.started = true;
      jobs.push(job);
      total += size(job.payload);
    };
    // The first job of each client in line, in turn order, while they fit.
    while (this.order.length) {
      const client = this.order[0]!;
      const job = this.head(client);
      if (!job) {
        this.order.shift();
        continue;
      }
      if (!fits(job)) break;
      this.order.shift();
      this.serving.add(client);
      take(client, job);
    }
    // Room left: more jobs of the clients served, one each per round.
    for (let more = jobs.length > 0; more; ) {
      more = false;
      for (const client of this.serving) {
        const job = this.head(client);
        if (job && fits(job)) {
          take(client, job);
          more = true;
        }
      }
    }
    return jobs;
  }

  private async pump(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      for (let jobs = this.nextTurn(); jobs.length; jobs = this.nextTurn()) {
        await this.run(jobs);
        for (const client of this.serving) if (this.head(client)) this.order.push(client);
        this.serving.clear();
      }
    } finally {
      this.running = false;
      for (const wake of this.idleWaiters.splice(0)) wake();
    }
  }

  private async run(jobs: Job<P, R>[]): Promise<void> {
    try {
      const results = await this.execute(jobs.map((j) => j.payload));
      this.settle(jobs, (j, i) => j.resolve(results[i]!));
    } catch (err) {
      if (jobs.length === 1) this.settle(jobs, (j) => j.reject(err));
      else for (const job of jobs) await this.run([job]);
    }
  }

  private async execute(payloads: P[]): Promise<R[]> {
    const results = await this.options.execute(payloads);
    if (results.length !== payloads.length) throw new Error(`fair queue: a turn of ${payloads.length} jobs returned ${results.length} results`);
    return results;
  }

  private settle(jobs: Job<P, R>[], fn: (job: Job<P, R>, i: number) => void): void {
    jobs.forEach((job, i) => {
      if (this.byKey.get(job.key) === job) this.byKey.delete(job.key);
      fn(job, i);
    });
  }
}
