import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * A model in a child process of its own (`embedding.isolate`, `languages.modelTranslator.isolate`): the
 * plumbing the isolated embedder and text model share. The child (a module that calls `serveModel`,
 * modelChild.ts) opens the model with the config handed to it and says `ready` (with what the parent
 * should know of the model) or `failed`; requests then go over IPC by id, and it serves them one at a time.
 * - A fault in the model's native code ends the child, not this process: the requests in flight fail
 *   with ModelProcessError, saying so, and the next request starts a new child.
 * - Its work never holds this process's event loop.
 * close() lets the requests in flight be answered, then disconnects: the child frees its model and exits.
 */

// tsx by its own path, and our tsconfig: the child runs wherever cita was started (a bare `tsx` and the
// working directory's tsconfig resolve from there, where neither need exist).
const TSX = import.meta.resolve('tsx');
const TSCONFIG = fileURLToPath(new URL('../tsconfig.json', import.meta.url));
/** How long a failed send waits for the process's exit to say why, before it reports the send's own error. */
const EXIT_GRACE_MS = 1000;

/** The model's process stopped (or could not be reached) during a request; the next request starts a new one. */
export class ModelProcessError extends Error {
  override name = 'ModelProcessError';
}

/** What goes over the channel (modelChild.ts is the other side). */
export type ToChild<Request> = { id: number; request: Request };
export type FromChild<Response, Ready> = { type: 'ready'; model: Ready } | { type: 'failed'; error: string } | { id: number; response: Response } | { id: number; error: string };

export interface ModelProcessOptions {
  /** The child's module, a path (TypeScript, run with tsx and cita's tsconfig); it calls `serveModel`. */
  module: string;
  /** Handed to the child as its one argument, as JSON: what it needs to open the model. */
  config: unknown;
  /** How errors name things: `<name>: <process> was killed by SIGKILL during this request…`, `<name>: <user> used after close()`. */
  names: { name: string; process: string; user: string };
  /** Variables set in the child's environment, over this process's. */
  env?: Record<string, string>;
}

interface Pending<Response> {
  resolve: (v: Response) => void;
  reject: (e: Error) => void;
}

interface Child<Ready> {
  proc: ChildProcess;
  ready: Promise<Ready>;
}

export class ModelProcess<Request, Response, Ready> {
  private child: Child<Ready> | undefined;
  private readonly pending = new Map<number, Pending<Response>>();
  private nextId = 0;
  private closed = false;
  /** Woken each time a request settles (close() waits for the ones in flight). */
  private settledWaiters: (() => void)[] = [];
  /** Child processes started so far (the first, then one after each fault). */
  starts = 0;

  constructor(private readonly options: ModelProcessOptions) {}

  /** The running child's pid (tests stop it to check that a fault fails only the requests in flight). */
  get pid(): number | undefined {
    return this.child?.proc.pid;
  }

  /**
   * Starts a child unless one runs; resolves with what it said of its model once that is open. A model that could
   * not be opened closes this (nothing is left running) and rejects with the child's error.
   */
  async open(): Promise<Ready> {
    try {
      return await (this.child ?? this.spawn()).ready;
    } catch (err) {
      await this.close();
      throw err;
    }
  }

  async request(request: Request): Promise<Response> {
    const { name, process: proc, user } = this.options.names;
    if (this.closed) throw new Error(`${name}: ${user} used after close()`);
    const child = this.child ?? this.spawn();
    await child.ready;
    const id = this.nextId++;
    return new Promise<Response>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      child.proc.send({ id, request } satisfies ToChild<Request>, (err) => {
        if (!err) return;
        // A channel that breaks under a send is mostly a process that is dying: its exit, which says why
        // (killed by a signal, an exit code), rejects the request; this error only when no exit follows.
        const timer = setTimeout(() => {
          if (!this.pending.delete(id)) return;
          reject(new ModelProcessError(`${name}: could not reach ${proc}: ${err.message}`));
          this.wakeSettled();
        }, EXIT_GRACE_MS);
        child.proc.once('exit', () => clearTimeout(timer));
      });
    });
  }

  private spawn(): Child<Ready> {
    const child = this.start();
    this.child = child;
    this.starts++;
    this.adopt(child);
    return child;
  }

  private start(): Child<Ready> {
    const { name, process: what } = this.options.names;
    const proc = fork(this.options.module, [JSON.stringify(this.options.config)], {
      execArgv: ['--import', TSX],
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      env: { ...process.env, TSX_TSCONFIG_PATH: TSCONFIG, ...this.options.env },
    });
    const ready = new Promise<Ready>((resolve, reject) => {
      proc.on('message', (m: FromChild<Response, Ready>) => {
        if ('type' in m && m.type === 'ready') resolve(m.model);
        if ('type' in m && m.type === 'failed') reject(new Error(`${name}: ${what} could not load the model: ${m.error}`));
      });
      proc.once('exit', (code, signal) => reject(new Error(`${name}: ${what} exited while loading (${signal ?? `code ${code}`})`)));
      proc.once('error', reject);
    });
    ready.catch(() => {});
    return { proc, ready };
  }

  /** Routes the child's answers to their requests; when it dies, fails those in flight and forgets it. */
  private adopt(child: Child<Ready>): void {
    const { name, process: what } = this.options.names;
    child.proc.on('message', (m: FromChild<Response, Ready>) => {
      if (!('id' in m)) return;
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if ('error' in m) p.reject(new Error(`${name}: ${m.error}`));
      else p.resolve(m.response);
      this.wakeSettled();
    });
    child.proc.once('exit', (code, signal) => {
      if (this.child === child) this.child = undefined;
      const why = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      for (const [id, p] of this.pending) {
        this.pending.delete(id);
        p.reject(new ModelProcessError(`${name}: ${what} ${why} during this request${this.closed ? '' : '; the next request starts a new one'}`));
      }
      this.wakeSettled();
    });
  }

  private wakeSettled(): void {
    if (this.pending.size > 0) return;
    for (const wake of this.settledWaiters.splice(0)) wake();
  }

  /**
   * Refuses new requests, lets the ones in flight be answered (once disconnected the child can no longer send
   * them: they would never settle), then disconnects the child (it frees the model and exits) and waits for its exit.
   */
  async close(): Promise<void> {
    this.closed = true;
    const child = this.child;
    if (!child || child.proc.exitCode !== null || child.proc.signalCode !== null) {
      this.child = undefined;
      return;
    }
    if (this.pending.size > 0) await new Promise<void>((resolve) => this.settledWaiters.push(resolve));
    this.child = undefined;
    if (child.proc.exitCode !== null || child.proc.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.proc.once('exit', () => resolve()));
    child.proc.disconnect();
    await exited;
  }
}
