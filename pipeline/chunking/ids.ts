import { createHash } from 'node:crypto';
import type { Citation, Collection } from '../types.ts';

/** sha256 of the parts, hex, truncated: long enough to never collide within one repository. */
export function contentHash(...parts: string[]): string {
  const h = createHash('sha256');
  for (const p of parts) h.update(p).update('\u0000');
  return h.digest('hex').slice(0, 32);
}

/** A chunk's id: the same text at the same place gets the same id, so re-indexing touches only what changed. */
export function chunkId(collection: Collection, citation: Citation, text: string): string {
  return contentHash(collection, citation.path, String(citation.startLine), String(citation.endLine), text);
}
