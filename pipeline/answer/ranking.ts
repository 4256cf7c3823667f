import type { CitaConfig } from '../config/schema.ts';
import { fuse, type FusionOptions, type FusionResult } from '../retrieval/fusion/index.ts';
import { evidenceOf, type NameMentions } from '../retrieval/learnedRoute.ts';
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
 * candidates cut to k and fused at k), with lookups placed as in the context. Proportional fusion
 * splits k slots by fit, so its list at k is not a prefix of its list at 50; the order of entry is
 * what stays fixed. Each collection's fit is measured once, on its first `EVIDENCE_DEPTH` hits, the
 * lists the learned route reads (`fusion.rankingFit: candidates`), so the split does not turn on a
 * collection's first hit or two: measured on the lists cut to k (`cut`, the earlier rule) a pasted
 * issue routed to code (weight 1 against docs' 0.13) opened its ranking with a changelog chunk the
 * context at budget 12 gave no slot, because at k = 1 the dense range spans three hits and code's was
 * the lowest. At the default budget the first k chunks are then the chunks the context fuses, split
 * by the same fits; a chunk that leaves at a larger k keeps its place. It depends on the question,
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
  /** The definition a pasted traceback's innermost frame in the sources is in: after the issues, ahead of search. */
  crashSite?: Placed[];
  /** Definitions of the names the question gives: after the first files search finds. */
  named: Placed[];
  /** How often the docs and the code mention the names the question asks about: the learned route's evidence, kept so a replay can route again. */
  mentions?: NameMentions;
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
  /** `retrieval.lookupsAfterDocsLed`: the same where the route weighs docs at least as much as code (unset: `lookupsAfter` for every route). */
  lookupsAfterDocsLed?: number;
  /** `retrieval.docsLedFirst`: where the route weighs docs at least as much as code, the first searched file is the docs' best (`docs`) or fusion's (`fused`; unset: fused, as in a replay's own placements). */
  docsLedFirst?: 'docs' | 'fused';
  /** `retrieval.supportCode`: where the route leans to the code, its tests, examples and benchmarks come after the library's (`after-library`; unset: as found). */
  supportCode?: 'after-library' | 'as-found';
  /** `retrieval.pastedDocsAfter`: pasted text the route leans to the code for has the docs' hits after its first this many code files (0 or unset: where fusion put them). */
  pastedDocsAfter?: number;
  /** `retrieval.pastedPerFile`: pasted text the route leans to the code for has each code file's hits past this many wait until every other code file's have had a place (unset, or 0 in the config: as `perFile`). */
  pastedPerFile?: number;
  /** `fusion.perFile`: each collection's hits of one file past this many wait until every other file's have had a place (unset: none wait). */
  perFile?: number;
  /** `fusion.rankingFit`: the ranking measures fit on each collection's first `EVIDENCE_DEPTH` hits (`candidates`) or on each list cut to k (`cut`). */
  rankingFit: 'candidates' | 'cut';
}

/** The placement a config sets: what `ask` and the replays of it place with. */
export function placementOf(config: Pick<CitaConfig, 'fusion' | 'retrieval'>): Placement {
  const { method, minFit, rrfK, perFile, rankingFit } = config.fusion;
  const { lookupsAfter, lookupsAfterDocsLed, docsLedFirst, supportCode, pastedDocsAfter, pastedPerFile } = config.retrieval;
  return {
    method,
    options: { minFit, k0: rrfK },
    lookupsAfter,
    lookupsAfterDocsLed,
    docsLedFirst,
    supportCode,
    pastedDocsAfter,
    rankingFit,
    ...(perFile !== undefined ? { perFile } : {}),
    ...(pastedPerFile > 0 ? { pastedPerFile } : {}),
  };
}

/**
 * Code that tests, shows or measures the library rather than being it: test suites, the docs' examples, example
 * projects, demos, benchmarks — by a folder of the path (`tests/`, `testing/`, `docs/`, `examples/`, `bench/`…) or by
 * a test file's own name (`test_x.py`, `x_test.go`, `x.test.ts`, `x.spec.js`, `XTest.java`).
 */
