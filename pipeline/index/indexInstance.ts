import type { CitaConfig } from '../config/schema.ts';
import {
  hasIndex,
  openRebuild,
  openStore,
  openVectorCache,
  resolveIn,
  scanSources,
  type InstancePaths,
} from '../instance.ts';
import type { FileScan } from '../sources/files.ts';
import { scaleAdvice, scratchStore } from '../store/backend.ts';
import type { Store } from '../store/store.ts';
import { COLLECTIONS, type Chunk, type Collection, type Embedder } from '../types.ts';
import { runIndex, type IndexProgress, type IndexSummary } from './indexer.ts';
import { acquireIndexLock, type IndexLock } from './indexLock.ts';
import { gatherIssueChunks } from './issueChunks.ts';
import { VectorCache } from './vectorCache.ts';

/**
 * One index run of an instance, as `cita index` and the API's `reindex` both do it: take the
 * instance's index lock, scan, gather the issues (incrementally), run the indexer (one final
 * transaction, refused if the index moved since the plan was read), optionally build beside the old
 * index and swap it in. The caller owns the embedder; the store and vector cache are opened and
 * closed here.
 */

export interface IndexInstanceOptions {
  config: CitaConfig;
  paths: InstancePaths;
  embedder: Embedder;
  /** A scan already made by the caller (the CLI checks it first); scanned here otherwise. */
  scan?: FileScan;
  /**
   * Collections to re-index; the others keep exactly the chunks they have (default: all).
   * Unselected collections are passed through unchanged, so nothing of them is deleted or re-embedded.
   */
  sources?: Collection[];
  dryRun?: boolean;
  /** Build a fresh index beside the old one and replace it when complete (`cita index --rebuild`). */
  rebuild?: boolean;
  /** Called at every step; throwing from it aborts the run before anything is written. */
  onProgress?: (p: IndexProgress) => void;
  log?: (message: string) => void;
  /**
   * The instance's index lock, when the caller took it already (the CLI does, before it scans, so
   * the scan is as fresh as the lock); the caller releases it. Otherwise it is taken here without
   * waiting (IndexBusyError if another run holds it) and released at the end. A dry run writes
   * nothing and takes no lock.
   */
  lock?: IndexLock;
}

export async function indexInstance(o: IndexInstanceOptions): Promise<IndexSummary> {
  const lock = o.lock ?? (o.dryRun ? undefined : await acquireIndexLock(o.paths.lock, { instance: o.config.name }));
  try {
    return await indexLocked(o);
  } finally {
    if (!o.lock) lock?.release();
  }
}

async function indexLocked(o: IndexInstanceOptions): Promise<IndexSummary> {
  const { config, paths, embedder } = o;
  const selected = new Set<Collection>(o.sources?.length ? o.sources : COLLECTIONS);
  const fullScan = o.scan ?? scanSources(config, paths);
  const scan: FileScan = selected.size === COLLECTIONS.length ? fullScan : { ...fullScan, documents: fullScan.documents.filter((d) => selected.has(d.collection)) };
  const rebuild = Boolean(o.rebuild && !o.dryRun);
  if (rebuild && selected.size !== COLLECTIONS.length) throw new Error('a rebuild re-indexes every collection; do not select sources');
  // A rebuild writes a fresh index (a file beside the old one, or new Elasticsearch generations) and swaps it in at the end.
  const target = rebuild ? await openRebuild(config, paths, embedder.dims) : undefined;
  const store = target?.store ?? (o.dryRun ? await storeToPlanAgainst(config, paths, embedder.dims) : await openStore(config, paths, embedder.dims));
  // A dry run creates nothing: not the index, not its folder, not the vector cache.
  const cache = o.dryRun ? VectorCache.openForReading(paths.vectorCache, paths.legacyVectorCache) : openVectorCache(config, paths);
  let complete = false;
  try {
    // Before the first read the plan depends on (issues since, kept collections, ids).
    const generation = await store.generation();
    const chunking = { maxTokens: config.chunking.maxTokens, lineWindow: config.chunking.lineWindow };
    const issues = selected.has('issues')
      ? await gatherIssueChunks({
          config,
          resolve: (p) => resolveIn(paths.root, p),
          store,
          counter: embedder,
          chunking,
          log: o.log ?? (() => {}),
        })
      : undefined;
    // Collections not selected: their current chunks, unchanged (same ids, so no re-embedding).
    const kept: Chunk[] = [];
    for (const c of COLLECTIONS) if (!selected.has(c)) kept.push(...(await store.get(await store.ids(c))));
    const summary = await runIndex({
      extraChunks: [...(issues?.chunks ?? []), ...kept],
      extraMeta: issues?.meta,
      extraWarnings: issues?.warnings,
      instance: config.name,
      scan,
      embedder,
      store,
      generation,
      cache,
      chunking,
      collections: [...selected],
      batchSize: config.embedding.batchSize,
      dryRun: o.dryRun,
      onProgress: o.onProgress,
    });
    const advice = scaleAdvice(config, Object.fromEntries(Object.entries(summary.collections).map(([c, cs]) => [c, cs.chunks])));
    if (advice) summary.warnings.push(advice);
    complete = true;
    return summary;
  } finally {
    cache.close();
    if (!target) await store.close();
    else if (complete) await target.commit();
    // Best effort: the error that stopped the run is the one to report; the live index is intact either way.
    else await target.discard().catch(() => undefined);
  }
}

/** The index a dry run plans against: the existing one, or an empty one in memory (nothing created on disk or on a cluster). */
async function storeToPlanAgainst(config: CitaConfig, paths: InstancePaths, dims: number): Promise<Store> {
  if (await hasIndex(config, paths)) return openStore(config, paths, dims);
  return scratchStore(dims, config.name);
}
