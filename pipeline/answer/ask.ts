import fs from 'node:fs';
import path from 'node:path';
import type { CitaConfig } from '../config/schema.ts';
import { fuse, type FusionResult } from '../retrieval/fusion/index.ts';
import { route as routeQuestion, type Route } from '../retrieval/router.ts';
import { searchCollection } from '../retrieval/search.ts';
import type { Store } from '../store/store.ts';
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
}

export interface AskOptions {
  /** Overrides for one question (A/B, evaluation). */
  fusion?: Partial<CitaConfig['fusion']>;
  alpha?: number;
  budget?: Partial<CitaConfig['answer']['budget']>;
  /** Skip generation (retrieval-only evaluation). */
  retrieveOnly?: boolean;
}

export interface AskResult {
  question: string;
  route: Route;
  /** Queries run per collection (the second hop shows here). */
  queries: Partial<Record<Collection, string>>;
  fusion: FusionResult;
  context: Context;
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

  // Direct lookups: an issue by number, a symbol by name; no search needed.
  const lookedUp: { chunk: Chunk; scores: BlockScores }[] = [];
  const issueChunks: Chunk[] = [];
  await time('lookup', async () => {
    for (const n of route.lookups.issues) {
      const chunks = await store.lookupIssue(n);
      issueChunks.push(...chunks);
      for (const chunk of chunks.slice(0, 3)) lookedUp.push({ chunk, scores: { collection: 'issues', fused: 1, bm25: null, dense: null, via: 'lookup' } });
    }
    // A question that names a symbol wants its definition first; a pasted issue or traceback names
    // dozens, and their definitions would crowd out everything retrieval finds. So a few, bounded.
    let symbolChunks = 0;
    for (const name of route.lookups.symbols) {
      if (symbolChunks >= SYMBOL_LOOKUPS) break;
      const [chunk] = await store.lookupSymbol(name);
      if (!chunk) continue;
      lookedUp.push({ chunk, scores: { collection: chunk.collection, fused: 1, bm25: null, dense: null, via: 'lookup' } });
      symbolChunks++;
    }
  });

  // Second hop: the referenced issue's text is what code and docs are searched with.
  const hop = issueQuery(issueChunks);
  const queries: Partial<Record<Collection, string>> = {};
  for (const c of COLLECTIONS) queries[c] = hop && c !== 'issues' ? hop : question;

  const available = (await Promise.all(COLLECTIONS.map(async (c) => [c, await store.count(c)] as const))).filter(([, n]) => n > 0);
  const distinctQueries = [...new Set(available.map(([c]) => queries[c]!))];
  const vectors = new Map<string, Float32Array>();
  if (hybrid.alpha > 0) {
    await time('embed', async () => {
      const vs = await embedder.embedQueries(distinctQueries);
      distinctQueries.forEach((q, i) => vectors.set(q, vs[i]!));
    });
  }
  const lists: Partial<Record<Collection, SearchHit[]>> = {};
  await time('retrieve', async () => {
    for (const [c] of available) {
      const q = queries[c]!;
      lists[c] = await searchCollection(store, vectors.get(q), c, q, budget.chunks, hybrid);
    }
  });

  const fusion = fuse(fusionConfig.method, lists, route.weights, budget.chunks, { minFit: fusionConfig.minFit, k0: fusionConfig.rrfK });
  const ranked = fusion.ranked.map((h) => ({
    chunk: h.chunk,
    scores: { collection: h.chunk.collection, fused: h.fused, bm25: h.bm25, dense: h.dense, via: 'search' as const },
  }));
  const context = buildContext(question, route.language, [...lookedUp, ...ranked], budget);

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
  return { question, route, queries, fusion, context, answer, timings };
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
