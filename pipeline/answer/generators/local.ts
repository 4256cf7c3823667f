import os from 'node:os';
import path from 'node:path';
import type { Llama, LlamaCompletion, LlamaContext, LlamaContextSequence, LlamaModel } from 'node-llama-cpp';
import type { Context, GeneratedAnswer, Generator } from '../types.ts';
import { buildPrompt, toAnswer, type GenerationStats, type Prompt } from './prompt.ts';
import { limit } from '../../limit.ts';
import { resolveGguf } from './provisionGguf.ts';

/**
 * A generator that runs a GGUF model in-process through node-llama-cpp, on the CPU: answers with no
 * server and no network. The model loads on first use (or `load()`), generations run one at a time
 * (one context sequence), and `close()` frees the native memory.
 */

export interface LocalGgufGeneratorOptions {
  /** A .gguf file (see `resolveGguf` for registry names). */
  modelPath: string;
  /** Shown in the id `local:<name>`; default the file name without `.gguf`. */
  name?: string;
  /** Default 512. */
  maxTokens?: number;
  /** Default 0 (greedy): the same context gives the same answer. */
  temperature?: number;
  /** Tokens of prompt + answer; default the model's training window, at most 8192. */
  contextSize?: number;
  /** CPU threads; default one less than the cores this process may use (at least 1). */
  threads?: number;
  seed?: number;
  /** Text as it is generated. */
  onToken?: (text: string) => void;
  /** llama.cpp warnings and load progress. */
  log?: (msg: string) => void;
}

export interface LocalGenerationStats extends GenerationStats {
  /** Time until the first generated text, i.e. mostly reading the prompt. */
  firstTokenMs: number | null;
}

interface Loaded {
  llama: Llama;
  model: LlamaModel;
  context: LlamaContext;
}

const MAX_DEFAULT_CONTEXT = 8192;
/** The next tokens whose probabilities `likelihoods` reads: the likeliest, at the model's own temperature. */
const TOP_TOKENS = 1000;
const NEXT_TOKEN = { generateNext: { probabilities: true, options: { temperature: 1, topK: TOP_TOKENS } } } as const;

/** A token's probability among the likeliest next tokens, or (outside them) the least of theirs. */
function probabilityIn(next: ReadonlyMap<number, number> | undefined, token: number): number {
  if (!next || next.size === 0) return 1e-9;
  const p = next.get(token);
  if (p !== undefined) return p;
  let least = 1;
  for (const q of next.values()) least = Math.min(least, q);
  return least;
}
/** Chat-template tokens around the system and user messages, on top of their text. */
const TEMPLATE_ALLOWANCE = 32;

export class LocalGgufGenerator implements Generator {
  readonly id: string;
  lastStats: LocalGenerationStats | undefined;

  private loading: Promise<Loaded> | undefined;
  /**
   * The CPU features of the llama.cpp backend that runs the model, once loaded (`cpuBackend`): the prebuilt binaries
   * carry one backend per instruction set and load the best the machine has, and each sums in its own order, so the
   * same prompt can continue differently on another CPU (docs/languages.md).
   */
  backend: string | undefined;
  /** Text continuation's completion and the context's sequence it holds between calls (continueText). */
  private continuation: { completion: LlamaCompletion; sequence: LlamaContextSequence } | undefined;
  /** Generations wait for each other: the context has a single sequence. */
  private readonly queue = limit(1);
  private closed = false;

  constructor(private readonly options: LocalGgufGeneratorOptions) {
    const name = options.name ?? path.basename(options.modelPath).replace(/\.gguf$/i, '');
    this.id = `local:${name}`;
  }

  /** Loads the model now rather than on the first question (e.g. to time loading apart from answering). */
  load(): Promise<Loaded> {
    if (this.closed) return Promise.reject(new Error(`${this.id}: the generator was closed`));
    this.loading ??= this.open().catch((err: unknown) => {
      this.loading = undefined; // a later call may try again (e.g. after the file was fixed)
      throw err;
    });
    return this.loading;
  }

  private async open(): Promise<Loaded> {
    const log = this.options.log ?? (() => {});
    // Imported here so that code which never runs a local model does not load the native addon.
    const { getLlama, LlamaLogLevel, LlamaLogLevelGreaterThan } = await import('node-llama-cpp');
    let llama: Llama;
    try {
      llama = await getLlama({
        gpu: false,
        // Only the prebuilt binaries that npm installed: never download or compile llama.cpp at run time.
        build: 'never',
        skipDownload: true,
        progressLogs: false,
        // llama.cpp threads spin while they wait for each other: one preempted thread stalls them all, so a
        // thread per core on a busy machine collapses (2.1 tokens/s on 2 busy cores, 7.8 with 1 thread).
        maxThreads: this.options.threads ?? Math.max(1, os.availableParallelism() - 1),
        logLevel: LlamaLogLevel.warn,
        logger: (level, message) => {
          if (!LlamaLogLevelGreaterThan(level, LlamaLogLevel.warn)) log(`llama.cpp ${level}: ${message.trimEnd()}`);
        },
      });
    } catch (err) {
      throw new Error(
        `${this.id}: node-llama-cpp found no usable prebuilt llama.cpp binary for ${process.platform}-${process.arch} (${(err as Error).message}); ` +
          'reinstall with optional dependencies (`npm ci` without --omit=optional) so that @node-llama-cpp/' +
          `${process.platform}-${process.arch} is present`,
        { cause: err },
      );
    }
    try {
      const model = await llama.loadModel({ modelPath: this.options.modelPath, gpuLayers: 0 });
      const contextSize = this.options.contextSize ?? Math.min(model.trainContextSize, MAX_DEFAULT_CONTEXT);
      const context = await model.createContext({ contextSize });
      this.backend = cpuBackend(llama.systemInfo);
      log(`${this.id}: loaded ${this.options.modelPath} (context ${context.contextSize} tokens, ${llama.maxThreads} threads, ${this.backend})`);
      return { llama, model, context };
    } catch (err) {
      await llama.dispose();
      throw new Error(`${this.id}: could not load ${this.options.modelPath}: ${(err as Error).message}`, { cause: err });
    }
  }

