import { randomUUID } from 'node:crypto';
import type { IndexSummary } from '../pipeline/index/indexer.ts';
import { indexInstance } from '../pipeline/index/indexInstance.ts';
import { IndexBusyError, readLockHolder } from '../pipeline/index/indexLock.ts';
import { asClient, type Sessions } from '../pipeline/session.ts';
import { COLLECTIONS, type Collection } from '../pipeline/types.ts';

/**
 * Background index runs, one per instance at a time. A run changes the store in one final
 * transaction, so readers keep answering from the old index until the new one is complete. Runs take
 * the instance's index lock like `cita index` does: while a CLI run holds it, a job is refused.
 */

export interface Job {
  id: string;
  instance: string;
  sources: Collection[];
  state: 'running' | 'succeeded' | 'failed';
  /** Built beside the old index and swapped in when complete. */
  rebuild: boolean;
  phase?: string;
  done: number;
  total: number;
  startedAt: string;
  finishedAt?: string;
  error?: string;
  summary?: IndexSummary;
  promise: Promise<void>;
}

export class JobAlreadyRunningError extends Error {
  constructor(readonly job: Job) {
    super(`instance "${job.instance}" is already being indexed by job ${job.id}`);
  }
}

/** Jobs kept for `indexJob(id)` after they finish. */
const KEEP = 100;

export class Jobs {
  private readonly jobs = new Map<string, Job>();
  private stopping = false;

  constructor(private readonly sessions: Sessions, private readonly log: (m: string) => void = () => {}) {}

  get(id: string): Job | undefined {
    return this.jobs.get(id);
  }

  running(instance: string): Job | undefined {
    return [...this.jobs.values()].find((j) => j.instance === instance && j.state === 'running');
  }

  async start(instance: string, sources: Collection[] = [], rebuild = false): Promise<Job> {
    if (this.stopping) throw new Error('the server is shutting down');
    const busy = this.running(instance);
    if (busy) throw new JobAlreadyRunningError(busy);
    const { config, paths } = this.sessions.configOf(instance); // unknown instance: fails now, not in the background
    // Busy now: say so to the client at once. (The run takes the lock itself; losing a race fails the job with the same message.)
    const holder = readLockHolder(paths.lock);
    if (holder) throw new IndexBusyError(paths.lock, holder, config.name);
    const job: Job = {
      id: randomUUID(),
      instance,
      sources: sources.length ? [...new Set(sources)] : [...COLLECTIONS],
      state: 'running',
      rebuild,
      done: 0,
      total: 0,
      startedAt: new Date().toISOString(),
      promise: Promise.resolve(),
    };
    this.jobs.set(job.id, job);
    // A job takes turns at the model as a client of its own, not as the one who started it.
    job.promise = asClient(`index job ${job.id}`, () => this.run(job));
    for (const old of [...this.jobs.values()].slice(0, Math.max(0, this.jobs.size - KEEP))) if (old.state !== 'running') this.jobs.delete(old.id);
    return job;
  }

  private async run(job: Job): Promise<void> {
    try {
      // The model only: a damaged index must not stop the rebuild that replaces it.
      const s = await this.sessions.load(job.instance);
      job.summary = await indexInstance({
        config: s.config,
        paths: s.paths,
        embedder: s.embedder,
        sources: job.rebuild ? undefined : job.sources,
        rebuild: job.rebuild,
        log: (m) => this.log(`[${job.instance}] ${m}`),
        onProgress: (p) => {
          if (this.stopping) throw new Error('interrupted by server shutdown; the previous index is unchanged');
          job.phase = p.phase;
          job.done = p.done;
          job.total = p.total;
        },
      });
      // An index created or swapped in by this run is opened for readers now.
      await this.sessions.get(job.instance);
      job.state = 'succeeded';
    } catch (err) {
      job.state = 'failed';
      job.error = err instanceof Error ? err.message : String(err);
      this.log(`index job ${job.id} (${job.instance}) failed: ${job.error}`);
    } finally {
      job.finishedAt = new Date().toISOString();
    }
  }

  /** Stops running jobs at their next step (nothing half-written) and waits for them. */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all([...this.jobs.values()].map((j) => j.promise));
  }
}
