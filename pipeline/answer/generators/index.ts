import type { CitaConfig } from '../../config/schema.ts';
import type { Embedder } from '../../types.ts';
import type { Generator } from '../types.ts';
import type { ExtractiveOptions } from './extractive.ts';

export interface GeneratorDeps {
  /** Where local models are provisioned. */
  modelsDir: string;
  log: (message: string) => void;
  env?: NodeJS.ProcessEnv;
  /** The instance's embedder: the extractive generator chooses sentences by meaning with it. */
  embedder?: Embedder;
}

/** The extractive generator's options set in `answer.generator` (the others keep its defaults). */
export function extractiveOptions(config: CitaConfig['answer']['generator']): ExtractiveOptions {
  return {
    ...(config.minRelevance !== undefined ? { minRelevance: config.minRelevance } : {}),
    ...(config.crossLingualDiscount !== undefined ? { crossLingualDiscount: config.crossLingualDiscount } : {}),
    ...(config.unknownNames !== undefined ? { unknownNames: config.unknownNames } : {}),
    ...(config.semanticBlocks !== undefined ? { semanticBlocks: config.semanticBlocks } : {}),
    ...(config.margin !== undefined ? { margin: config.margin } : {}),
    ...(config.meaningQuery !== undefined ? { meaningQuery: config.meaningQuery } : {}),
    ...(config.spread !== undefined ? { spread: config.spread } : {}),
    ...(config.questionSentences !== undefined ? { questionSentences: config.questionSentences } : {}),
    ...(config.answerTypes !== undefined ? { answerTypes: config.answerTypes } : {}),
    ...(config.maxSentences !== undefined ? { maxSentences: config.maxSentences } : {}),
    ...(config.spreadPages !== undefined ? { spreadPages: config.spreadPages } : {}),
    ...(config.whereFiles !== undefined ? { whereFiles: config.whereFiles } : {}),
    ...(config.rstBodies !== undefined ? { rstBodies: config.rstBodies } : {}),
    ...(config.literals !== undefined ? { literals: config.literals } : {}),
    ...(config.command !== undefined ? { command: config.command } : {}),
    ...(config.commentedLines !== undefined ? { commentedLines: config.commentedLines } : {}),
    ...(config.commands !== undefined ? { commands: config.commands } : {}),
  };
}

/**
 * The generator named in `answer.generator`. Imported on demand: the extractive default needs no
 * model, and the local one loads llama.cpp only when chosen.
 */
export async function createGenerator(config: CitaConfig['answer']['generator'], deps: GeneratorDeps): Promise<Generator> {
  switch (config.kind) {
    case 'extractive': {
      const { ExtractiveGenerator } = await import('./extractive.ts');
      return new ExtractiveGenerator(extractiveOptions(config), config.relevance === 'meaning' ? deps.embedder : undefined);
    }
    case 'openai': {
      const { OpenAiGenerator } = await import('./openai.ts');
      if (!config.baseUrl) throw new Error('answer.generator.baseUrl: required for kind "openai" (e.g. http://127.0.0.1:11434/v1 for Ollama)');
      if (!config.model) throw new Error('answer.generator.model: required for kind "openai"');
      return new OpenAiGenerator({
        baseUrl: config.baseUrl,
        model: config.model,
        apiKey: (deps.env ?? process.env)[config.apiKeyEnv],
        apiKeyEnv: config.apiKeyEnv,
        timeoutMs: config.timeoutMs,
        maxTokens: config.maxTokens,
        temperature: config.temperature,
        log: deps.log,
      });
    }
    case 'local': {
      const { createLocalGenerator } = await import('./local.ts');
      return createLocalGenerator({ model: config.model, modelsDir: deps.modelsDir, maxTokens: config.maxTokens, temperature: config.temperature, log: deps.log });
    }
  }
}
