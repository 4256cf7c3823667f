import type { CitaConfig } from '../config/schema.ts';
import type { Store } from '../store/store.ts';
import type { ModelTranslator } from '../text/modelTranslate.ts';
import type { Language } from '../text/translate.ts';
import type { Collection, Embedder, SearchHit } from '../types.ts';
import { questionAlpha, searchPlan, translateQuestion, type QueryPlan, type Translation } from './crossLingual.ts';
import { searchedText } from '../text/environment.ts';
import { lateInteracted } from './lateInteraction.ts';
import { likelihoodModel, likelihoodReranking } from './queryLikelihood.ts';
import { rerankerFor } from './rerank.ts';
import { detectLanguage, pastedReason } from './router.ts';
import { searchCollections } from './search.ts';
import { planOffset } from '../embedding/languageOffset.ts';

/**
 * A query searched the way `ask` searches a question: in the language it is written in, detected;
 * in another language than the corpus, translated (Apertium, the senses the docs prefer, the
 * language model's rendering) and searched with the plan and the weight `ask` uses for it. The one
 * search of `cita search` and of the API's `search`: a Spanish query is never searched as written
 * by one and translated by the other.
 */

export interface SearchQueryOptions {
  collections: readonly Collection[];
  /** Hits per collection. */
  k: number;
  /** The dense weight asked for; default the config's for the query's language (`questionAlpha`). */
  alpha?: number;
}

export interface SearchQueryResult {
  language: Language;
  /** What a pasted issue's environment left out of the search (`retrieval.environment`), when anything was. */
  left?: string[];
  /** The query in the corpus language, when written in another (or why it could not be translated). */
  translation?: Translation;
  alpha: number;
  results: Partial<Record<Collection, SearchHit[]>>;
  /** The collections whose first candidates late interaction re-ranked (`retrieval.lateInteraction`), when any. */
  reranked?: Collection[];
  /** The collections whose first candidates query likelihood re-ranked (`retrieval.queryLikelihood`), when any. */
  likelihoodRanked?: Collection[];
  /** Why query likelihood was on and did not run (the model could not be opened). */
  likelihoodError?: string;
  /** The language offset taken out of the query's vector, or why none was (`retrieval.crossLingual.offset`). */
  offsetNote?: string;
}

/** What a query is searched with: its language, its translation, the texts each retriever uses and the dense weight. */
export interface PlannedQuery {
  language: Language;
  left?: string[];
  translation?: Translation;
  plan: QueryPlan;
  alpha: number;
  /** Pasted text (an issue, a traceback) rather than a typed question, as the router tells it without the environment. */
  pasted: boolean;
}

/** The first half of `searchQuery`: the language detected, the translation, the plan and the weight (benches time it apart). */
export async function planQuery(
  deps: { config: Pick<CitaConfig, 'languages' | 'retrieval'>; store: Store; modelTranslator?: Pick<ModelTranslator, 'id' | 'translate'> },
  query: string,
  alpha?: number,
): Promise<PlannedQuery> {
  const { config, store, modelTranslator } = deps;
  // A pasted issue without its environment, as `ask` searches it.
  const { text, left } = searchedText(query, config.retrieval.environment);
  // NFC as the router reads a question, so both detect the same language.
  const { language } = detectLanguage(text.normalize('NFC'));
  const crossLingual = language !== config.languages.corpus;
  const translation = crossLingual ? await translateQuestion(config, text, language, undefined, store, modelTranslator) : undefined;
  const plan = searchPlan(text, '', translation, config.retrieval.crossLingual).question;
  return {
    language,
    ...(left.length > 0 ? { left } : {}),
    ...(translation ? { translation } : {}),
    plan,
    alpha: questionAlpha(config.retrieval, crossLingual, alpha),
    pasted: pastedReason(text) !== undefined,
  };
}

export async function searchQuery(
  // `modelTranslator`: the language model's second translation (a server's own; default the process's, as `translateQuestion` says).
  deps: { config: Pick<CitaConfig, 'languages' | 'retrieval'>; store: Store; embedder: Embedder; modelTranslator?: Pick<ModelTranslator, 'id' | 'translate'> },
  query: string,
  options: SearchQueryOptions,
): Promise<SearchQueryResult> {
  const { config, store, embedder } = deps;
  const { language, left, translation, plan, alpha, pasted } = await planQuery(deps, query, options.alpha);
  // Late interaction re-ranks a typed query's first candidates as `ask` does: searched that deep, then cut to k.
  const late = config.retrieval.lateInteraction;
  const question = { typed: !pasted, translated: language !== config.languages.corpus };
  const lateFor = rerankerFor(late, question);
  const likely = config.retrieval.queryLikelihood;
  const scorer = rerankerFor(likely, question) ? likelihoodModel(config, deps.modelTranslator) : undefined;
  const depth = Math.max(options.k, lateFor ? late.depth : 0, scorer ? likely.depth : 0);
  // A language offset that cannot be made leaves the vector as it is, and the result says why.
  const { offset, note: offsetNote } = plan.offset && alpha > 0 ? await planOffset(config, embedder, plan.offset.from) : {};
  const results = await searchCollections(store, embedder, query, options.collections, depth, { ...config.retrieval.hybrid, alpha }, plan, offset?.vector);
  const reranked: Collection[] = [];
  // Scored as asked, without a pasted issue's environment (as `ask` scores it).
  const likelihood = scorer && likelihoodReranking(scorer, searchedText(query, config.retrieval.environment).text, likely);
  for (const c of Object.keys(results) as Collection[]) {
    const lateHits = lateFor ? await lateInteracted(embedder, c, results[c]!, plan.dense, late) : undefined;
    if (lateHits) reranked.push(c);
    let hits = lateHits ?? results[c]!;
    // A model that cannot be opened leaves the ranking as it was, as in `ask`; the result says why.
    if (likelihood) hits = await likelihood.rerank(c, hits);
    results[c] = hits.slice(0, options.k);
  }
  return {
    language,
    ...(left ? { left } : {}),
    ...(translation ? { translation } : {}),
    alpha,
    results,
    ...(reranked.length > 0 ? { reranked } : {}),
    ...(likelihood && likelihood.ranked.length > 0 ? { likelihoodRanked: likelihood.ranked } : {}),
    ...(likelihood?.error() !== undefined ? { likelihoodError: likelihood.error()! } : {}),
    ...(offsetNote ? { offsetNote } : {}),
  };
}