  generate(question: string, context: Context): Promise<GeneratedAnswer> {
    return this.queue(() => this.generateNow(question, context));
  }

  /** One completion of a system + user prompt, queued like answers (the LLM judge uses it too). */
  complete(prompt: Prompt): Promise<string> {
    return this.queue(() => this.completeNow(prompt));
  }

  /**
   * Plain text continuation, no chat template: what a pretrained (not instruct) model is prompted with.
   * Stops at `stop` (not included) or after `maxTokens`; greedy unless the generator's temperature says otherwise.
   * `head`, a beginning that many prompts share (examples), is read once and kept: each prompt then
   * reads only what follows it. The same prompt gives the same text whatever was continued before:
   * llama.cpp's arithmetic depends on where a prompt's reading is split (kept tokens, then the rest),
   * so the split is always at the end of `head` — never at whatever the last prompt happened to share
   * with this one, which changed 3 of 30 translations with the order of the questions (2026-12-04).
   */
  continueText(prompt: string, options: { maxTokens: number; stop?: string; head?: string }): Promise<string> {
    return this.queue(async () => {
      const { model } = await this.load();
      const { completion, sequence } = await this.textSequence();
      if (options.head !== undefined && prompt.startsWith(options.head)) {
        // What the completion will hold before the prompt's own tokens: the beginning-of-text token it prepends, then
        // `head`. Were that guess wrong for some model, the completion would re-read the whole prompt: slower, still order-free.
        const { bos, shouldPrependBosToken } = model.tokens;
        const kept = [...(bos !== null && shouldPrependBosToken ? [bos] : []), ...model.tokenize(options.head)];
        const held = sequence.contextTokens;
        if (held.length >= kept.length && kept.every((t, i) => held[i] === t)) {
          if (sequence.nextTokenIndex > kept.length) await sequence.eraseContextTokenRanges([{ start: kept.length, end: sequence.nextTokenIndex }]);
        } else {
          await sequence.clearHistory();
          await sequence.evaluateWithoutGeneratingNewTokens(kept);
        }
      } else await sequence.clearHistory();
      return completion.generateCompletion(prompt, {
        maxTokens: options.maxTokens,
        temperature: this.options.temperature ?? 0,
        ...(this.options.seed !== undefined ? { seed: this.options.seed } : {}),
        ...(options.stop ? { customStopTriggers: [options.stop] } : {}),
      });
    });
  }

  /**
   * How likely the model finds each of `texts` right after `prompt`: the mean log-probability of its tokens
   * (query likelihood: pipeline/retrieval/queryLikelihood.ts). The prompt is read once; each text after it.
   * A token's probability is read among the model's `TOP_TOKENS` likeliest next tokens (handing over the whole
   * vocabulary, 262,144 tokens for Gemma 3, costs 0.13 s a token); a token outside them is given the least of
   * theirs, a bound. Queued with continuations: they share the context's sequence.
   */
  likelihoods(prompt: string, texts: readonly string[]): Promise<number[]> {
    return this.queue(async () => {
      const { model } = await this.load();
      const { sequence } = await this.textSequence();
      const { bos, shouldPrependBosToken } = model.tokens;
      const head = [...(bos !== null && shouldPrependBosToken ? [bos] : []), ...model.tokenize(prompt)];
      await sequence.clearHistory();
      const read = await sequence.controlledEvaluate(head.map((t, i) => (i === head.length - 1 ? [t, NEXT_TOKEN] : t)));
      const first = read[head.length - 1]?.next.probabilities;
      const scores: number[] = [];
      for (const text of texts) {
        const tokens = model.tokenize(` ${text.trim()}`);
        if (tokens.length === 0 || !first) {
          scores.push(0);
          continue;
        }
        const out = await sequence.controlledEvaluate(tokens.slice(0, -1).map((t) => [t, NEXT_TOKEN]));
        let sum = Math.log(probabilityIn(first, tokens[0]!));
        for (let i = 1; i < tokens.length; i++) sum += Math.log(probabilityIn(out[i - 1]?.next.probabilities, tokens[i]!));
        scores.push(sum / tokens.length);
        await sequence.eraseContextTokenRanges([{ start: head.length, end: sequence.nextTokenIndex }]);
      }
      return scores;
    });
  }

