import fs from 'node:fs';
import path from 'node:path';
import type { Generator } from './answer/types.ts';
import { findRoot, loadConfig } from './config/load.ts';
import type { CitaConfig } from './config/schema.ts';
import { createEmbedder, type EmbedderConfig } from './embedding/create.ts';
import { FILES_META_KEY } from './index/fileManifest.ts';
import { contentHash } from './chunking/ids.ts';
import { VectorCache } from './index/vectorCache.ts';
import { UserError } from './errors.ts';
import { scanFiles, type FileScan } from './sources/files.ts';
import { storeBackend } from './store/backend.ts';
import type { RebuildTarget, Store, StoreBackend } from './store/store.ts';
import type { Embedder } from './types.ts';

/**
 * Config step two: resolve a validated config into paths and objects. Everything that touches the
 * file system or loads a model starts here, so the pipeline modules receive their dependencies.
 */

export interface InstancePaths {
  /** The project root every relative config path is resolved against. */
  root: string;
  checkout: string;
  store: string;
  /**
   * The index lock (see indexLock.ts): one writer at a time. Beside `store` for Elasticsearch too,
   * so it only keeps out runs that share this project root; the generation check covers the rest.
   */
  lock: string;
  /** Vectors already paid for, reused across runs and by every instance of the checkout (see VectorCache). */
  vectorCache: string;
  /** Where an older cita kept this instance's own vector cache (taken over once). */
  legacyVectorCache?: string;
  models: string;
}

/** A config path: absolute as given, else relative to the project root. */
export function resolveIn(root: string, p: string): string {
  return path.isAbsolute(p) ? p : path.join(root, p);
}

/**
 * The vector cache of a checkout, shared by every instance over it (an A/B of corpus configs included):
 * `.cita/vectors/<checkout name>-<hash of its path>.sqlite` under the project root.
 */
export function vectorCachePath(root: string, checkout: string): string {
  return path.join(root, '.cita', 'vectors', `${path.basename(checkout)}-${contentHash(path.resolve(checkout)).slice(0, 12)}.sqlite`);
}

export function resolvePaths(config: CitaConfig, root: string): InstancePaths {
  const abs = (p: string) => resolveIn(root, p);
  const store = abs(config.store.path.replaceAll('{instance}', config.name));
  return {
    root,
    checkout: abs(config.repository.path),
    store,
    lock: `${store}.lock`,
    vectorCache: vectorCachePath(root, abs(config.repository.path)),
    legacyVectorCache: path.join(path.dirname(store), 'vectors.sqlite'),
    models: abs(config.embedding.dir),
  };
}

export function scanSources(config: CitaConfig, paths: InstancePaths): FileScan {
  if (!fs.existsSync(paths.checkout)) {
    throw new Error(
      `repository.path: ${paths.checkout} does not exist` +
        (config.name === 'pytest' ? ' (run `npm run setup` to fetch the pytest corpus)' : ''),
    );
  }
  return scanFiles(paths.checkout, {
    docs: config.sources.docs,
    code: config.sources.code,
    exclude: config.sources.exclude,
    respectGitignore: config.sources.respectGitignore,
    maxFileBytes: config.sources.maxFileBytes,
    maxFiles: config.sources.maxFiles,
  });
}

/**
 * The embedder's options as the instance's config gives them (benches vary one of them from here);
 * `purpose` decides `embedding.isolate: serve`.
 */
export function embedderOptions(config: CitaConfig, paths: InstancePaths, purpose?: Purpose): EmbedderConfig {
  const { isolate } = config.embedding;
  return {
    provider: config.embedding.provider,
    modelsDir: paths.models,
    localDir: config.embedding.localDir && resolveIn(paths.root, config.embedding.localDir),
    batchSize: config.embedding.batchSize,
    model: config.embedding.model,
    prefixes: config.embedding.prefixes,
    isolate: isolate === true || (isolate === 'serve' && purpose === 'serve'),
    threads: config.embedding.threads,
    longTexts: config.embedding.longTexts,
    precision: config.embedding.precision,
  };
}

export async function openEmbedder(config: CitaConfig, paths: InstancePaths, purpose?: Purpose): Promise<Embedder> {
  return createEmbedder(embedderOptions(config, paths, purpose));
}

