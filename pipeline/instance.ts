import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { CitaConfig } from './config/schema.ts';
import { createEmbedder } from './embedding/create.ts';
import { FILES_META_KEY, withoutFileRecord } from './index/fileManifest.ts';
import { pidAlive } from './index/indexLock.ts';
import { contentHash } from './chunking/ids.ts';
import { VectorCache } from './index/vectorCache.ts';
import { scanFiles, type FileScan } from './sources/files.ts';
import type { ElasticsearchStoreOptions } from './store/elasticsearch/elasticsearchStore.ts';
import { GENERATION_KEY, SqliteStore } from './store/sqlite/sqliteStore.ts';
import type { Store } from './store/store.ts';
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

export async function openEmbedder(config: CitaConfig, paths: InstancePaths): Promise<Embedder> {
  return createEmbedder({
    provider: config.embedding.provider,
    modelsDir: paths.models,
    localDir: config.embedding.localDir && resolveIn(paths.root, config.embedding.localDir),
    batchSize: config.embedding.batchSize,
    model: config.embedding.model,
    prefixes: config.embedding.prefixes,
    isolate: config.embedding.isolate,
    threads: config.embedding.threads,
    longTexts: config.embedding.longTexts,
  });
}

/** Opens the instance's store by `store.kind` (creating an empty index the first time). */
export async function openStore(config: CitaConfig, paths: InstancePaths, dims: number): Promise<Store> {
  if (config.store.kind === 'elasticsearch') {
    const { ElasticsearchStore } = await import('./store/elasticsearch/elasticsearchStore.ts');
    return ElasticsearchStore.open(await elasticsearchOptions(config, paths, dims));
  }
  return openSqlite(config, paths.store, dims);
}

function openSqlite(config: CitaConfig, file: string, dims: number): SqliteStore {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  return SqliteStore.open(file, { dims, instance: config.name });
}

/**
 * The Elasticsearch store's options from `store.elasticsearch`: credentials from the environment
 * variables it names (never from the file), the CA file relative to the project root.
 */
