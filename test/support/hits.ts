import type { Chunk, SearchHit } from '../../pipeline/types.ts';

/** A docs search hit with `score` and only what re-rankers read: its chunk's id, text and path (`<id>.md`). */
export function docsHit(id: string, score: number, text = id): SearchHit {
  return {
    chunk: { id, collection: 'docs', text, citation: { kind: 'doc', path: `${id}.md` } } as unknown as Chunk,
    score,
    bm25: null,
    dense: null,
    bm25Norm: 0,
    denseNorm: 0,
  };
}
