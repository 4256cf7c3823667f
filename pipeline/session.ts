import { AsyncLocalStorage } from 'node:async_hooks';
import type { AskDeps } from './answer/ask.ts';
import type { Generator } from './answer/types.ts';
import { findRoot, listInstances } from './config/load.ts';
import type { CitaConfig } from './config/schema.ts';
import { checkIndex, instanceBackend, loadInstance, noIndexYet, openIndex, openInstance, readMeta, type InstancePaths } from './instance.ts';
import { withQueryCache } from './embedding/queryCache.ts';
import { FairQueue } from './fairQueue.ts';
import { limit, type Limit } from './limit.ts';
import { prepareTranslation } from './retrieval/crossLingual.ts';
import { IndexDamagedError, type Store, type StoreBackend } from './store/store.ts';
import { modelTranslatorFor, type ModelTranslator } from './text/modelTranslate.ts';
import { COLLECTIONS, type Collection, type Embedder } from './types.ts';

/**
 * Long-lived instances for a server: each instance's config, paths, embedder, generator and store are
 * opened once and shared by every request. The model engine runs one batch at a time, so the embedder
 * is serialised here, fairly: clients (and a background re-index) take turns call by call.
 */

export class InstanceNotFoundError extends Error {}
/** The index exists but cannot be read (damaged, or written by another cita): a rebuild replaces it. */
export class IndexNeedsRebuildError extends Error {
  constructor(
    readonly instance: string,
    cause: IndexDamagedError,
  ) {
    // The store's reason, not its message: clients learn what is wrong and what to do, not where the file is.
    super(`the index of "${instance}" cannot be used: ${cause.reason}; rebuild it with \`cita index ${instance} --rebuild\` or the reindex mutation with rebuild: true`, { cause });
  }
}

export interface Session {
  name: string;
  config: CitaConfig;
  paths: InstancePaths;
  /** The index's lifecycle: whether it exists, opening it (again after a rebuild swapped it). */
  backend: StoreBackend;
  embedder: Embedder;
  generator: Generator;
  /**
   * The language model translator for questions in another language: the server's, in a child process by
   * default (`languages.modelTranslator.isolate: serve`); opened with the instance's first request.
   */
  modelTranslator: Pick<ModelTranslator, 'id' | 'translate'>;
  /** Open once the index exists; readers see each committed index run; reopened when a rebuild swaps the index. */
  store?: Store;
  /** Closes the generator and the model (the store is closed apart: it is replaced and retired over time). */
  close(): Promise<void>;
}

export interface IndexStatus {
  name: string;
  github?: string;
  ref: string;
  storeKind: string;
  indexed: boolean;
  model?: string;
  lastIndexed?: string;
  chunks: Record<Collection, number>;
}

/** Who is asking: the server sets it per request (`asClient`); the model's turns are shared fairly among clients. */
const requester = new AsyncLocalStorage<string>();

/** Runs `fn` (and everything it starts) on behalf of `client`; without one, work counts as the client `local`. */
export function asClient<T>(client: string, fn: () => T): T {
  return requester.run(client, fn);
}

interface EmbedWork {
  kind: 'query' | 'passage';
  /** Token vectors (`Embedder.tokenVectors`) instead of a pooled vector. */
  tokenVectors: boolean;
  text: string;
  tokens: number;
}

/** Most texts in one shared call (the engine batches them by length; more gains little). */
const MAX_SHARE = 32;

/**
 * Runs the engine one call at a time, taking turns among clients (pipeline/fairQueue.ts), one job per
 * text: a client with many long questions (or a re-index with many passages) waiting delays another
 * client's text by about one of its own, not by all of them. The same text asked while queued or
 * running is embedded once. Short texts waiting, of one client or several, share a call of at most one
 * window of tokens: a turn then costs about what one long text costs, and an answer's sentences (a
 * few dozen short texts) take a turn or a few, not one per handful.
 */