const SUPPORT_FOLDER = /(?:^|\/)(?:tests?|testing|__tests__|docs?|examples?|bench|benchmarks?|demos?|samples?)\//i;
const TEST_FILE = /(?:^|\/)test_[^/]*\.py$|_test\.(?:py|go)$|\.(?:test|spec)\.[cm]?[jt]sx?$|Tests?\.java$/;

/** Whether a code file is support code (see SUPPORT_FOLDER, TEST_FILE). Pure. */
export const isSupportCode = (path: string | undefined): boolean => path !== undefined && (SUPPORT_FOLDER.test(path) || TEST_FILE.test(path));

/**
 * A code list with its support code after the library's, each part in its own order. A question the route leans to
 * the code for asks about the library — where a bug is, how something works — and a test that reproduces the issue, or
 * an example that repeats its words (a docs page's demo of a failing assertion, for an issue about assertion messages),
 * otherwise takes the first place from the module the answer is in. Pure.
 */
export function libraryFirst(hits: readonly SearchHit[]): SearchHit[] {
  const support = (h: SearchHit) => isSupportCode(h.chunk.citation.path);
  return [...hits.filter((h) => !support(h)), ...hits.filter(support)];
}

/** Whether the route weighs the docs at least as much as the code. */
const docsLed = (c: Pick<Candidates, 'weights'>): boolean => c.weights.docs >= c.weights.code;

/** Whether `libraryFirst` applies to this question's code list: `supportCode: after-library` and a route that leans to the code. */
const supportAfter = (c: Pick<Candidates, 'weights'>, p: Pick<Placement, 'supportCode'>): boolean => p.supportCode === 'after-library' && !docsLed(c);

/** Whether `libraryFirst` changes the code hits a context of its budget is fused from (which, or in what order). Pure. */
export function supportMoves(c: Pick<Candidates, 'weights' | 'lists' | 'deep'>, p: Pick<Placement, 'supportCode'>): boolean {
  if (!supportAfter(c, p)) return false;
  const hits = c.lists.code ?? [];
  return reorderedCut(hits, c.deep.code, libraryFirst).some((h, i) => h.chunk.id !== hits[i]!.chunk.id);
}

/**
 * A budget-cut list reordered: its hits taken from the deeper list (both are prefixes of one search), reordered, cut
 * back to the budget, so a context of budget k holds the very chunks the ranking's first k entries do.
 */
function reorderedCut(hits: readonly SearchHit[], deeper: readonly SearchHit[] = [], order: (hits: readonly SearchHit[]) => SearchHit[]): SearchHit[] {
  return order(deeper.length > hits.length ? deeper : hits).slice(0, hits.length);
}

/**
 * A list with the hits of each file past its first `m` moved after all the others, each part in its
 * own order (host crowding, as web search does per site): a file that matches everywhere — a
 * changelog, a module of many small functions — otherwise takes several of a collection's slots, and
 * the context and the ranking reach fewer pages. Pure.
 */
export function spreadFiles(hits: readonly SearchHit[], m: number): SearchHit[] {
  const seen = new Map<string, number>();
  const first: SearchHit[] = [];
  const later: SearchHit[] = [];
  for (const h of hits) {
    const n = (seen.get(h.chunk.citation.path) ?? 0) + 1;
    seen.set(h.chunk.citation.path, n);
    (n <= m ? first : later).push(h);
  }
  return [...first, ...later];
}

/** Whether `pastedPerFile` spreads this question's code list: pasted text the route leans to the code for. */
const pastedSpread = (c: Pick<Candidates, 'weights' | 'pasted'>, p: Pick<Placement, 'pastedPerFile'>): boolean => p.pastedPerFile !== undefined && c.pasted && !docsLed(c);

/**
 * How many hits of one file a collection's list keeps before every other file's have had a place: `pastedPerFile` for the
 * code of pasted text the route leans to the code for — a bug report is answered with the files to look at, and one
 * module that repeats the report's words otherwise fills the code's slots — else `perFile`.
 */
function perFileOf(c: Pick<Candidates, 'weights' | 'pasted'>, p: Placement, collection: Collection): number | undefined {
  return collection === 'code' && pastedSpread(c, p) ? p.pastedPerFile : p.perFile;
}

