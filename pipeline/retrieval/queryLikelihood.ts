import type { CitaConfig } from '../config/schema.ts';
import { modelTranslatorFor } from '../text/modelTranslate.ts';
import type { Collection, SearchHit } from '../types.ts';
import { rerankHead } from './rerank.ts';

/**
 * Query likelihood as a re-ranker (unsupervised passage re-ranking, "UPR", Sachan et al. 2022): a candidate chunk
 * scores how likely a language model finds the question right after it, log p(question | chunk) averaged over the
 * question's tokens. The model is the model translator's (`languages.modelTranslator`: Gemma 3 270M, a multilingual
 * pretrained model), so a Spanish question is scored as asked against the English chunk as written — a
 * relevance signal across languages that no translator's vocabulary limits, where BM25 reads Apertium's words and
 * the embedder pools a chunk into one vector (`retrieval.queryLikelihood`; the A/B in docs/languages.md).
 */

/** What scores: a language model's likelihood of texts after a prompt (ModelTranslator.likelihoods). */
export interface LikelihoodModel {
  likelihoods(prompt: string, texts: readonly string[]): Promise<number[]>;
}

type QueryLikelihoodConfig = CitaConfig['retrieval']['queryLikelihood'];

/** The label after a chunk, up to where the question goes. */
const LABEL = 'A question this text answers:';

/**
 * What the model reads before the question: the chunk's text (its heading path, then its body), blank lines
 * collapsed, cut to `chars` characters between words, then the label. Pure.
 */
export function likelihoodPrompt(text: string, chars: number): string {
  const flat = text.replace(/\n{3,}/g, '\n\n').trim();
  let cut = flat;
  if (flat.length > chars) {
    const at = flat.lastIndexOf(' ', chars);
    cut = flat.slice(0, at > chars / 2 ? at : chars);
  }
  return `Text:\n${cut}\n\n${LABEL}`;
}

/**
 * The model that scores: the model translator given (a server's, isolated) when it can, or the process's for the
 * config, as `translateQuestion` takes it.
 */
export function likelihoodModel(config: Pick<CitaConfig, 'languages'>, given?: { id: string } & Partial<LikelihoodModel>): LikelihoodModel & { id: string } {
  return given?.likelihoods ? (given as LikelihoodModel & { id: string }) : modelTranslatorFor(config.languages.modelTranslator);
}

/** Each of the first `depth` hits' likelihood of the question after it. */
export async function likelihoodScores(model: LikelihoodModel, hits: readonly SearchHit[], question: string, options: Pick<QueryLikelihoodConfig, 'depth' | 'passageChars'>): Promise<number[]> {
  const scores: number[] = [];
  for (const h of hits.slice(0, options.depth)) scores.push((await model.likelihoods(likelihoodPrompt(h.chunk.text, options.passageChars), [question]))[0]!);
  return scores;
}

/** A collection's hits with their first `depth` re-ranked by query likelihood, or undefined when the collection is not one of `options.collections`. */
export async function queryLikelihoodReranked(model: LikelihoodModel, collection: Collection, hits: readonly SearchHit[], question: string, options: QueryLikelihoodConfig): Promise<SearchHit[] | undefined> {
  if (!options.collections.includes(collection)) return undefined;
  return rerankHead(hits, await likelihoodScores(model, hits, question, options), options.weight);
}

/**
 * A question's collections re-ranked one after another, keeping what happened: the collections re-ranked, or why the
 * model could not score (it could not be opened: the rankings are then left as they were, and it is not tried again).
 */
export function likelihoodReranking(model: LikelihoodModel, question: string, options: QueryLikelihoodConfig) {
  const ranked: Collection[] = [];
  let error: string | undefined;
  return {
    ranked,
    error: () => error,
    async rerank(collection: Collection, hits: SearchHit[]): Promise<SearchHit[]> {
      if (error !== undefined) return hits;
      const out = await queryLikelihoodReranked(model, collection, hits, question, options).catch((err: unknown) => {
        error = (err as Error).message;
        return undefined;
      });
      if (!out) return hits;
      ranked.push(collection);
      return out;
    },
  };
}

/** What the route (and `cita search`) says of a re-ranking: the collections re-ranked, and why it did not run when it could not. */
export function queryLikelihoodNotes(depth: number, collections: readonly string[], model: string, error?: string): string[] {
  return [
    ...(collections.length > 0 ? [`query likelihood: the first ${depth} ${collections.join(' and ')} candidates re-ranked by how likely ${model} finds the question after each`] : []),
    ...(error !== undefined ? [`query likelihood: not run (${error})`] : []),
  ];
}
