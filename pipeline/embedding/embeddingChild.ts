/**
 * The embedding model in a child process of its own (embeddingProcess.ts starts it): a fault in the
 * native engine ends this process, not the server, and its work never holds the server's event loop.
 * Requests arrive over IPC and are served one at a time, in order (pipeline/modelChild.ts).
 */
import { serveModel } from '../modelChild.ts';
import { createEmbedder } from './create.ts';
import type { ChildConfig, EmbedderModel, EmbedRequest } from './embeddingProcess.ts';

await serveModel<ChildConfig, EmbedRequest, Float32Array[], EmbedderModel>(async (config) => {
  const engine = await createEmbedder({ ...config, isolate: false });
  return {
    ready: { dims: engine.dims, id: engine.id, window: engine.window, tokenVectors: engine.tokenVectors !== undefined },
    serve: (r) => (r.tokens ? engine.tokenVectors!(r.texts, r.kind) : r.kind === 'query' ? engine.embedQueries(r.texts) : engine.embedPassages(r.texts)),
    close: () => engine.close(),
  };
});
