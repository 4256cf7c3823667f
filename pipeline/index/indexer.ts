import type { Store } from '../store/store.ts';
import { contentHash } from '../chunking/ids.ts';
import { chunkDocument } from '../chunking/index.ts';
import { countSkipped, type FileScan, type SkippedFile } from '../sources/files.ts';
import { COLLECTIONS, type Chunk, type ChunkingOptions, type Collection, type Document, type Embedder, type StoredChunk } from '../types.ts';
import { chunkingFingerprint, describe, FILES_META_KEY, readManifest, unchangedEntry, type FileEntry, type FileManifest } from './fileManifest.ts';
import type { VectorCache } from './vectorCache.ts';

/**
 * One indexing run, in the order continue's indexer taught us: build a plan (what to embed, what to
 * delete), execute it with progress, and change the store only in one final transaction.
 */

export type IndexPhase = 'chunk' | 'embed' | 'write';

export interface IndexProgress {
  phase: IndexPhase;
  done: number;
  total: number;
  /** What is being worked on (a path), for progress displays. */
  item?: string;
}

export interface CollectionSummary {
  files: number;
  chunks: number;
  /** Largest chunk, in model tokens (prefix included). */
  largestTokens: number;
  largestChunk?: string;
}

export interface IndexSummary {
  instance: string;
  model: string;
  dryRun: boolean;
  files: number;
  collections: Partial<Record<Collection, CollectionSummary>>;
  chunks: number;
  /** Chunks over the model window: must be 0, by construction. */
  truncated: number;
  window: number;
  largestTokens: number;
  skipped: Partial<Record<string, number>>;
  skippedFiles: SkippedFile[];
  unmatchedFiles: number;
  plan: { added: number; removed: number; unchanged: number; embedded: number; fromCache: number; reusedFiles: number };
  /** Notes from chunking, e.g. a line too long for the window that had to be cut between words. */
  warnings: string[];
  /** Files whose chunking failed, with the error; their previous chunks are kept. */
  failed: { path: string; error: string }[];
  seconds: number;
}

export interface IndexInput {
  instance: string;
  scan: FileScan;
  /** Chunks from other sources (issues), already chunked by their source. */
  extraChunks?: Chunk[];
  /** Recorded with the change set, in the same transaction (e.g. the issues source's `since`). */
  extraMeta?: Record<string, string>;
  /** Notes from other sources, reported with the summary. */
  extraWarnings?: string[];
  embedder: Embedder;
  store: Store;
  /**
   * The store's `generation()` read before anything the plan depends on (the caller's reads of the
   * store included); read here, before planning, when not given. The commit is refused (nothing
   * written) if another writer committed since.
   */
  generation?: string;
  cache: VectorCache;
  chunking: ChunkingOptions;
  /** The collections `scan` covers (default all): the file records of the others are kept as they are. */
  collections?: Collection[];
  batchSize: number;
  dryRun?: boolean;
  onProgress?: (p: IndexProgress) => void;
  now?: () => Date;
}

/**
 * The chunks in the order to embed them: shortest first (by their token count), ties in the given
 * order. Batches then hold chunks of similar length: a runtime that pads a batch to its longest text
 * (onnxruntime) computes on padding otherwise — in file order, batches of 16 of pytest's chunks were
 * 2.1× their real tokens (bench/index-profile.ts). Vectors go back by text hash, so what is stored
 * does not depend on this order.
 */
export function sortedByLength<T extends Pick<Chunk, 'tokens'>>(chunks: readonly T[]): T[] {
  // Array.prototype.sort is stable: ties keep the given order.
  return [...chunks].sort((a, b) => a.tokens - b.tokens);
}

/** The text hash a vector is cached under: the text the model sees, nothing else. */
export function vectorKey(chunk: Chunk): string {
  return contentHash(chunk.text);
}

