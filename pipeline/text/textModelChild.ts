/**
 * The model translator's language model in a child process of its own (textModelProcess.ts starts it):
 * opened as in process (`openLocalModel`), its continuations and likelihoods served one at a time, in order
 * (pipeline/modelChild.ts), by one LocalGgufGenerator that keeps the examples between them.
 */
import { serveModel } from '../modelChild.ts';
import { openLocalModel } from './modelTranslate.ts';
import type { TextModelChildConfig, TextModelRequest } from './textModelProcess.ts';

await serveModel<TextModelChildConfig, TextModelRequest, string | number[], { id: string; backend?: string }>(async ({ baseDir, ...config }) => {
  const model = await openLocalModel(config, baseDir);
  return {
    ready: { id: model.id, ...(model.backend !== undefined ? { backend: model.backend } : {}) },
    serve: (r) => ('texts' in r ? model.likelihoods(r.prompt, r.texts) : model.continueText(r.prompt, r.options)),
    close: () => model.close(),
  };
});
