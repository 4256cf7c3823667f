import type { Store } from '../../pipeline/store/store.ts';
import { COLLECTIONS } from '../../pipeline/types.ts';
import type { TruncationRow } from '../report/types.ts';

/** Token histogram of one collection's chunks in buckets of window/8, with everything over the window in its own bucket. */
export function truncationRow(collection: TruncationRow['collection'], tokens: number[], window: number): TruncationRow {
  const width = Math.max(1, Math.ceil(window / 8));
  const histogram = Array.from({ length: 8 }, (_, i) => ({ from: i * width, to: Math.min(window + 1, (i + 1) * width), count: 0 }));
  histogram[7]!.to = window + 1;
  const over = { from: window + 1, to: Number.MAX_SAFE_INTEGER, count: 0 };
  for (const t of tokens) {
    if (t > window) over.count++;
    else histogram[Math.min(7, Math.floor(t / width))]!.count++;
  }
  return {
    collection,
    chunks: tokens.length,
    window,
    maxTokens: tokens.reduce((m, t) => Math.max(m, t), 0),
    overWindow: over.count,
    histogram: over.count ? [...histogram, over] : histogram,
  };
}

/** Reads every chunk's token count from the store (in pages, without vectors). */
export async function truncationSuite(store: Store, window: number): Promise<TruncationRow[]> {
  const rows: TruncationRow[] = [];
  for (const c of COLLECTIONS) {
    const ids = await store.ids(c);
    const tokens: number[] = [];
    for (let i = 0; i < ids.length; i += 500) for (const chunk of await store.get(ids.slice(i, i + 500))) tokens.push(chunk.tokens);
    rows.push(truncationRow(c, tokens, window));
  }
  return rows;
}
