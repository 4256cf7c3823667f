import fs from 'node:fs';
import path from 'node:path';
import type { CitaConfig } from '../config/schema.ts';
import type { FusionResult } from '../retrieval/fusion/index.ts';
import { evidenceFeatures, learnedRoute } from '../retrieval/learnedRoute.ts';
import { mentionsNote, nameMentions } from '../retrieval/nameMentions.ts';
import { route as routeQuestion, type Route } from '../retrieval/router.ts';
import { hybridCandidates } from '../retrieval/search.ts';
import { withFileEvidence } from '../retrieval/hybrid.ts';
import type { Store } from '../store/store.ts';
import { lateInteracted, lateInteractionNote } from '../retrieval/lateInteraction.ts';
import { likelihoodModel, likelihoodReranking, queryLikelihoodNotes } from '../retrieval/queryLikelihood.ts';
import { rerankerFor } from '../retrieval/rerank.ts';
import { denseVector, questionAlpha, searchPlan, sensesNotes, translateQuestion, type QueryPlan, type Translation } from '../retrieval/crossLingual.ts';
import { planOffset } from '../embedding/languageOffset.ts';
import type { ModelTranslator } from '../text/modelTranslate.ts';
import { searchedText } from '../text/environment.ts';
import { tracebackFrames, type Frame } from '../text/traceback.ts';
import { translatorFor, type Translator } from '../text/translate.ts';
import { COLLECTIONS, type Chunk, type Collection, type Embedder, type SearchHit } from '../types.ts';
import { permalinkFor, verifyAnswer } from './citations.ts';
import { buildContext, splitBlockText } from './context.ts';
import { glossChoicesFor, glossOptionsFor, glossQuotes, keptWords } from './glosses.ts';
import { definitionsMeant, frameDefinition, pickDefinition, writtenNames } from './namedLookups.ts';
import { docsAfterCodeMoves, docsFirstMove, lookupsPlace, pastedSpreadMoves, placeContext, placementOf, RANK_DEPTH, rankCandidates, supportMoves, type Candidates, type Placed, type Ranking } from './ranking.ts';
import type { Context, Generator, VerifiedAnswer } from './types.ts';

export { RANK_DEPTH, type Ranking } from './ranking.ts';

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
  /** The language model's second translation; default the process's for the config, in process unless `isolate: true` (a server passes its own). */
  modelTranslator?: Pick<ModelTranslator, 'id' | 'translate'>;
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
  /** Keep what retrieval produced (`AskResult.candidates`), so an evaluation can replay the placement. */
  keepCandidates?: boolean;
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
  /** With `keepCandidates`: the retrieved lists and lookups the context and ranking were placed from. */
  candidates?: Candidates;
}

/** The most of an issue's text the second hop searches with (a pasted question has no other bound; this keeps a huge one cheap). */
const HOP_CHARS = 16_000;

/**
 * Text of the looked-up issues used as the second-hop query (`retrieval.secondHop.text`). `issue`: each issue as
 * filed, its first chunk (header: title and state, then the body's start) followed by the body of each next chunk
 * without the header the chunker repeats on each (`splitBlockText`), in order of lines —
 * what pasting the issue would search with; comments are not part of it. `start`: the first issue's first chunk alone,
 * at most 2,000 characters (the earlier rule). Pure.
 */