export async function elasticsearchOptions(
  config: CitaConfig,
  paths: InstancePaths,
  dims: number,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ElasticsearchStoreOptions> {
  const { clientOptionsFromEnv } = await import('./store/elasticsearch/elasticsearchStore.ts');
  const es = config.store.elasticsearch;
  const caFile = es.caFile === undefined ? undefined : resolveIn(paths.root, es.caFile);
  if (caFile !== undefined && !fs.existsSync(caFile)) throw new Error(`store.elasticsearch.caFile: ${caFile} does not exist`);
  const client = await clientOptionsFromEnv(
    {
      url: es.url,
      apiKeyEnv: es.apiKeyEnv,
      usernameEnv: es.usernameEnv,
      passwordEnv: es.passwordEnv,
      caFile,
      rejectUnauthorized: es.rejectUnauthorized,
      requestTimeoutMs: es.requestTimeoutMs,
      maxRetries: es.maxRetries,
    },
    env,
  );
  return { dims, instance: config.name, client, analyzer: es.analyzer, prefix: es.prefix, shards: es.shards, replicas: es.replicas };
}

/** A fresh index being built beside the live one (`cita index --rebuild`): readers keep the old one until `commit`. */
export interface RebuildTarget {
  /** Empty at first; reads and writes go to the new index only. */
  store: Store;
  /** Replaces the live index with the new one atomically, then closes the store. */
  commit(): Promise<void>;
  /** Drops the new index (the live one was never touched) and closes the store. */
  discard(): Promise<void>;
}

export async function openRebuild(config: CitaConfig, paths: InstancePaths, dims: number): Promise<RebuildTarget> {
  if (config.store.kind === 'elasticsearch') {
    const { ElasticsearchStore } = await import('./store/elasticsearch/elasticsearchStore.ts');
    const store = await ElasticsearchStore.openRebuild(await elasticsearchOptions(config, paths, dims));
    return {
      store,
      commit: () => store.commitRebuild().finally(() => store.close()),
      discard: () => store.discardRebuild().finally(() => store.close()),
    };
  }
  discardStaleRebuilds(paths);
  const file = rebuildFile(paths);
  const store = openSqlite(config, file, dims);
  return {
    store,
    async commit() {
      await store.close();
      replaceIndex(paths, file);
    },
    async discard() {
      await store.close();
      discardRebuild(file);
    },
  };
}

/**
 * Where a `--rebuild` builds a fresh index before it replaces the old one: a name of its own
 * (`<index>.rebuild-<pid>-<random>`), so no run ever opens or deletes another run's file.
 */
export function rebuildFile(paths: InstancePaths, id = `${process.pid}-${randomUUID().slice(0, 8)}`): string {
  return `${paths.store}.rebuild-${id}`;
}

const SIDE_FILES = ['-wal', '-shm'];

/**
 * Replaces the index with a completely built new one. The old file is left untouched until the new
 * one is whole; a rename is atomic, so a crash leaves one or the other, never a mix. The new file was
 * closed (WAL checkpointed) by the caller; the old one's side files go first so they are never
 * applied to the new file.
 */
export function replaceIndex(paths: InstancePaths, rebuilt: string): void {
  for (const side of SIDE_FILES) if (fs.existsSync(`${rebuilt}${side}`)) throw new Error(`${rebuilt} was not closed cleanly`);
  if (fs.existsSync(paths.store)) {
    // Fold the old WAL into its file, so dropping the side files loses nothing if we stop here.
    try {
      const db = new Database(paths.store);
      db.pragma('wal_checkpoint(TRUNCATE)');
      db.close();
    } catch {
      // Not a readable database (the reason for many a rebuild): nothing in it to keep.
    }
    for (const side of SIDE_FILES) fs.rmSync(`${paths.store}${side}`, { force: true });
  }
  fs.renameSync(rebuilt, paths.store);
}

/** Removes a half-built rebuild file and its side files. */
export function discardRebuild(file: string): void {
  for (const suffix of ['', ...SIDE_FILES]) fs.rmSync(`${file}${suffix}`, { force: true });
}

/** Removes half-built rebuilds left by interrupted runs: those whose process is gone (and the old fixed name). */
function discardStaleRebuilds(paths: InstancePaths): void {
  const dir = path.dirname(paths.store);
  const prefix = `${path.basename(paths.store)}.rebuild`;
  if (!fs.existsSync(dir)) return;
  for (const name of fs.readdirSync(dir)) {
    if (!name.startsWith(prefix) || SIDE_FILES.some((side) => name.endsWith(side))) continue;
    const pid = /^-(\d+)-[0-9a-f]+$/.exec(name.slice(prefix.length))?.[1];
    if (name === prefix || (pid !== undefined && !pidAlive(Number(pid)))) discardRebuild(path.join(dir, name));
  }
}

export function openVectorCache(config: CitaConfig, paths: InstancePaths): VectorCache {
  return VectorCache.open(paths.vectorCache, { maxBytes: config.embedding.cacheMB * 1024 * 1024, legacy: paths.legacyVectorCache ? [paths.legacyVectorCache] : [] });
}

/** Whether an index exists for the instance (without creating one); for Elasticsearch, asks the cluster. */
/** The existing index, opened with the vector size it was built with (no model loaded). */
export async function openIndex(config: CitaConfig, paths: InstancePaths, meta?: Record<string, string>): Promise<Store> {
  return openStore(config, paths, Number((meta ?? (await readMeta(config, paths))).dims ?? 384));
}

export async function hasIndex(config: CitaConfig, paths: InstancePaths): Promise<boolean> {
  if (config.store.kind === 'elasticsearch') return (await readElasticsearchMeta(config, paths)) !== null;
  return fs.existsSync(paths.store);
}

async function readElasticsearchMeta(config: CitaConfig, paths: InstancePaths): Promise<Record<string, string> | null> {
  const { ElasticsearchStore } = await import('./store/elasticsearch/elasticsearchStore.ts');
  return ElasticsearchStore.readMeta(await elasticsearchOptions(config, paths, 1));
}

/**
 * The index's own metadata (model, dims, time), read without loading a model; empty when there is
 * none. The indexer's per-file record (hundreds of KB on a large checkout) is left out: the page
 * polls this every few seconds and only the indexer reads the record (through `store.meta()`).
 */
export async function readMeta(config: CitaConfig, paths: InstancePaths): Promise<Record<string, string>> {
  if (config.store.kind === 'elasticsearch') return withoutFileRecord((await readElasticsearchMeta(config, paths)) ?? {});
  const db = new Database(paths.store, { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare('SELECT key, value FROM meta WHERE key NOT IN (?, ?)').all(GENERATION_KEY, FILES_META_KEY) as { key: string; value: string }[];
    return Object.fromEntries(rows.map((r) => [r.key, r.value]));
  } catch {
    return {};
  } finally {
    db.close();
  }
}
