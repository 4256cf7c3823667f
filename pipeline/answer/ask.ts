import fs from 'node:fs';
import path from 'node:path';
import type { CitaConfig } from '../config/schema.ts';
import { fuse, type FusionResult } from '../retrieval/fusion/index.ts';
import { route as routeQuestion, type Route } from '../retrieval/router.ts';
import { hybridCandidates } from '../retrieval/search.ts';
import type { Store } from '../store/store.ts';
import { questionAlpha, searchPlan, translateQuestion, type QueryPlan, type Translation } from '../retrieval/crossLingual.ts';
import { meanVector } from '../vectors.ts';
import type { Translator } from '../text/translate.ts';
import { COLLECTIONS, type Chunk, type Collection, type Embedder, type SearchHit } from '../types.ts';
import { permalinkFor, verifyAnswer } from './citations.ts';
import { buildContext } from './context.ts';
import type { BlockScores, Context, Generator, VerifiedAnswer } from './types.ts';

/**
 * The answer path, one way for data to flow:
 * question → route → direct lookups → retrieve per collection (hybrid; a second hop with the text of a
 * referenced issue) → fuse → Context → generate → verify citations.
 * `cita ask`, the API and the evaluation all call this; there is no second path for measuring.
 */

export interface AskDeps {
  config: CitaConfig;
  store: Store;
  embedder: Embedder;
  generator: Generator;
  /** The indexed checkout, for citation checks (`path` must exist and its lines hold the text). */
  checkout: string;
  /** Translates questions into the corpus language; default: the one `languages.translator` names. */
  translator?: Translator;
}

export interface AskOptions {
  /** Overrides for one question (A/B, evaluation). */
  fusion?: Partial<CitaConfig['fusion']>;
  alpha?: number;
  budget?: Partial<CitaConfig['answer']['budget']>;
  /** Skip generation (retrieval-only evaluation). */
  retrieveOnly?: boolean;
  /** Depth of `AskResult.ranking` (default RANK_DEPTH). */
  rankDepth?: number;
}

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

export interface AskResult {
  question: string;
  route: Route;
  /** Queries run per collection (the second hop shows here): the text BM25 searched with. */
  queries: Partial<Record<Collection, string>>;
  /** The question in the corpus language, when it was asked in another (or why it could not be translated). */
  translation?: Translation;
  fusion: FusionResult;
  context: Context;
  ranking: Ranking;
  answer?: VerifiedAnswer;
  timings: Record<string, number>;
}

/** Text of a looked-up issue used as the second-hop query: its title and the start of its body. */
function issueQuery(chunks: Chunk[]): string {
  const body = chunks.find((c) => c.citation.commentId === undefined) ?? chunks[0];
  return body ? body.text.slice(0, 2000) : '';
}

/** Most symbol definitions placed ahead of retrieval, one per symbol named. */
const SYMBOL_LOOKUPS = 2;
/** Definitions of the names pasted text mentions come after this many files found by search, not first. */
const MENTIONED_AFTER = 3;

/** The position in `ranked` just after its first `n` file blocks (code or docs; issue blocks are not files). */
function afterFiles(ranked: readonly { chunk: Chunk }[], n: number): number {
  if (n <= 0) return 0;
  let files = 0;
  for (let i = 0; i < ranked.length; i++) if (ranked[i]!.chunk.collection !== 'issues' && ++files === n) return i + 1;
  return ranked.length;
}

