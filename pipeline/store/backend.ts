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
  return sqliteBackend(where.file, config.name, { ...bm25Options(config), bm25PostingsBytes: config.retrieval.bm25.memoryMB * 2 ** 20 });
}

/** `retrieval.bm25` as the stores take it: undefined (off) for 0. */
export function bm25Options(config: CitaConfig): { bm25MaxTerms?: number; bm25CommonCutoff?: number } {
  const { maxTerms, commonCutoff } = config.retrieval.bm25;
  return { bm25MaxTerms: maxTerms > 0 ? maxTerms : undefined, bm25CommonCutoff: commonCutoff > 0 ? commonCutoff : undefined };
}

/** Chunks in one collection past which the SQLite store is slow for a server (docs/store.md; #14 item 4). */
export const SQLITE_LARGE_COLLECTION = 100_000;

/**
 * Advice for an index whose collections outgrew the SQLite store, or undefined: another store, or
 * collections below the size. At 200,000 chunks its BM25 keeps typed questions in milliseconds once
 * their words' rows are kept in memory, but reading a common word's rows the first time after an
 * index change takes hundreds of milliseconds, and kNN scans every vector (~110 ms a question).
 */
export function scaleAdvice(config: CitaConfig, chunks: Partial<Record<string, number>>): string | undefined {
  if (config.store.kind !== 'sqlite') return undefined;
  const large = Object.entries(chunks).filter(([, n]) => (n ?? 0) > SQLITE_LARGE_COLLECTION);
  if (large.length === 0) return undefined;
  const which = large.map(([c, n]) => `${c} ${n!.toLocaleString('en')} chunks`).join(', ');
  return (
    `${which}: past ${SQLITE_LARGE_COLLECTION.toLocaleString('en')} chunks a collection, the SQLite store's kNN scans every vector (~100 ms a question) ` +
    `and its BM25 reads a common word's rows the first time after each index change (hundreds of milliseconds), then keeps them in memory (retrieval.bm25.memoryMB, ${config.retrieval.bm25.memoryMB} MB a collection); ` +
    'at this size use store.kind: elasticsearch (docs/store.md, "SQLite\'s BM25 at 200,000 chunks")'
  );
}

/** An empty index in memory, whatever the instance's backend: what a dry run plans against when there is no index (nothing is created on disk or on a cluster). */
export function scratchStore(dims: number, instance: string): Store {
  return SqliteStore.open(':memory:', { dims, instance });
}