  /** The context's one sequence, held by a text completion between calls (continuations and likelihoods share it). */
  private async textSequence(): Promise<{ completion: LlamaCompletion; sequence: LlamaContextSequence }> {
    if (!this.continuation) {
      const { context } = await this.load();
      const { LlamaCompletion } = await import('node-llama-cpp');
      const sequence = context.getSequence();
      this.continuation = { completion: new LlamaCompletion({ contextSequence: sequence }), sequence };
    }
    return this.continuation;
  }

  /** The context's one sequence back from text continuation, for a chat. */
  private releaseCompletion(): void {
    this.continuation?.completion.dispose({ disposeSequence: true });
    this.continuation = undefined;
  }

  private async generateNow(question: string, ctx: Context): Promise<GeneratedAnswer> {
    return toAnswer(await this.completeNow(buildPrompt(question, ctx)), ctx, this.id);
  }

  private async completeNow(prompt: Prompt): Promise<string> {
    const { model, context } = await this.load();
    const { LlamaChatSession } = await import('node-llama-cpp');
    const maxTokens = this.options.maxTokens ?? 512;
    const promptTokens = model.tokenize(`${prompt.system}\n${prompt.user}`).length + TEMPLATE_ALLOWANCE;
    if (promptTokens + maxTokens > context.contextSize)
      throw new Error(
        `${this.id}: the prompt takes about ${promptTokens} tokens and the answer up to ${maxTokens}, more than the model's ${context.contextSize}-token window; ` +
          'lower answer.budget.chunks or answer.budget.chars, or answer.generator.maxTokens',
      );

    this.releaseCompletion();
    const sequence = context.getSequence();
    const session = new LlamaChatSession({ contextSequence: sequence, systemPrompt: prompt.system });
    const started = performance.now();
    let firstTokenMs: number | null = null;
    try {
      const text = await session.prompt(prompt.user, {
        maxTokens,
        temperature: this.options.temperature ?? 0,
        ...(this.options.seed !== undefined ? { seed: this.options.seed } : {}),
        onTextChunk: (chunk) => {
          firstTokenMs ??= performance.now() - started;
          this.options.onToken?.(chunk);
        },
      });
      const ms = performance.now() - started;
      const { usedInputTokens, usedOutputTokens } = sequence.tokenMeter;
      this.lastStats = {
        promptTokens: usedInputTokens,
        completionTokens: usedOutputTokens,
        ms,
        tokensPerSecond: ms > 0 ? usedOutputTokens / (ms / 1000) : null,
        firstTokenMs,
      };
      return text;
    } finally {
      // A fresh session per question: no answer may leak into the next one's history.
      session.dispose({ disposeSequence: true });
    }
  }

  /** Frees the context, the model and the llama.cpp backend; waits for a running generation first. */
  async close(): Promise<void> {
    this.closed = true;
    // The generation under way (and any queued) finishes before its context is disposed under it.
    await this.queue.idle();
    const loading = this.loading;
    this.loading = undefined;
    if (!loading) return;
    const loaded = await loading.catch(() => undefined);
    if (!loaded) return;
    this.releaseCompletion();
    await loaded.context.dispose();
    await loaded.model.dispose();
    await loaded.llama.dispose();
  }
}

export interface CreateLocalGeneratorOptions extends Omit<LocalGgufGeneratorOptions, 'modelPath' | 'name'> {
  /** `answer.generator.model`: a registry name (default `smollm2-135m-instruct`) or a path to a .gguf file. */
  model?: string;
  /** Where registry models are provisioned. */
  modelsDir?: string;
  /** A relative .gguf path is resolved against it; default the working directory. */
  baseDir?: string;
  /** The config key that named the model, for errors (default `answer.generator.model`). */
  setting?: string;
}

/** The local generator for a config: provisions a registry model (pinned, verified) or takes a .gguf path. */
export async function createLocalGenerator(options: CreateLocalGeneratorOptions = {}): Promise<LocalGgufGenerator> {
  const { model, modelsDir, baseDir, setting, ...rest } = options;
  const resolved = await resolveGguf(model, { modelsDir, baseDir, setting, log: options.log });
  return new LocalGgufGenerator({ ...rest, modelPath: resolved.path, name: resolved.displayName });
}

/**
 * The CPU line of llama.cpp's system info as one label: "CPU : SSE3 = 1 | AVX2 = 1 | AVX512 = 1 | LLAMAFILE = 1 | …" →
 * "cpu SSE3 AVX2 AVX512 LLAMAFILE" (the features the loaded backend was built with). Pure.
 */
export function cpuBackend(systemInfo: string): string {
  const line = systemInfo.split('\n').find((l) => /^\s*CPU\s*:/.test(l)) ?? systemInfo;
  const on = [...line.matchAll(/([A-Z0-9_]+)\s*=\s*1\b/g)].map((m) => m[1]!);
  return on.length ? `cpu ${on.join(' ')}` : line.trim();
}
