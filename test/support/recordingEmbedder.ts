import { HashingEmbedder } from '../../pipeline/embedding/hashing.ts';
import type { Embedder } from '../../pipeline/types.ts';

/** The hashing embedder, recording the texts of every batch of passages (`batches`) and of queries (`queries`) it is given, in order. */
export function recordingEmbedder(): Embedder & { batches: string[][]; queries: string[][] } {
  const inner = new HashingEmbedder();
  const batches: string[][] = [];
  const queries: string[][] = [];
  return {
    id: inner.id,
    dims: inner.dims,
    window: inner.window,
    batches,
    queries,
    countTokens: (text) => inner.countTokens(text),
    embedQueries: (texts) => {
      queries.push([...texts]);
      return inner.embedQueries(texts);
    },
    embedPassages: (texts) => {
      batches.push([...texts]);
      return inner.embedPassages(texts);
    },
    close: () => inner.close(),
  };
}
