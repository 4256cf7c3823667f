import type { CitaConfig } from '../config/schema.ts';
import { elasticsearchBackend, elasticsearchOptions } from './elasticsearch/backend.ts';
import { sqliteBackend } from './sqlite/backend.ts';
import { SqliteStore } from './sqlite/sqliteStore.ts';
import type { Store, StoreBackend } from './store.ts';

/**
 * The instance's index backend by `store.kind`: the one place that knows which backends there are.
 * `file` is the resolved `store.path` (SQLite); `root` resolves the Elasticsearch CA file.
 */
export function storeBackend(config: CitaConfig, where: { root: string; file: string }): StoreBackend {
  if (config.store.kind === 'elasticsearch') {
    return elasticsearchBackend(async (dims) => ({ ...(await elasticsearchOptions(config, where, dims)), ...bm25Options(config) }));
  }
  return sqliteBackend(where.file, config.name, bm25Options(config));
}

/** `retrieval.bm25` as the stores take it: undefined (off) for 0. */
export function bm25Options(config: CitaConfig): { bm25MaxTerms?: number; bm25CommonCutoff?: number } {
  const { maxTerms, commonCutoff } = config.retrieval.bm25;
  return { bm25MaxTerms: maxTerms > 0 ? maxTerms : undefined, bm25CommonCutoff: commonCutoff > 0 ? commonCutoff : undefined };
}

/** An empty index in memory, whatever the instance's backend: what a dry run plans against when there is no index (nothing is created on disk or on a cluster). */
export function scratchStore(dims: number, instance: string): Store {
  return SqliteStore.open(':memory:', { dims, instance });
}