/** A collection's list in the order placement takes it: support code after the library's (see `libraryFirst`), then spread (see `spreadFiles`, `perFileOf`). */
function ordered(c: Pick<Candidates, 'weights' | 'pasted'>, p: Placement, collection: Collection, hits: readonly SearchHit[]): SearchHit[] {
  const first = collection === 'code' && supportAfter(c, p) ? libraryFirst(hits) : [...hits];
  const m = perFileOf(c, p, collection);
  return m === undefined ? first : spreadFiles(first, m);
}

/** Whether placement reorders any list (see `ordered`). */
const reorders = (c: Pick<Candidates, 'weights' | 'pasted'>, p: Placement): boolean => p.perFile !== undefined || supportAfter(c, p) || pastedSpread(c, p);

/** Whether `pastedPerFile` changes the code hits a context of its budget is fused from (which, or in what order). Pure. */
export function pastedSpreadMoves(c: Candidates, p: Placement): boolean {
  if (!pastedSpread(c, p)) return false;
  const spread = contextLists(c, p).code ?? [];
  const unspread = contextLists(c, { ...p, pastedPerFile: undefined }).code ?? [];
  return spread.some((h, i) => h.chunk.id !== unspread[i]?.chunk.id);
}

/** The lists the context is fused from, in placement's order (see `ordered`, `reorderedCut`). */
function contextLists(c: Candidates, p: Placement): Partial<Record<Collection, SearchHit[]>> {
  if (!reorders(c, p)) return c.lists;
  return Object.fromEntries(
    Object.entries(c.lists).map(([coll, hits]) => [coll, reorderedCut(hits, c.deep[coll as Collection], (h) => ordered(c, p, coll as Collection, h))]),
  );
}