export async function runIndex(input: IndexInput): Promise<IndexSummary> {
  const started = Date.now();
  const { embedder, store, cache } = input;
  const progress = input.onProgress ?? (() => {});
  const summary: IndexSummary = {
    instance: input.instance,
    model: embedder.id,
    dryRun: Boolean(input.dryRun),
    files: input.scan.documents.length,
    collections: {},
    chunks: 0,
    truncated: 0,
    window: embedder.window,
    largestTokens: 0,
    skipped: countSkipped(input.scan.skipped),
    skippedFiles: input.scan.skipped,
    unmatchedFiles: input.scan.unmatched,
    plan: { added: 0, removed: 0, unchanged: 0, embedded: 0, fromCache: 0, reusedFiles: 0 },
    warnings: [...(input.extraWarnings ?? [])],
    failed: [],
    seconds: 0,
  };

  // Before the first read the plan depends on.
  const generation = input.generation ?? (await store.generation());
  const meta = await store.meta();
  const sameModel = !meta.model || meta.model === embedder.id;

  // 1. Chunk every document, except files unchanged since the run that wrote the index (their chunks are the index's).
  const fingerprint = chunkingFingerprint(embedder, input.chunking);
  const previous = readManifest(meta);
  const manifest: FileManifest = { fingerprint, files: {} };
  const covered = new Set(input.collections ?? COLLECTIONS);
  // Files of collections this run does not cover keep their entries (their chunks are passed through).
  for (const [p, e] of Object.entries(previous.files)) if (previous.fingerprint === fingerprint && !covered.has(e.collection)) manifest.files[p] = e;
  const docs: Document[] = input.scan.documents;
  const unchanged = new Map<string, FileEntry>();
  for (const doc of docs) {
    const entry = unchangedEntry(previous, fingerprint, doc);
    if (entry) unchanged.set(doc.path, entry);
  }
  const stored = new Map((await store.get([...unchanged.values()].flatMap((e) => e.ids))).map((c) => [c.id, c]));
  const chunks: Chunk[] = [];
  const failedPaths = new Set<string>();
  for (const [i, doc] of docs.entries()) {
    progress({ phase: 'chunk', done: i, total: docs.length, item: doc.path });
    const entry = unchanged.get(doc.path);
    const reused = entry?.ids.map((id) => stored.get(id));
    if (entry && reused?.every((c) => c !== undefined)) {
      chunks.push(...(reused as Chunk[]));
      summary.warnings.push(...entry.warnings);
      manifest.files[doc.path] = entry;
      summary.plan.reusedFiles++;
      continue;
    }
    const warnings: string[] = [];
    try {
      const made = await chunkDocument(doc, embedder, input.chunking, (m) => warnings.push(m));
      chunks.push(...made);
      const now = describe(doc);
      if (now) manifest.files[doc.path] = { ...now, ids: made.map((c) => c.id), warnings };
    } catch (err) {
      failedPaths.add(doc.path);
      summary.failed.push({ path: doc.path, error: err instanceof Error ? err.message : String(err) });
    }
    summary.warnings.push(...warnings);
  }
  progress({ phase: 'chunk', done: docs.length, total: docs.length });
  chunks.push(...(input.extraChunks ?? []));

  const byId = new Map<string, Chunk>();
  for (const c of chunks) byId.set(c.id, c);
  const current = [...byId.values()];
  for (const c of current) {
    const s = (summary.collections[c.collection] ??= { files: 0, chunks: 0, largestTokens: 0 });
    s.chunks++;
    if (c.tokens > s.largestTokens) {
      s.largestTokens = c.tokens;
      s.largestChunk = `${c.citation.path}:${c.citation.startLine}-${c.citation.endLine}`;
    }
    if (c.tokens > embedder.window) summary.truncated++;
  }
  for (const d of docs) {
    const s = summary.collections[d.collection];
    if (s) s.files++;
  }
  const issues = summary.collections.issues;
  if (issues) issues.files = new Set(current.filter((c) => c.collection === 'issues').map((c) => c.citation.issue)).size;
  summary.chunks = current.length;
  summary.largestTokens = Math.max(0, ...current.map((c) => c.tokens));
  if (summary.truncated > 0) {
    // Chunkers guarantee the window; reaching this is a bug, and indexing it would silently truncate.
    throw new Error(`${summary.truncated} chunks exceed the model window of ${embedder.window} tokens; nothing was written`);
  }

  // 2. Plan against what the store holds. A model change re-embeds everything.
  const existing = new Set(await store.ids());
  const toAdd = current.filter((c) => !sameModel || !existing.has(c.id));
  const keepIds = new Set(current.map((c) => c.id));
  // A file that failed to chunk keeps its previous chunks rather than losing them.
  const oldOfFailed = failedPaths.size ? await store.get([...existing].filter((id) => !keepIds.has(id))) : [];
  for (const c of oldOfFailed) if (failedPaths.has(c.citation.path)) keepIds.add(c.id);
  // Upserts replace chunks with the same id, so only chunks that are gone need deleting.
  const toDelete = [...existing].filter((id) => !keepIds.has(id));
  summary.plan.added = toAdd.length;
  summary.plan.removed = toDelete.length;
  summary.plan.unchanged = current.length - toAdd.length;

  if (input.dryRun) {
    summary.plan.fromCache = toAdd.filter((c) => cache.get(embedder.id, vectorKey(c))).length;
    summary.plan.embedded = toAdd.length - summary.plan.fromCache;
    summary.seconds = (Date.now() - started) / 1000;
    return summary;
  }

  // 3. Embed what the cache lacks, shortest first (batches of similar length), committing each batch to the cache.
  const vectors = new Map<string, Float32Array>();
  const missing: Chunk[] = [];
  const seenKeys = new Set<string>();
  for (const c of sortedByLength(toAdd)) {
    const key = vectorKey(c);
    const hit = vectors.get(key) ?? cache.get(embedder.id, key);
    if (hit) {
      vectors.set(key, hit);
      summary.plan.fromCache++;
    } else if (!seenKeys.has(key)) {
      seenKeys.add(key);
      missing.push(c);
    }
  }
  for (let i = 0; i < missing.length; i += input.batchSize) {
    const batch = missing.slice(i, i + input.batchSize);
    progress({ phase: 'embed', done: i, total: missing.length, item: batch[0]?.citation.path });
    const embedded = await embedder.embedPassages(batch.map((c) => c.text));
    const entries = batch.map((c, j) => ({ hash: vectorKey(c), vector: embedded[j]! }));
    cache.putMany(embedder.id, entries);
    for (const e of entries) vectors.set(e.hash, e.vector);
    summary.plan.embedded += batch.length;
  }
  progress({ phase: 'embed', done: missing.length, total: missing.length });

  // 4. One transaction: readers see the old index until it commits; refused if the index moved since the plan.
  progress({ phase: 'write', done: 0, total: 1 });
  const upsert: StoredChunk[] = toAdd.map((c) => ({ ...c, vector: vectors.get(vectorKey(c))! }));
  const when = (input.now ?? (() => new Date()))().toISOString();
  await store.apply({
    upsert,
    delete: toDelete,
    ifGeneration: generation,
    meta: {
      ...input.extraMeta,
      model: embedder.id,
      dims: String(embedder.dims),
      indexedAt: when,
      chunks: String(current.length),
      [FILES_META_KEY]: JSON.stringify(manifest),
    },
  });
  // The index's vectors are the last to go; the others stay (a file included again costs nothing) within the bound.
  cache.touch(embedder.id, new Set(current.map(vectorKey)));
  cache.evict();
  progress({ phase: 'write', done: 1, total: 1 });
  summary.seconds = (Date.now() - started) / 1000;
  return summary;
}
