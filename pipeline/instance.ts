import fs from 'node:fs';
import path from 'node:path';
import type { CitaConfig } from './config/schema.ts';
import { createEmbedder } from './embedding/create.ts';
import { VectorCache } from './index/vectorCache.ts';
import { scanFiles, type FileScan } from './sources/files.ts';
import { SqliteStore } from './store/sqlite.ts';
import type { Store } from './store/store.ts';
import type { Embedder } from './types.ts';

/**
 * Config step two: resolve a validated config into paths and objects. Everything that touches the
 * file system or loads a model starts here, so the pipeline modules receive their dependencies.
 */

export interface InstancePaths {
  checkout: string;
  store: string;
  /** Vectors already paid for, reused across runs (see VectorCache). */
  vectorCache: string;
  models: string;
}

export function resolvePaths(config: CitaConfig, root: string): InstancePaths {
  const abs = (p: string) => (path.isAbsolute(p) ? p : path.join(root, p));
  const store = abs(config.store.path.replaceAll('{instance}', config.name));
  return {
    checkout: abs(config.repository.path),
    store,
    vectorCache: path.join(path.dirname(store), 'vectors.sqlite'),
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
  });
}

export async function openEmbedder(config: CitaConfig, paths: InstancePaths): Promise<Embedder> {
  return createEmbedder({
    provider: config.embedding.provider,
    modelsDir: paths.models,
    localDir: config.embedding.localDir,
    batchSize: config.embedding.batchSize,
  });
}

export function openStore(config: CitaConfig, paths: InstancePaths, dims: number): Store {
  fs.mkdirSync(path.dirname(paths.store), { recursive: true });
  return SqliteStore.open(paths.store, { dims });
}

export function openVectorCache(paths: InstancePaths): VectorCache {
  return VectorCache.open(paths.vectorCache);
}

/** Whether an index exists for the instance (without creating one). */
export function hasIndex(paths: InstancePaths): boolean {
  return fs.existsSync(paths.store);
}