/** The ranking's lists, in placement's order. */
function rankingLists(c: Candidates, p: Placement): Partial<Record<Collection, SearchHit[]>> {
  if (!reorders(c, p)) return c.deep;
  return Object.fromEntries(Object.entries(c.deep).map(([coll, hits]) => [coll, ordered(c, p, coll as Collection, hits)]));
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

/**
 * How many searched files a question's definitions come after: three for pasted text (its names are
 * mentioned), `lookupsAfterDocsLed` where the route weighs the docs at least as much as the code, else `lookupsAfter`.
 */
export function lookupsPlace(c: Pick<Candidates, 'pasted' | 'weights'>, p: Pick<Placement, 'lookupsAfter' | 'lookupsAfterDocsLed'>): number {
  if (c.pasted) return MENTIONED_AFTER;
  return p.lookupsAfterDocsLed !== undefined && docsLed(c) ? p.lookupsAfterDocsLed : p.lookupsAfter;
}

/** Where the docs' best hit moves from and to: its index, and the first search hit's that is not an issue's. */
function docsFirstPlaces(ranked: readonly { chunk: Chunk }[], c: Pick<Candidates, 'pasted' | 'weights'>, p: Pick<Placement, 'docsLedFirst'>): { from: number; to: number } | undefined {
  if (p.docsLedFirst !== 'docs' || c.pasted || !docsLed(c)) return undefined;
  const to = ranked.findIndex((h) => h.chunk.collection !== 'issues');
  const from = ranked.findIndex((h) => h.chunk.collection === 'docs');
  return to < 0 || from <= to ? undefined : { from, to };
}

/**
 * Where `docsFirst` moves the docs' best hit from, or undefined when nothing moves: a typed question's route leans
 * to the docs, `docsLedFirst` is `docs`, and a code hit comes before the first docs hit. Pure.
 */
export function docsFirstMove(ranked: readonly { chunk: Chunk }[], c: Pick<Candidates, 'pasted' | 'weights'>, p: Pick<Placement, 'docsLedFirst'>): number | undefined {
  return docsFirstPlaces(ranked, c, p)?.from;
}

/**
 * Search hits with the docs' best moved ahead of the first code hit (see `docsFirstMove`): the route read the
 * question as one the docs answer, yet a code chunk's fit (a docstring that says the same words) can outweigh
 * the docs' share at the first slot. Issue hits keep their places; nothing else moves. Pure.
 */
export function docsFirst<H extends { chunk: Chunk }>(ranked: readonly H[], c: Pick<Candidates, 'pasted' | 'weights'>, p: Pick<Placement, 'docsLedFirst'>): H[] {
  const move = docsFirstPlaces(ranked, c, p);
  if (move === undefined) return [...ranked];
  const { from, to } = move;
  return [...ranked.slice(0, to), ranked[from]!, ...ranked.slice(to, from), ...ranked.slice(from + 1)];
}

/** Where `docsAfterCode` moves the docs' hits to: just after the first hit of the n-th code file (or the end), or undefined when no docs hit comes before a code or issue hit there. */
function codeFilesEnd(ranked: readonly { chunk: Chunk }[], c: Pick<Candidates, 'weights' | 'pasted'>, p: Pick<Placement, 'pastedDocsAfter'>): number | undefined {
  const n = p.pastedDocsAfter ?? 0;
  if (n <= 0 || !c.pasted || docsLed(c)) return undefined;
  const files = new Set<string>();
  let end = ranked.length;
  for (let i = 0; i < ranked.length; i++) {
    const { chunk } = ranked[i]!;
    if (chunk.collection !== 'code') continue;
    files.add(chunk.citation.path);
    if (files.size === n) {
      end = i + 1;
      break;
    }
  }
  const head = ranked.slice(0, end);
  const firstDocs = head.findIndex((h) => h.chunk.collection === 'docs');
  return firstDocs >= 0 && head.slice(firstDocs).some((h) => h.chunk.collection !== 'docs') ? end : undefined;
}

/** Whether `docsAfterCode` moves a docs hit of these (see `Placement.pastedDocsAfter`). Pure. */
export const docsAfterCodeMoves = (ranked: readonly { chunk: Chunk }[], c: Pick<Candidates, 'weights' | 'pasted'>, p: Pick<Placement, 'pastedDocsAfter'>): boolean =>
  codeFilesEnd(ranked, c, p) !== undefined;

/**
 * Search hits with the docs' hits that come before the code's first `pastedDocsAfter` files moved just after
 * them, for pasted text (an issue, a traceback, or the issue a question references, searched by its text) the route
 * leans to the code for: a bug report asks which of the library's files to change, and a docs page whose fit
 * outweighs the docs' small share (the changelog, which names every module) otherwise takes a place among them.
 * Code and issue hits keep their order; nothing else moves. Pure.
 */
export function docsAfterCode<H extends { chunk: Chunk }>(ranked: readonly H[], c: Pick<Candidates, 'weights' | 'pasted'>, p: Pick<Placement, 'pastedDocsAfter'>): H[] {
  const end = codeFilesEnd(ranked, c, p);
  if (end === undefined) return [...ranked];
  const head = ranked.slice(0, end);
  return [...head.filter((h) => h.chunk.collection !== 'docs'), ...head.filter((h) => h.chunk.collection === 'docs'), ...ranked.slice(end)];
}

/** Fused hits as context candidates, with the lookups placed among them. */
function withLookups(c: Candidates, fused: Pick<FusionResult, 'ranked'>, p: Placement): Placed[] {
  const ranked = docsAfterCode(docsFirst(fused.ranked, c, p), c, p).map((h) => ({
    chunk: h.chunk,
    scores: { collection: h.chunk.collection, fused: h.fused, bm25: h.bm25, dense: h.dense, via: 'search' as const },
  }));
  const at = afterFiles(ranked, lookupsPlace(c, p));
  return [...c.lookedUp, ...(c.crashSite ?? []), ...ranked.slice(0, at), ...c.named, ...ranked.slice(at)];
}

/** The context's candidates: the lists fused at budget `k`, lookups placed. */
export function placeContext(c: Candidates, k: number, p: Placement): { fusion: FusionResult; ordered: Placed[] } {
  const fusion = fuse(p.method, contextLists(c, p), c.weights, k, p.options);
  return { fusion, ordered: withLookups(c, fusion, p) };
}

/** The ranking to `depth` (see `Ranking`). */
export function rankCandidates(c: Candidates, depth: number, p: Placement): Ranking {
  const deep = rankingLists(c, p);
  const options = p.rankingFit === 'candidates' ? { ...p.options, fitOn: evidenceOf(deep) } : p.options;
  const entered = entryOrder((k) => fuse(p.method, cutTo(deep, k), c.weights, k, options), depth);
  return rankingOf(withLookups(c, entered, p), depth);
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