/** The instance's index backend (SQLite file or Elasticsearch cluster): its lifecycle, behind the Store port. */
export function instanceBackend(config: CitaConfig, paths: InstancePaths): StoreBackend {
  return storeBackend(config, { root: paths.root, file: paths.store });
}

/** Opens the instance's index (creating an empty one the first time) with vectors of `dims`. */
export async function openStore(config: CitaConfig, paths: InstancePaths, dims: number): Promise<Store> {
  return instanceBackend(config, paths).open(dims);
}

/** A fresh index built beside the live one (`cita index --rebuild`); see RebuildTarget. */
export async function openRebuild(config: CitaConfig, paths: InstancePaths, dims: number): Promise<RebuildTarget> {
  return instanceBackend(config, paths).rebuild(dims);
}

export function openVectorCache(config: CitaConfig, paths: InstancePaths): VectorCache {
  return VectorCache.open(paths.vectorCache, { maxBytes: config.embedding.cacheMB * 1024 * 1024, legacy: paths.legacyVectorCache ? [paths.legacyVectorCache] : [] });
}

/** Whether an index exists for the instance (without creating one); for Elasticsearch, asks the cluster. */
export async function hasIndex(config: CitaConfig, paths: InstancePaths): Promise<boolean> {
  return instanceBackend(config, paths).exists();
}

/** The existing index, opened with the vector size it was built with (no model loaded). */
export async function openIndex(config: CitaConfig, paths: InstancePaths, meta?: Record<string, string>): Promise<Store> {
  return openStore(config, paths, Number((meta ?? (await readMeta(config, paths))).dims ?? 384));
}

/**
 * The index's own metadata (model, dims, time), read without loading a model; empty when there is
 * none. The indexer's per-file record (hundreds of KB on a large checkout) is left out: the page
 * polls this every few seconds and only the indexer reads the record (through `store.meta()`).
 */
export async function readMeta(config: CitaConfig, paths: InstancePaths): Promise<Record<string, string>> {
  return instanceBackend(config, paths).meta([FILES_META_KEY]);
}

/**
 * The instance is configured but its index cannot answer yet: never indexed, indexed with nothing,
 * or built with another model. One class and one message per failure, for every way in (CLI, server,
 * evaluation, promptfoo, `npm start`).
 */
export class IndexNotReadyError extends UserError {
  override name = 'IndexNotReadyError';
}

export const noIndexYet = (name: string) => new IndexNotReadyError(`instance "${name}" has no index yet: run \`cita index ${name}\` (or the API's reindex mutation)`);

/**
 * Whether an open index can answer questions embedded by `embedder`: it holds chunks, and they were
 * embedded by the same model (a query embedded by another model would be compared with vectors of
 * another space). The dimensions were checked when the store was opened.
 */
export async function checkIndex(store: Store, embedder: Pick<Embedder, 'id'>, name: string): Promise<void> {
  const meta = await store.meta();
  if (!meta.model || (await store.count()) === 0) throw new IndexNotReadyError(`instance "${name}" has an empty index: run \`cita index ${name}\``);
  if (meta.model !== embedder.id) {
    throw new IndexNotReadyError(`the index of "${name}" was built with ${meta.model} but the config uses ${embedder.id}: run \`cita index ${name}\` to re-embed it`);
  }
}

/**
 * What an instance is opened for, which decides what is loaded and what must exist already:
 * - `index`: the model only; the index may not exist yet (the indexer opens or creates it).
 * - `read`: the existing index at its own vector size, no model (`cita issue`, the examples of `npm start`).
 * - `search`: the model and the existing index, checked to match (`cita search`, evaluation scripts).
 * - `ask`: as `search`, plus the answer generator (`cita ask`, evaluation targets, promptfoo).
 * - `serve`: the model and the generator; the server opens (and after a rebuild reopens) the index
 *   itself through `backend`, checking it with `checkIndex` before each use.
 */
export type Purpose = 'index' | 'read' | 'search' | 'ask' | 'serve';

interface Needs {
  index: 'embedder';
  read: 'store';
  search: 'embedder' | 'store';
  ask: 'embedder' | 'store' | 'generator';
  serve: 'embedder' | 'generator';
}