export async function ask(deps: AskDeps, question: string, options: AskOptions = {}): Promise<AskResult> {
  const { config, store, embedder } = deps;
  const timings: Record<string, number> = {};
  const time = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
    const t = performance.now();
    try {
      return await fn();
    } finally {
      timings[name] = (timings[name] ?? 0) + performance.now() - t;
    }
  };
  const fusionConfig = { ...config.fusion, ...options.fusion };
  const hybrid = { ...config.retrieval.hybrid, ...(options.alpha !== undefined ? { alpha: options.alpha } : {}) };
  const budget = { ...config.answer.budget, ...options.budget };

  const route = routeQuestion(question);

  // Direct lookups: an issue by number, a symbol by name; no search needed. An issue comes first;
  // a name's definition after the first files search finds with the whole question
  // (`retrieval.lookupsAfter`), or after the first three when the name is only mentioned in pasted text.
  const lookedUp: { chunk: Chunk; scores: BlockScores }[] = [];
  const named: { chunk: Chunk; scores: BlockScores }[] = [];
  const issueChunks: Chunk[] = [];
  await time('lookup', async () => {
    for (const n of route.lookups.issues) {
      const chunks = await store.lookupIssue(n);
      issueChunks.push(...chunks);
      for (const chunk of chunks.slice(0, 3)) lookedUp.push({ chunk, scores: { collection: 'issues', fused: 1, bm25: null, dense: null, via: 'lookup' } });
    }
    // A question that names a symbol wants its definition near the top; a pasted issue or traceback
    // names dozens, and their definitions would crowd out everything retrieval finds. So a few, bounded.
    let symbolChunks = 0;
    for (const name of route.lookups.symbols) {
      if (symbolChunks >= SYMBOL_LOOKUPS) break;
      const [chunk] = await store.lookupSymbol(name);
      if (!chunk) continue;
      named.push({ chunk, scores: { collection: chunk.collection, fused: 1, bm25: null, dense: null, via: 'lookup' } });
      symbolChunks++;
    }
  });

  // A question in another language than the corpus is translated for the retrievers that match words.
  const crossLingual = route.language !== config.languages.corpus;
  const translation = crossLingual ? await time('translate', () => translateQuestion(config, question, route.language, deps.translator)) : undefined;
  if (translation?.text !== undefined) {
    const t = translation.text;
    route.reasons.push(`translated ${translation.from} → ${translation.to} (${translation.translator}): ${JSON.stringify(t.length > 160 ? `${t.slice(0, 159)}…` : t)}`);
  } else if (translation?.error !== undefined) route.reasons.push(`not translated (${translation.error}): searched as asked`);

  // Second hop: the referenced issue's text is what code and docs are searched with.
  const hop = issueQuery(issueChunks);
  const plan = searchPlan(question, hop, translation?.text, config.retrieval.crossLingual, translation?.alternatives);
  const queries: Partial<Record<Collection, string>> = {};
  for (const c of COLLECTIONS) queries[c] = hop && c !== 'issues' ? plan.hop!.bm25 : plan.question.bm25;

  const available = (await Promise.all(COLLECTIONS.map(async (c) => [c, await store.count(c)] as const))).filter(([, n]) => n > 0);
  const used = available.map(([c]) => (hop && c !== 'issues' ? plan.hop! : plan.question));
  const distinctTexts = [...new Set(used.flatMap((p) => p.dense))];
  const embedded = new Map<string, Float32Array>();
  // The second hop searches with the issue's text, in the corpus language already.
  const alphaOf = (p: QueryPlan) => questionAlpha(config.retrieval, crossLingual && p === plan.question, options.alpha);
  if (used.some((p) => alphaOf(p) > 0)) {
    await time('embed', async () => {
      const vs = await embedder.embedQueries(distinctTexts);
      distinctTexts.forEach((q, i) => embedded.set(q, vs[i]!));
    });
  }
  const depth = options.rankDepth ?? RANK_DEPTH;
  const lists: Partial<Record<Collection, SearchHit[]>> = {};
  const deep: Partial<Record<Collection, SearchHit[]>> = {};
  await time('retrieve', async () => {
    for (const [c] of available) {
      const p = hop && c !== 'issues' ? plan.hop! : plan.question;
      const alpha = alphaOf(p);
      const vector = alpha > 0 ? meanVector(p.dense.map((t) => embedded.get(t)!)) : undefined;
      // One search serves both: the context's list is its first budget.chunks (what searchCollection
      // returns), the ranking's its first `depth`, so the context is exactly what it was without it.
      const hits = await hybridCandidates(store, vector, c, p.bm25, Math.max(budget.chunks, hybrid.candidates), alpha);
      lists[c] = hits.slice(0, budget.chunks);
      deep[c] = hits.slice(0, depth);
    }
  });

  const fusionOptions = { minFit: fusionConfig.minFit, k0: fusionConfig.rrfK };
  const fusion = fuse(fusionConfig.method, lists, route.weights, budget.chunks, fusionOptions);
  const ordered = (fused: Pick<FusionResult, 'ranked'>) => {
    const ranked = fused.ranked.map((h) => ({
      chunk: h.chunk,
      scores: { collection: h.chunk.collection, fused: h.fused, bm25: h.bm25, dense: h.dense, via: 'search' as const },
    }));
    const at = afterFiles(ranked, route.pasted ? MENTIONED_AFTER : config.retrieval.lookupsAfter);
    return [...lookedUp, ...ranked.slice(0, at), ...named, ...ranked.slice(at)];
  };
  const context = buildContext(question, route.language, ordered(fusion), budget, translation?.text);
  const ranking = rankingOf(ordered(entryOrder((k) => fuse(fusionConfig.method, cutTo(deep, k), route.weights, k, fusionOptions), depth)), depth);

  let answer: VerifiedAnswer | undefined;
  if (!options.retrieveOnly) {
    const generated = await time('generate', () => deps.generator.generate(question, context));
    answer = await time('verify', async () => {
      const issues = new Map<number, Set<number | undefined>>();
      for (const b of context.blocks) {
        const n = b.citation.issue;
        if (n === undefined || issues.has(n)) continue;
        issues.set(n, new Set((await store.lookupIssue(n)).map((c) => c.citation.commentId)));
      }
      return verifyAnswer(generated, context, {
        readFile: (p) => readInside(deps.checkout, p),
        issueExists: (n, commentId) => issues.get(n)?.has(commentId) ?? false,
        permalink: (p, start, end) => permalinkFor(config.repository.github, config.repository.ref, p, start, end),
      });
    });
  }
  return { question, route, queries, ...(translation ? { translation } : {}), fusion, context, ranking, answer, timings };
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

/** A file of the checkout, never outside it (a cited `../../etc/passwd` is simply not in the tree). */
function readInside(checkout: string, rel: string): string | null {
  const abs = path.resolve(checkout, rel);
  if (!abs.startsWith(path.resolve(checkout) + path.sep)) return null;
  try {
    return fs.readFileSync(abs, 'utf8');
  } catch {
    return null;
  }
}
