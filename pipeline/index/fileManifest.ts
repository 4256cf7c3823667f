import { contentHash } from '../chunking/ids.ts';
import type { ChunkingOptions, Collection, Document } from '../types.ts';

/**
 * What an index run chunked, file by file, so the next run can skip files that did not change (#16
 * item 4): a no-change re-index of pytest spent 30–40 s counting tokens again for the same chunks.
 * Kept in the store's meta under FILES_META_KEY and written in the same transaction as the chunks,
 * so it always describes exactly the chunks the index holds.
 *
 * A file is reused when its collection, size, mtime and content hash are those recorded, and the
 * chunking fingerprint (chunking options, the embedder, whose tokenizer measures chunks and whose
 * window bounds them, and CHUNKING_VERSION) is the same; anything else re-chunks it.
 */

export const FILES_META_KEY = 'files';

/** Bump when a chunker's output for the same file and options changes, so that indexes made before re-chunk. */
export const CHUNKING_VERSION = 1;

export interface FileEntry {
  collection: Collection;
  size: number;
  mtimeMs: number;
  hash: string;
  /** The file's chunk ids, in the chunker's order. */
  ids: string[];
  /** The chunker's notes about the file (repeated in the summary when the file is reused). */
  warnings: string[];
}

export interface FileManifest {
  fingerprint: string;
  files: Record<string, FileEntry>;
}

/** What chunking depends on besides the file itself. */
export function chunkingFingerprint(embedder: { id: string; window: number }, chunking: ChunkingOptions): string {
  return JSON.stringify({ version: CHUNKING_VERSION, embedder: embedder.id, window: embedder.window, maxTokens: chunking.maxTokens, lineWindow: chunking.lineWindow });
}

/** The meta without the file record (for reports and displays: it is large and only for the indexer). */
export function withoutFileRecord(meta: Record<string, string>): Record<string, string> {
  const { [FILES_META_KEY]: _, ...rest } = meta;
  return rest;
}

/** The manifest recorded in the meta; an empty one when there is none or it cannot be read (everything is then chunked). */
export function readManifest(meta: Record<string, string>): FileManifest {
  try {
    const parsed = JSON.parse(meta[FILES_META_KEY] ?? '') as FileManifest;
    if (typeof parsed.fingerprint === 'string' && parsed.files && typeof parsed.files === 'object') return parsed;
  } catch {
    // No manifest (an index written before it existed): chunk everything once.
  }
  return { fingerprint: '', files: {} };
}

/** The entry a document would get now (without ids and warnings); undefined when the scan did not stat it. */
export function describe(doc: Document): Omit<FileEntry, 'ids' | 'warnings'> | undefined {
  if (!doc.file) return undefined;
  return { collection: doc.collection, size: doc.file.size, mtimeMs: doc.file.mtimeMs, hash: contentHash(doc.text) };
}

/** The recorded entry of a document if the file is unchanged since (same fingerprint too), else undefined. */
export function unchangedEntry(manifest: FileManifest, fingerprint: string, doc: Document): FileEntry | undefined {
  if (manifest.fingerprint !== fingerprint) return undefined;
  const before = manifest.files[doc.path];
  const now = describe(doc);
  if (!before || !now) return undefined;
  const same = before.collection === now.collection && before.size === now.size && before.mtimeMs === now.mtimeMs && before.hash === now.hash;
  return same ? before : undefined;
}
