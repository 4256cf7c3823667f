import { fuse, type FusionOptions, type FusionResult } from '../retrieval/fusion/index.ts';
import type { Chunk, Collection, SearchHit } from '../types.ts';
import type { BlockScores } from './types.ts';

/**
 * Where each retrieved chunk goes once retrieval is done: the fused list a context of budget k is
 * built from, and the ranking reported beside it. Pure: the same candidates and settings give the
 * same order, so an evaluation can replay the placement under other weights without searching again.
 */

/**
 * How deep `AskResult.ranking` goes, in chunks: as deep as each retriever's default candidate list
 * (`retrieval.hybrid.candidates`, 50), so ranking metrics at k ≤ 10 never run out of list.
 */
export const RANK_DEPTH = 50;

/**
 * The ranking the context is cut from, continued past the answer budget: searched chunks in the
 * order they enter the fused list as its size k grows from 1 to `depth` (each collection's hybrid
 * candidates cut to k, fused at k, exactly as a context of budget k is), with lookups placed as in
 * the context. Proportional fusion splits k slots by fit, so its list at k is not a prefix of its
 * list at 50; the order of entry is what stays fixed: the first k chunks of the ranking are the
 * chunks a context of budget k fuses, when each collection's slots only grow with k (fits are
 * measured on the lists cut to k, so a split can shift and a chunk leave; it keeps its place, and
 * the first n chunks are then those of the contexts of budget 1..k). It depends on the question,
 * the index and the retrieval and fusion settings, never on `answer.budget` (while `budget.chunks`
 * ≤ `retrieval.hybrid.candidates`, which sets the candidate pool), so metrics at k over it do not
 * move when the context grows or shrinks. `chunks`: chunk ids, each once; `files`: the distinct
 * files of those chunks (code and docs; issues are not files), in order.
 */
export interface Ranking {
  depth: number;
  chunks: string[];
  files: string[];
}

/** A chunk placed outside search (a looked-up issue or symbol), and why. */
export interface Placed {
  chunk: Chunk;
  scores: BlockScores;
}

/** Everything retrieval produced for one question: what placement works from. */
export interface Candidates {
  /** Each collection's hybrid hits cut to the context budget. */
  lists: Partial<Record<Collection, SearchHit[]>>;
  /** The same hits cut to the ranking's depth. */
  deep: Partial<Record<Collection, SearchHit[]>>;
  /** Looked-up issues: ahead of everything. */
  lookedUp: Placed[];
  /** Definitions of the names the question gives: after the first files search finds. */
  named: Placed[];
  /** The router's weights per collection. */
  weights: Record<Collection, number>;
  /** Pasted text: its names are only mentioned, so their definitions come after MENTIONED_AFTER files. */
  pasted: boolean;
}

export interface Placement {
  method: string;
  options: FusionOptions;
  /** `retrieval.lookupsAfter`: a typed question's definitions after this many searched files. */
  lookupsAfter: number;
}

/** Definitions of the names pasted text mentions come after this many files found by search, not first. */
const MENTIONED_AFTER = 3;

/** The position in `ranked` just after its first `n` file blocks (code or docs; issue blocks are not files). */
function afterFiles(ranked: readonly { chunk: Chunk }[], n: number): number {
  if (n <= 0) return 0;
  let files = 0;
  for (let i = 0; i < ranked.length; i++) if (ranked[i]!.chunk.collection !== 'issues' && ++files === n) return i + 1;
  return ranked.length;
}

/** Fused hits as context candidates, with the lookups placed among them. */
function withLookups(c: Candidates, fused: Pick<FusionResult, 'ranked'>, lookupsAfter: number): Placed[] {
  const ranked = fused.ranked.map((h) => ({
    chunk: h.chunk,
    scores: { collection: h.chunk.collection, fused: h.fused, bm25: h.bm25, dense: h.dense, via: 'search' as const },
  }));
  const at = afterFiles(ranked, c.pasted ? MENTIONED_AFTER : lookupsAfter);
  return [...c.lookedUp, ...ranked.slice(0, at), ...c.named, ...ranked.slice(at)];
}

/** The context's candidates: the lists fused at budget `k`, lookups placed. */
export function placeContext(c: Candidates, k: number, p: Placement): { fusion: FusionResult; ordered: Placed[] } {
  const fusion = fuse(p.method, c.lists, c.weights, k, p.options);
  return { fusion, ordered: withLookups(c, fusion, p.lookupsAfter) };
}

/** The ranking to `depth` (see `Ranking`). */
export function rankCandidates(c: Candidates, depth: number, p: Placement): Ranking {
  const entered = entryOrder((k) => fuse(p.method, cutTo(c.deep, k), c.weights, k, p.options), depth);
  return rankingOf(withLookups(c, entered, p.lookupsAfter), depth);
}

/** Each collection's list cut to its first k hits. */
function cutTo(lists: Partial<Record<Collection, SearchHit[]>>, k: number): Partial<Record<Collection, SearchHit[]>> {
  return Object.fromEntries(Object.entries(lists).map(([c, hits]) => [c, hits.slice(0, k)]));
}

/**
 * Hits in the order they first enter `fuseAt(k)` for k = 1..depth; hits entering at the same k in
 * the fused order. A hit that leaves at a larger k keeps its place.
 */
function entryOrder(fuseAt: (k: number) => FusionResult, depth: number): Pick<FusionResult, 'ranked'> {
  const ranked: FusionResult['ranked'] = [];
  const seen = new Set<string>();
  for (let k = 1; k <= depth; k++) {
    for (const h of fuseAt(k).ranked) {
      if (seen.has(h.chunk.id)) continue;
      seen.add(h.chunk.id);
      ranked.push(h);
    }
  }
  return { ranked };
}

/** The first `depth` distinct chunks of the candidates in order, and their distinct files. */
function rankingOf(candidates: readonly { chunk: Chunk }[], depth: number): Ranking {
  const chunks: Chunk[] = [];
  const seen = new Set<string>();
  for (const { chunk } of candidates) {
    if (chunks.length >= depth) break;
    if (seen.has(chunk.id)) continue;
    seen.add(chunk.id);
    chunks.push(chunk);
  }
  const files = [...new Set(chunks.filter((c) => c.collection !== 'issues').map((c) => c.citation.path))];
  return { depth, chunks: chunks.map((c) => c.id), files };
}