export function fairlyShared(embedder: Embedder): Embedder {
  const queue = new FairQueue<EmbedWork, Float32Array>({
    execute: (works) => {
      const texts = works.map((w) => w.text);
      const { kind, tokenVectors } = works[0]!;
      if (tokenVectors) return embedder.tokenVectors!(texts, kind);
      return kind === 'query' ? embedder.embedQueries(texts) : embedder.embedPassages(texts);
    },
    canShare: (first, other) => first.kind === other.kind && first.tokenVectors === other.tokenVectors,
    size: (w) => w.tokens,
    budget: embedder.window,
    maxShare: MAX_SHARE,
  });
  const tokens = (kind: EmbedWork['kind'], text: string) => (kind === 'query' && embedder.countQueryTokens ? embedder.countQueryTokens(text) : embedder.countTokens(text));
  const submit = (kind: EmbedWork['kind'], texts: string[], tokenVectors = false) => {
    const client = requester.getStore() ?? 'local';
    return Promise.all(texts.map((text) => queue.submit(client, `${kind}${tokenVectors ? ' tokens' : ''}\0${text}`, { kind, tokenVectors, text, tokens: tokens(kind, text) })));
  };
  return {
    get id() {
      return embedder.id;
    },
    get dims() {
      return embedder.dims;
    },
    get window() {
      return embedder.window;
    },
    countTokens: (text) => embedder.countTokens(text),
    ...(embedder.countQueryTokens ? { countQueryTokens: (text: string) => embedder.countQueryTokens!(text) } : {}),
    embedQueries: (texts) => submit('query', texts),
    embedPassages: (texts) => submit('passage', texts),
    ...(embedder.tokenVectors ? { tokenVectors: (texts: string[], kind: EmbedWork['kind']) => submit(kind, texts, true) } : {}),
    close: async () => {
      await queue.idle();
      await embedder.close();
    },
  };
}

export class Sessions {
  private readonly open = new Map<string, Promise<Session>>();
  readonly root: string;

  constructor(root = findRoot(), private readonly log: (m: string) => void = () => {}) {
    this.root = root;
  }

  names(): string[] {
    return listInstances(this.root);
  }

  /** Config and paths only: no model, no store. */
  configOf(name: string): { config: CitaConfig; paths: InstancePaths } {
    if (!/^[a-z0-9][a-z0-9._-]*$/.test(name) || !this.names().includes(name)) {
      throw new InstanceNotFoundError(`no instance "${name}" (configured: ${this.names().join(', ') || 'none'})`);
    }
    const { config, paths } = loadInstance(name, { root: this.root });
    return { config, paths };
  }

  /** The instance with its embedder and generator loaded (once), without opening its store (an index job needs no reader). */
  async load(name: string): Promise<Session> {
    let p = this.open.get(name);
    if (!p) {
      const { config, paths } = this.configOf(name);
      p = (async () => {
        // Questions in another language are translated by a model too: it opens while the embedder does.
        prepareTranslation(config, undefined, 'serve');
        const modelTranslator = modelTranslatorFor(config.languages.modelTranslator, 'serve');
        const instance = await openInstance(
          { config, paths, file: '' },
          // Repeated questions skip the model (and the queue) altogether.
          { purpose: 'serve', wrapEmbedder: (model) => withQueryCache(fairlyShared(model)), log: this.log },
        );
        const { backend, embedder, generator, close } = instance;
        return { name, config, paths, backend, embedder, generator, modelTranslator, close };
      })();
      this.open.set(name, p);
      p.catch(() => this.open.delete(name));
    }
    return p;
  }

  /** The loaded instance with its store, (re)opened when an index exists or was swapped. */
  async get(name: string): Promise<Session> {
    const s = await this.load(name);
    // One (re)open at a time per instance: a request arriving meanwhile finds the store open instead of opening it twice.
    let opening = this.storeOpening.get(name);
    if (!opening) this.storeOpening.set(name, (opening = limit(1)));
    await opening(() => this.refreshStore(s));
    return s;
  }

  private readonly storeOpening = new Map<string, Limit>();

  private async refreshStore(s: Session): Promise<void> {
    // Open and live (or removed: `use` reports that), nothing to do.
    if (this.closed || (s.store && (await s.store.standing()) !== 'replaced')) return;
    if (!(await s.backend.exists())) return;
    // First open, or the index was rebuilt and swapped in (`cita index --rebuild`, reindex with rebuild):
    // new requests read the new index; requests in flight finish on the old one, closed after them.
    const store = await s.backend.open(s.embedder.dims);
    if (this.closed) {
      // `close()` ran meanwhile and will not see this store.
      await store.close();
      return;
    }
    const old = s.store;
    s.store = store;
    if (old) await this.retire(old);
  }

