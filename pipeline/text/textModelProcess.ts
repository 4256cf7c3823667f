import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ModelProcess } from '../modelProcess.ts';
import type { TextModel } from './modelTranslate.ts';

/**
 * The model translator's language model out of process (`languages.modelTranslator.isolate`): the GGUF
 * model is opened and run by a child process (textModelChild.ts, through pipeline/modelProcess.ts), so
 * a fault in llama.cpp fails the translations in flight (ModelProcessError, saying so) and the next one
 * starts a new child, and the server's process does not hold the model. One child serves every
 * translation in turn, so the examples it keeps (`head`) make a question's rendering the same whatever
 * came before it, as in process; a new child after a fault renders as a fresh process does.
 */

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'textModelChild.ts');

/** What the child needs to open the model as `openLocalModel` does. */
export interface TextModelChildConfig {
  /** A registry name or a .gguf path, relative to `baseDir`. */
  model: string;
  threads?: number | undefined;
  /** The project root, as this process found it. */
  baseDir: string;
}

/** A continuation (`options`) or likelihoods of `texts` after the prompt. */
export type TextModelRequest = { prompt: string; options: Parameters<TextModel['continueText']>[1] } | { prompt: string; texts: string[] };

export class ProcessTextModel implements TextModel {
  private readonly process: ModelProcess<TextModelRequest, string | number[], { id: string; backend?: string }>;
  id = '';
  backend: string | undefined;

  private constructor(config: TextModelChildConfig, name: string) {
    this.process = new ModelProcess({ module: CHILD, config, names: { name, process: 'the translator process', user: 'the translator' } });
  }

  /** Starts the child and waits for its model to be open (as `openLocalModel` waits for the load); `name` is how errors begin. */
  static async create(config: TextModelChildConfig, name: string): Promise<ProcessTextModel> {
    const m = new ProcessTextModel(config, name);
    ({ id: m.id, backend: m.backend } = await m.process.open());
    return m;
  }

  /** Child processes started so far (the first, then one after each fault). */
  get starts(): number {
    return this.process.starts;
  }

  /** The running child's pid. */
  get pid(): number | undefined {
    return this.process.pid;
  }

  async continueText(prompt: string, options: Parameters<TextModel['continueText']>[1]): Promise<string> {
    return (await this.process.request({ prompt, options })) as string;
  }

  async likelihoods(prompt: string, texts: readonly string[]): Promise<number[]> {
    return (await this.process.request({ prompt, texts: [...texts] })) as number[];
  }

  close(): Promise<void> {
    return this.process.close();
  }
}