export function issueQuery(chunks: readonly Chunk[], text: 'issue' | 'start' = 'issue'): string {
  const body = chunks.filter((c) => c.citation.commentId === undefined);
  if (text === 'start') return (body[0] ?? chunks[0])?.text.slice(0, 2000) ?? '';
  const issues = new Map<number | undefined, Chunk[]>();
  for (const c of body) issues.set(c.citation.issue, [...(issues.get(c.citation.issue) ?? []), c]);
  const texts = [...issues.values()].map(([first, ...rest]) => [first!.text, ...rest.map((c) => splitBlockText(c).body)].filter((t) => t !== '').join('\n'));
  return (texts.length > 0 ? texts.join('\n\n') : (chunks[0]?.text ?? '')).slice(0, HOP_CHARS);
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

  // A pasted issue's environment (template comments, package lists) is not what it asks about: the rest is searched,
  // looked up, translated and answered (`retrieval.environment`); the result keeps the question as asked.
  const searchable = searchedText(question, config.retrieval.environment);
  const route = routeQuestion(searchable.text);
  if (searchable.left.length > 0) route.reasons.push(`environment left out of the search: ${searchable.left.join(', ')}`);

  // Direct lookups: an issue by number (here), a symbol by name (after retrieval); no search needed. An issue comes first;
  // a name's definition after the first files search finds with the whole question
  // (`retrieval.lookupsAfter`), or after the first three when the name is only mentioned in pasted text.
  const lookedUp: Placed[] = [];
  const named: Placed[] = [];
  const issueChunks: Chunk[] = [];
  await time('lookup', async () => {
    for (const n of route.lookups.issues) {
      const chunks = await store.lookupIssue(n);
      if (chunks.length === 0) route.reasons.push(`issue #${n} is not in the index`);
      issueChunks.push(...chunks);
      for (const chunk of chunks.slice(0, 3)) lookedUp.push({ chunk, scores: { collection: 'issues', fused: 1, bm25: null, dense: null, via: 'lookup' } });
    }
  });

  // A question in another language than the corpus is translated for the retrievers that match words.
  const crossLingual = route.language !== config.languages.corpus;
  const translation = crossLingual ? await time('translate', () => translateQuestion(config, searchable.text, route.language, deps.translator, store, deps.modelTranslator)) : undefined;
  if (translation?.text !== undefined) {
    const t = translation.text;
    route.reasons.push(`translated ${translation.from} → ${translation.to} (${translation.translator}): ${JSON.stringify(t.length > 160 ? `${t.slice(0, 159)}…` : t)}`);
    route.reasons.push(...sensesNotes(translation, config.retrieval.crossLingual));
  } else if (translation?.error !== undefined) route.reasons.push(`not translated (${translation.error}): searched as asked`);

  // Second hop: the referenced issue's text is what code and docs are searched with, and the names it mentions are
  // looked up as a pasted issue's are (unless the question names some itself).
  const hop = searchedText(issueQuery(issueChunks, config.retrieval.secondHop.text), config.retrieval.environment).text;
  const hopNames = hop && config.retrieval.secondHop.names === 'mentioned' && route.lookups.symbols.length === 0 ? routeQuestion(hop).lookups.symbols : [];
  if (hop) {
    const names = hopNames.length > 0 ? `; the names it mentions are looked up after the best search results (${hopNames.slice(0, 5).join(', ')}${hopNames.length > 5 ? ', …' : ''})` : '';
    const issues = [...new Set(issueChunks.map((c) => `#${c.citation.issue}`))].join(', ');
    route.reasons.push(`second hop: code and docs searched with the text of issue ${issues} (${hop.length} characters)${names}`);
  }
  const plan = searchPlan(searchable.text, hop, translation, config.retrieval.crossLingual);
  const queries: Partial<Record<Collection, string>> = {};
  for (const c of COLLECTIONS) queries[c] = hop && c !== 'issues' ? plan.hop!.bm25 : plan.question.bm25;

  const available = (await Promise.all(COLLECTIONS.map(async (c) => [c, await store.count(c)] as const))).filter(([, n]) => n > 0);
  const used = available.map(([c]) => (hop && c !== 'issues' ? plan.hop! : plan.question));
  const distinctTexts = [...new Set(used.flatMap((p) => p.dense))];
  const embedded = new Map<string, Float32Array>();
  // The second hop searches with the issue's text, in the corpus language already.
  const alphaOf = (p: QueryPlan) => questionAlpha(config.retrieval, crossLingual && p === plan.question, options.alpha);
  // Only where the question's own vector is searched (its plan is used and the dense side is on).
  const { offset, note: offsetNote } = plan.question.offset && used.includes(plan.question) && alphaOf(plan.question) > 0 ? await planOffset(config, embedder, plan.question.offset.from) : {};
  if (offsetNote) route.reasons.push(offsetNote);
  if (used.some((p) => alphaOf(p) > 0)) {
    await time('embed', async () => {
      const vs = await embedder.embedQueries(distinctTexts);
      distinctTexts.forEach((q, i) => embedded.set(q, vs[i]!));
    });
  }
  const depth = options.rankDepth ?? RANK_DEPTH;
  const lists: Partial<Record<Collection, SearchHit[]>> = {};
  const deep: Partial<Record<Collection, SearchHit[]>> = {};
  const found: Partial<Record<Collection, SearchHit[]>> = {};
  // Late interaction re-ranks a typed question's first candidates (not an issue's text: long, and code-led).
  const late = config.retrieval.lateInteraction;
  const typed = { typed: !hop && !route.pasted, translated: crossLingual };
  const lateFor = rerankerFor(late, typed);
  const reranked: Collection[] = [];
  // Query likelihood re-ranks them as well (after late interaction, when both are on), with the model translator's model.
  const likely = config.retrieval.queryLikelihood;
  const scorer = rerankerFor(likely, typed) ? likelihoodModel(config, deps.modelTranslator) : undefined;
  const likelihood = scorer && likelihoodReranking(scorer, searchable.text, likely);
  await time('retrieve', async () => {
    for (const [c] of available) {
      const p = hop && c !== 'issues' ? plan.hop! : plan.question;
      const alpha = alphaOf(p);
      const vector = alpha > 0 ? denseVector(p, (t) => embedded.get(t)!, offset?.vector) : undefined;
      // One search serves both: the context's list is its first budget.chunks (what searchCollection
      // returns), the ranking's its first `depth`, so the context is exactly what it was without it.
      const candidates = await hybridCandidates(store, vector, c, p.bm25, Math.max(budget.chunks, hybrid.candidates), alpha, p.phrases, hybrid.scale);
      let hits = withFileEvidence(candidates, hybrid.fileEvidence ?? 0);
      const lateHits = lateFor ? await lateInteracted(embedder, c, hits, plan.question.dense, late) : undefined;
      if (lateHits) {
        hits = lateHits;
        reranked.push(c);
      }
      // A model that cannot be opened (not provisioned, no access to PyPI) leaves the ranking as it was, said in the route.
      if (likelihood) hits = await likelihood.rerank(c, hits);
      lists[c] = hits.slice(0, budget.chunks);
      deep[c] = hits.slice(0, depth);
      found[c] = hits;
    }
  });

  if (reranked.length > 0) route.reasons.push(lateInteractionNote(late.depth, reranked));
  else if (lateFor && !embedder.tokenVectors) route.reasons.push(`late interaction: not run (the embedder ${embedder.id} gives no token vectors)`);
  if (scorer && likelihood) route.reasons.push(...queryLikelihoodNotes(likely.depth, likelihood.ranked, scorer.id, likelihood.error()));

  // A question that names a symbol wants its definition near the top; a pasted issue or traceback
  // names dozens, and their definitions would crowd out everything retrieval finds. So a few, bounded;
  // of a name's several definitions, the one search ranks highest (namedLookups.ts).
  // Looked up after retrieval, one name at a time until enough are placed: a pasted text's dozens of
  // names cost a store request each.
  const searchedFiles = (chunk: Chunk) => [...new Set((deep[chunk.collection] ?? []).map((h) => h.chunk.citation.path ?? ''))];
  const foundNames = new Set<string>();
  const searched = config.retrieval.definitions === 'searched';
  await time('lookup', async () => {
    for (const written of writtenNames(hopNames.length > 0 ? hopNames : route.lookups.symbols)) {
      if (named.length >= SYMBOL_LOOKUPS) break;
      if (searched && written.fallbackOf !== undefined && foundNames.has(written.fallbackOf)) continue;
      const chunks = definitionsMeant(written, await store.lookupSymbol(written.name));
      const chunk = searched ? pickDefinition(written, chunks, searchedFiles) : chunks[0];
      if (!chunk) continue;
      named.push({ chunk, scores: { collection: chunk.collection, fused: 1, bm25: null, dense: null, via: 'lookup' } });
      foundNames.add(written.name);
    }
  });

  // Where a pasted traceback failed in the sources: the definition its innermost frame there is in goes first.
  const crashSite: Placed[] = [];
  if (config.retrieval.traceback === 'innermost') {
    await time('lookup', async () => {
      const site = await crashSiteOf(store, tracebackFrames(hop || searchable.text));
      if (!site) return;
      crashSite.push({ chunk: site.chunk, scores: { collection: site.chunk.collection, fused: 1, bm25: null, dense: null, via: 'lookup' } });
      route.reasons.push(`traceback: its innermost frame in the sources is ${site.chunk.citation.path}, in ${site.frame.name} (line ${site.frame.line} as written); that definition is placed first`);
    });
  }

  // The learned route weighs docs against code once the fits are known (retrieval done), and whether the names the
  // question asks about are the docs' or the code's (counted where there are both to tell apart, not for pasted text;
  // kept for a replay).
  const learnedKind = config.retrieval.router.kind === 'learned';
  const size = Object.fromEntries(available) as Partial<Record<Collection, number>>;
  const counted = size.docs !== undefined && size.code !== undefined && !route.pasted && (learnedKind || options.keepCandidates);
  const asked = config.retrieval.router.counted === 'symbols-and-files' ? [...route.lookups.symbols, ...(route.files ?? [])] : route.lookups.symbols;
  const mentions = counted ? await time('lookup', () => nameMentions(store, asked, { docs: size.docs!, code: size.code! })) : undefined;
  if (learnedKind && mentions) route.reasons.push(mentionsNote(mentions));
  if (learnedKind) {
    const learned = learnedRoute(route, config.retrieval.router.model!, evidenceFeatures(route, found, mentions));
    Object.assign(route, learned);
  }
  const placement = placementOf({ ...config, fusion: fusionConfig });
  const candidates: Candidates = { lists, deep, lookedUp, crashSite, named, ...(mentions ? { mentions } : {}), weights: route.weights, pasted: route.pasted || hopNames.length > 0 };
  const after = lookupsPlace(candidates, placement);
  if (named.length > 0 && !candidates.pasted && after !== placement.lookupsAfter) {
    route.reasons.push(`the route leans to the docs: the definitions of the names asked about come after the first ${after === 1 ? 'file' : `${after} files`} search finds`);
  }
  const { fusion, ordered } = placeContext(candidates, budget.chunks, placement);
  if (docsFirstMove(fusion.ranked, candidates, placement) !== undefined) route.reasons.push("the route leans to the docs: the docs' best page comes before the code fusion put first");
  if (supportMoves(candidates, placement)) route.reasons.push("the route leans to the code: the library's code comes before its tests, examples and benchmarks");
  if (pastedSpreadMoves(candidates, placement)) {
    const m = placement.pastedPerFile!;
    route.reasons.push(`pasted text the route leans to the code for: ${m === 1 ? 'one chunk' : `${m} chunks`} of each code file before another file's next`);
  }
  if (docsAfterCodeMoves(fusion.ranked, candidates, placement)) {
    const n = placement.pastedDocsAfter!;
    route.reasons.push(`pasted text the route leans to the code for: the docs come after the first ${n === 1 ? 'code file' : `${n} code files`} search finds`);
  }
  const context = buildContext(searchable.text, route.language, ordered, budget, translation?.text, config.languages.corpus);
  const ranking = rankCandidates(candidates, depth, placement);

  let answer: VerifiedAnswer | undefined;
  if (!options.retrieveOnly) {
    const generated = await time('generate', () => deps.generator.generate(searchable.text, context));
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
    // A question in another language than the sources: each quote with its machine translation beside it.
    const glossing = crossLingual && config.answer.glosses === 'translator' ? (deps.translator ?? translatorFor(config.languages.translator)) : undefined;
    if (glossing && answer.quotes?.length && !answer.noAnswer) {
      const verified = answer;
      const glossed = await time('gloss', async () => {
        // The project's name and the question's own English words stay as written.
        const keep = await keptWords(config, searchable.text, route.language, translation?.text, glossing);
        return glossQuotes(verified, glossing, config.languages.corpus, route.language, keep, glossChoicesFor(config), glossOptionsFor(config));
      });
      Object.assign(answer, glossed);
    }
  }
  return { question, route, queries, ...(translation ? { translation } : {}), fusion, context, ranking, answer, timings, ...(options.keepCandidates ? { candidates } : {}) };
}

/** Frames of a traceback tried, innermost first, before giving up (each costs a store request). */
const FRAMES_TRIED = 8;

/**
 * The innermost frame of a traceback that is in the sources, and the code chunk defining its function: the frame's
 * function looked up by name, its definition in the frame's file chosen by `frameDefinition`. Frames outside the
 * sources (the standard library, the reporter's own tests) find none and are passed over.
 */
async function crashSiteOf(store: Store, frames: readonly Frame[]): Promise<{ frame: Frame; chunk: Chunk } | undefined> {
  for (const frame of frames.filter((f) => f.name !== undefined).slice(0, FRAMES_TRIED)) {
    const chunk = frameDefinition(frame, await store.lookupSymbol(frame.name!));
    if (chunk) return { frame, chunk };
  }
  return undefined;
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