  /** Requests reading each store now; a store swapped out is closed when its count falls to zero. */
  private readonly readers = new Map<Store, number>();
  private readonly retired = new Set<Store>();

  /** Counts a reader of `store` (call it in the same tick the store is taken from the session); returns its release. */
  private acquire(store: Store): () => Promise<void> {
    this.readers.set(store, (this.readers.get(store) ?? 0) + 1);
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      const n = (this.readers.get(store) ?? 1) - 1;
      if (n > 0) {
        this.readers.set(store, n);
        return;
      }
      this.readers.delete(store);
      if (this.retired.delete(store)) await store.close();
    };
  }

  /**
   * Closes a store that a swap replaced, at once or after its last reader. Safe for the new index:
   * SQLite sees that the path now names another file, so closing neither checkpoints into it nor
   * deletes its WAL (checked by a test). Before, swapped-out stores were never closed: one deleted
   * index file stayed open per rebuild.
   */
  private async retire(store: Store): Promise<void> {
    if (this.readers.has(store)) this.retired.add(store);
    else await store.close();
  }

  /**
   * Runs `fn` on a session that can answer (indexed, with the model the config uses). The store it
   * gets stays open until `fn` settles, even if a rebuild swaps the index meanwhile.
   */
  async use<T>(name: string, fn: (s: Session & { store: Store }) => Promise<T>): Promise<T> {
    if (!(await this.hasIndex(name))) throw noIndexYet(name);
    let release: (() => Promise<void>) | undefined;
    try {
      const s = await this.get(name);
      const store = s.store;
      if (!store) throw noIndexYet(name);
      release = this.acquire(store);
      await checkIndex(store, s.embedder, name);
      return await fn({ ...s, store });
    } catch (err) {
      throw err instanceof IndexDamagedError ? new IndexNeedsRebuildError(name, err) : err;
    } finally {
      await release?.();
    }
  }

  /**
   * Whether the instance has an index, without loading its model: the open store knows whether its
   * index is still there (no request to a cluster); else the backend is asked.
   */
  async hasIndex(name: string): Promise<boolean> {
    const { config, paths } = this.configOf(name);
    const loaded = await this.open.get(name)?.catch(() => undefined);
    return loaded?.store ? (await loaded.store.standing()) !== 'removed' : await instanceBackend(config, paths).exists();
  }

  /** What `ask` needs, from a ready session (see `use`). */
  static askDeps(s: Session & { store: Store }): AskDeps {
    return { config: s.config, store: s.store, embedder: s.embedder, generator: s.generator, checkout: s.paths.checkout, modelTranslator: s.modelTranslator };
  }

  /** Index status without loading a model. */
  async status(name: string): Promise<IndexStatus> {
    const { config, paths } = this.configOf(name);
    const base = { name, github: config.repository.github, ref: config.repository.ref, storeKind: config.store.kind };
    const chunks = Object.fromEntries(COLLECTIONS.map((c) => [c, 0])) as Record<Collection, number>;
    if (!(await instanceBackend(config, paths).exists())) return { ...base, indexed: false, chunks };
    const meta = await readMeta(config, paths);
    // A loaded session reads its own store (reopened first if the index was swapped), counted as a reader.
    const session = await this.open.get(name)?.catch(() => undefined);
    if (session) await this.get(name);
    const shared = session?.store;
    const release = shared && this.acquire(shared);
    const store = shared ?? (await openIndex(config, paths, meta));
    try {
      for (const c of COLLECTIONS) chunks[c] = await store.count(c);
    } finally {
      if (release) await release();
      else await store.close();
    }
    return { ...base, indexed: Boolean(meta.model), model: meta.model, lastIndexed: meta.indexedAt, chunks };
  }

  /** Set by `close()`: no store is opened after it. */
  private closed = false;

  async close(): Promise<void> {
    this.closed = true;
    const sessions = await Promise.all([...this.open.values()].map((p) => p.catch(() => undefined)));
    this.open.clear();
    // A store being opened now is set on its session before the loop below closes it.
    for (const opening of this.storeOpening.values()) await opening.idle();
    for (const s of sessions) {
      if (!s) continue;
      await s.store?.close();
      await s.close();
    }
    for (const store of this.retired) await store.close();
    this.retired.clear();
  }
}