export interface Instance {
  name: string;
  config: CitaConfig;
  /** The instance file the config came from. */
  file: string;
  paths: InstancePaths;
  /** The index's lifecycle (exists, meta, open, rebuild), whatever the backend. */
  backend: StoreBackend;
  store?: Store;
  embedder?: Embedder;
  generator?: Generator;
  /** Closes what this call opened (generator, store, model), not what it was given. */
  close(): Promise<void>;
}

export type InstanceFor<P extends Purpose> = Instance & Required<Pick<Instance, Needs[P]>>;

export interface OpenOptions<P extends Purpose> {
  purpose: P;
  /** Project root (default: `findRoot()`). */
  root?: string;
  /** `key.path=value` config overrides (`--set`), applied last. */
  overrides?: string[];
  /** Partial YAML files merged over the instance file first (`cita eval --config/--vs`). */
  overlays?: string[];
  /** Where the generator reports (e.g. a local model loading). */
  log?: (message: string) => void;
  /** A model already loaded and shared (evaluation targets with the same embedding settings): used as is, not closed. */
  embedder?: Embedder;
  /** A store already open on this instance's index and shared: checked like a fresh one, not closed. */
  store?: Store;
  /** Wraps the model before the store check and the generator use it (the server's fair queue and query cache); closed by `close()`. */
  wrapEmbedder?: (embedder: Embedder) => Embedder;
}

export interface LoadedInstance {
  config: CitaConfig;
  file: string;
  paths: InstancePaths;
}

/** Config step one and two for an instance: load and validate its config, resolve its paths. Nothing is opened. */
export function loadInstance(name: string, options: { root?: string; overrides?: string[]; overlays?: string[] } = {}): LoadedInstance {
  const root = options.root ?? findRoot();
  const { config, file } = loadConfig(name, { root, overrides: options.overrides, overlays: options.overlays });
  return { config, file, paths: resolvePaths(config, root) };
}

/**
 * The one composition root: an instance's config (by name, or as `loadInstance` returned it), its
 * index, model and generator, opened for `purpose` and checked with one message per failure (no
 * index yet, an empty index, another model; another vector size or a damaged index is the store's
 * IndexDamagedError). On any failure what was opened is closed again.
 */
export async function openInstance<P extends Purpose>(what: string | LoadedInstance, options: OpenOptions<P>): Promise<InstanceFor<P>> {
  const { config, file, paths } = typeof what === 'string' ? loadInstance(what, options) : what;
  const { purpose } = options;
  const name = config.name;
  const backend = instanceBackend(config, paths);
  const owned: { close(): Promise<void> | void }[] = [];
  const close = async () => {
    // Generator first (it may hold the model's embedder), the model last.
    for (const o of owned.splice(0).reverse()) await o.close();
  };
  const instance: Instance = { name, config, file, paths, backend, close };
  try {
    const needsIndex = purpose === 'read' || purpose === 'search' || purpose === 'ask';
    // Checked before a model loads: a missing index is the commonest failure and the cheapest to find.
    if (needsIndex && !options.store && !(await backend.exists())) throw noIndexYet(name);
    if (purpose === 'read') {
      instance.store = options.store ?? own(owned, await openIndex(config, paths));
      return instance as InstanceFor<P>;
    }
    const model = options.embedder ?? (await openEmbedder(config, paths, purpose));
    const embedder = options.wrapEmbedder ? options.wrapEmbedder(model) : model;
    // A wrapper closes the model with itself; a model given is the giver's to close.
    if (!options.embedder) owned.push(embedder);
    instance.embedder = embedder;
    if (needsIndex) {
      const store = options.store ?? own(owned, await backend.open(embedder.dims));
      await checkIndex(store, embedder, name);
      instance.store = store;
    }
    if (purpose === 'ask' || purpose === 'serve') {
      // Loaded here, so indexing and search do not load the answer path.
      const { createGenerator } = await import('./answer/generators/index.ts');
      const generator = await createGenerator(config.answer.generator, { modelsDir: paths.models, embedder, log: options.log ?? (() => {}) });
      owned.push({ close: () => generator.close?.() });
      instance.generator = generator;
    }
    return instance as InstanceFor<P>;
  } catch (err) {
    await close().catch(() => undefined);
    throw err;
  }
}

/** Records that `openInstance` opened `thing` (so its `close()` closes it) and returns it. */
function own<T extends { close(): Promise<void> | void }>(owned: { close(): Promise<void> | void }[], thing: T): T {
  owned.push(thing);
  return thing;
}
