import type { Chunk, ChunkingOptions, Document, TokenCounter } from '../types.ts';
import { chunkCode } from './codeChunker.ts';
import { chunkDoc } from './docChunker.ts';

/**
 * Chunks a file by its collection: docs by sections, code by symbols (or line windows). Issues are
 * not files (`chunkIssue` takes an `Issue`, from the issues source); all three pack with `budget.ts`.
 */
export async function chunkDocument(
  doc: Document,
  counter: TokenCounter,
  options: ChunkingOptions,
  onWarning?: (message: string) => void,
): Promise<Chunk[]> {
  switch (doc.collection) {
    case 'docs':
      return chunkDoc(doc, counter, options, onWarning);
    case 'code':
      return chunkCode(doc, counter, options, onWarning);
    case 'issues':
      throw new Error('issues are chunked by the issues source');
  }
}
