import { HashingEmbedder } from '../../pipeline/embedding/hashing.ts';
import type { Embedder } from '../../pipeline/types.ts';

/** The hashing embedder, recording the texts of every batch of passages it is given, in order. */
export function recordingEmbedder(): Embedder & { batches: string[][] } {
  const inner = new HashingEmbedder();
  const batches: string[][] = [];
  return {
    id: inner.id,
    dims: inner.dims,
    window: inner.window,
    batches,
    countTokens: (text) => inner.countTokens(text),
    embedQueries: (texts) => inner.embedQueries(texts),
    embedPassages: (texts) => {
      batches.push([...texts]);
      return inner.embedPassages(texts);
    },
    close: () => inner.close(),
  };
}
