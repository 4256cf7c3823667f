import { Client, errors, type estypes } from '@elastic/elasticsearch';
import { COLLECTIONS, type Chunk, type Citation, type Collection, type ScoredChunk, type StoredChunk } from '../../types.ts';
import { checkChunk, checkCollection, checkQueryVector, commonTerms, fold, leafOf, phraseTerms, prunesTerms, queryTerms, searchFields, selectTerms, symbolNames, wantsHits } from '../shared.ts';
import { IndexChangedError, IndexDamagedError, type ChangeSet, type Standing, type Store } from '../store.ts';
import { topK } from '../topK.ts';
import { limit } from '../../limit.ts';
import { cosine } from '../../vectors.ts';

/** The client's constructor options (node, auth, tls, timeouts). */
export type ClientOptions = NonNullable<ConstructorParameters<typeof Client>[0]>;

/**
 * The Elasticsearch store: per instance and collection one index behind an alias.
 *
 * - Index names are `cita-<instance>-<collection>-<generation>` (generation: 6 digits); readers
 *   always go through the alias `cita-<instance>-<collection>`. Meta lives in
 *   `cita-<instance>-meta-<generation>` behind the alias `cita-<instance>-meta` (one document).
 * - `apply` never writes to an index a reader can see. For every collection the change set touches
 *   (and for meta) it builds the next generation: a clone of the current one (`_clone` hard-links
 *   the segment files, so the cost hardly grows with the collection) plus the changes, then
 *   refreshes it and moves all the touched aliases in ONE `_aliases` request, which Elasticsearch
 *   applies atomically. A failure anywhere before the swap deletes the new generations and leaves
 *   the aliases (and so every reader) on the old ones. The swap removes each old alias with
 *   `must_exist`, so a concurrent writer that swapped first makes ours fail (IndexChangedError)
 *   instead of losing its changes. `generation()` names the generation behind every alias; a
 *   conditional apply (`ifGeneration`) also asserts, in that same request, the aliases it leaves
 *   alone, so its check and its commit are one atomic step. `openRebuild` builds whole new
 *   generations behind no alias for `cita index --rebuild`.
 * - A generation is published with no deleted documents (`withoutDeletes`): Lucene counts a deleted
 *   document in BM25's statistics (document count, document frequency, average length) until a
 *   merge drops it, so an index that had deletes would score unlike a fresh build of the same
 *   content. Deletes are soft deletes, and a force merge keeps those the shard's history retention
 *   lease or last safe commit still covers (elastic/elasticsearch#56667), which in a new generation
 *   is all of them. A clone starts its history above every operation of its source, so the written
 *   generation is cloned once more and that clone force-merged into one segment, which drops them;
 *   `apply` fails, changing nothing, if any is left.
 * - BM25 runs on folded copies of title and text (accents removed here, so the analyzer can be the
 *   standard one, which is all a node built from Maven Central has) plus the identifier parts from
 *   `expandIdentifiers`, exactly the tokens the SQLite store adds.
 * - Vectors: `dense_vector`, cosine, `index_options: {type: flat}`: exact kNN by brute force. HNSW
 *   is approximate and its graph depends on the order documents were written and merged in, so an
 *   updated index could return other neighbours than a fresh build; at the sizes cita indexes (a few
 *   thousand chunks per collection) the exact search is about as fast, and indexing, cloning and
 *   merging are several times cheaper without a graph. Lucene's float32 score of one vector still
 *   varies in its last bit with the segment layout, so it only selects candidates: `knn` scores them
 *   with `cosine` over `vector_bytes` (the float32 values as given, base64; Elasticsearch keeps
 *   `vector` normalised), with a margin for Lucene's rounding, and ties at the k-th place go by chunk
 *   id (topK.ts).
 */

/** Bumped when the mapping changes; an index with another version must be rebuilt, not guessed at. */
export const ES_SCHEMA_VERSION = 2;

/** bm25 field weights as in the SQLite store: a title hit says more than one in the body. */
const BM25_FIELDS = ['title_search^2', 'text_search', 'identifiers'];

/** bm25's query for (folded) terms: their OR over the weighted fields, each field scored and summed. */
function bm25Query(terms: string[]) {
  return { multi_match: { query: terms.join(' '), type: 'most_fields' as const, fields: BM25_FIELDS, operator: 'or' as const } };
}

/** A phrase's query: its words together, in order, in one of bm25's fields (the best field's score). */
function phraseQuery(phrase: string) {
  return { multi_match: { query: phrase, type: 'phrase' as const, fields: BM25_FIELDS } };
}

/**
 * Lucene's common-terms query (`commonTerms`; Elasticsearch 8 removed its own): documents must match
 * a rare term, and the common ones add their scores where they match, so a document's score is the
 * same sum as in `bm25Query` of every term.
 */
function commonTermsQuery(terms: string[], common: boolean[]) {
  const rare = terms.filter((_, i) => !common[i]);
  const frequent = terms.filter((_, i) => common[i]);
  return { bool: { must: [bm25Query(rare)], should: [bm25Query(frequent)] } };
}

/** Largest `size` of one search request (index.max_result_window) and `num_candidates` of kNN. */
const MAX_WINDOW = 10_000;
const PAGE = 1_000;

export interface ElasticsearchStoreOptions {
  /** Vector dimensions; fixed when the indices are created and checked on every open. */
  dims: number;
  /** Instance name: part of every index name (lowercase letters, digits, `.`, `_`, `-`). */
  instance: string;
  /** A ready client, or the options to build one (see `clientOptionsFromEnv`). */
  client: Client | ClientOptions;
  /** Analyzer of the text fields (default `standard`; e.g. a language analyzer on a real cluster). */
  analyzer?: string;
  /** Index prefix, default `cita`. */
  prefix?: string;
  /** Shards and replicas of new indices (default 1 and 0: one node). */
  shards?: number;
  replicas?: number;
  /** Bulk requests: documents per request, concurrent requests, retries of rejected (429) items. */
  bulk?: { flushBytes?: number; concurrency?: number; retries?: number; wait?: number };
  /** bm25 searches with at most this many of a query's terms, the rarest in the collection (`selectTerms`); undefined: all. */
  bm25MaxTerms?: number;
  /** bm25 as Lucene's common-terms query: terms in more than this many documents (below 1: this share of the collection's) only score documents a rarer term matches (`commonTerms`); undefined: off. */
  bm25CommonCutoff?: number;
}

/** Where the client's credentials and TLS come from: the environment, never a config file. */
export interface ElasticsearchConnection {
  url: string;
  /** Environment variable holding an API key (base64 `id:key`), tried first. */
  apiKeyEnv?: string;
  /** Environment variables holding a user name and password for basic auth. */
  usernameEnv?: string;
  passwordEnv?: string;
  /** PEM file of the CA that signed the cluster's certificate. */
  caFile?: string;
  /** Verify the server's certificate (default true). */
  rejectUnauthorized?: boolean;
  requestTimeoutMs?: number;
  maxRetries?: number;
}

export async function clientOptionsFromEnv(
  c: ElasticsearchConnection,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ClientOptions> {
  const options: ClientOptions = {
    node: c.url,
    requestTimeout: c.requestTimeoutMs ?? 30_000,
    maxRetries: c.maxRetries ?? 3,
  };
  const apiKey = c.apiKeyEnv ? env[c.apiKeyEnv] : undefined;
  const username = c.usernameEnv ? env[c.usernameEnv] : undefined;
  const password = c.passwordEnv ? env[c.passwordEnv] : undefined;
  if (apiKey) options.auth = { apiKey };
  else if (username !== undefined || password !== undefined) {
    if (!username || password === undefined) {
      throw new Error(`Elasticsearch basic auth needs both ${c.usernameEnv ?? 'usernameEnv'} and ${c.passwordEnv ?? 'passwordEnv'} set`);
    }
    options.auth = { username, password };
  } else if (c.apiKeyEnv || c.usernameEnv || c.passwordEnv) {
    // Named but empty: connecting without credentials would fail later with a less helpful 401.
    const names = [c.apiKeyEnv, c.usernameEnv, c.passwordEnv].filter(Boolean).join(', ');
    throw new Error(`Elasticsearch credentials: the config names the environment variable(s) ${names}, but none is set`);
  }
  if (c.caFile !== undefined || c.rejectUnauthorized !== undefined) {
    const { readFile } = await import('node:fs/promises');
    options.tls = {
      ...(c.caFile ? { ca: await readFile(c.caFile, 'utf8') } : {}),
      rejectUnauthorized: c.rejectUnauthorized ?? true,
    };
  }
  return options;
}

/** The document stored per chunk. */
interface ChunkDoc {
  id: string;
  collection: Collection;
  title: string;
  text: string;
  citation: Citation;
  tokens: number;
  symbols?: string[];
  path: string;
  start_line: number;
  issue?: number;
  comment_id?: number;
  symbol_names: string[];
  symbol_leaves: string[];
  title_search: string;
  text_search: string;
  identifiers: string;
  vector: number[];
  vector_bytes: string;
}

type Source = Omit<ChunkDoc, 'vector' | 'vector_bytes'> & { vector_bytes?: string };

function toDoc(chunk: StoredChunk): ChunkDoc {
  const { citation } = chunk;
  const search = searchFields(chunk.title, chunk.text);
  const names = symbolNames(chunk);
  const doc: ChunkDoc = {
    id: chunk.id,
    collection: chunk.collection,
    title: chunk.title,
    text: chunk.text,
    citation,
    tokens: chunk.tokens,
    path: citation.path,
    start_line: citation.startLine,
    symbol_names: names,
    symbol_leaves: [...new Set(names.map(leafOf))],
    title_search: fold(search.title),
    text_search: fold(search.text),
    identifiers: fold(search.identifiers),
    vector: Array.from(chunk.vector),
    vector_bytes: vectorBytes(chunk.vector),
  };
  if (chunk.symbols !== undefined) doc.symbols = chunk.symbols;
  if (citation.issue !== undefined) doc.issue = citation.issue;
  if (citation.commentId !== undefined) doc.comment_id = citation.commentId;
  return doc;
}

function toChunk(source: Source): Chunk {
  const chunk: Chunk = {
    id: source.id,
    collection: source.collection,
    text: source.text,
    title: source.title,
    citation: source.citation,
    tokens: source.tokens,
  };
  if (source.symbols !== undefined) chunk.symbols = source.symbols;
  return chunk;
}

/** The vector's float32 values, little-endian, base64: `knn` scores with exactly the vector given. */
function vectorBytes(v: Float32Array): string {
  const view = new DataView(new ArrayBuffer(v.length * 4));
  v.forEach((x, i) => view.setFloat32(i * 4, x, true));
  return Buffer.from(view.buffer).toString('base64');
}

function fromVectorBytes(base64: string): Float32Array {
  const bytes = Buffer.from(base64, 'base64');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return Float32Array.from({ length: bytes.byteLength / 4 }, (_, i) => view.getFloat32(i * 4, true));
}

/**
 * How far Lucene's kNN score can be from `cosine`: Elasticsearch normalises both vectors in float32
 * (each norm within d/2·u, u = 2^-24), their float32 dot product errs by at most d·u (Higham's bound
 * for unit vectors), and the (1 + cos) / 2 round trip by 2u: at most (2d + 4)·u; twice that.
 */
function knnSlack(dims: number): number {
  return (dims + 2) * 2 ** -22;
}

/** Fields every read needs: everything but the search copies and the vector. */
const SOURCE_FIELDS = ['id', 'collection', 'title', 'text', 'citation', 'tokens', 'symbols'];

function chunkMapping(dims: number, analyzer: string) {
  const stored = { type: 'keyword', index: false, doc_values: false } as const;
  return {
    dynamic: 'strict' as const,
    _meta: { cita_schema: ES_SCHEMA_VERSION },
    properties: {
      id: { type: 'keyword' as const },
      collection: { type: 'keyword' as const },
      title: { type: 'text' as const, index: false },
      text: { type: 'text' as const, index: false },
      citation: { type: 'object' as const, enabled: false },
      tokens: { type: 'integer' as const, index: false },
      symbols: stored,
      path: { type: 'keyword' as const },
      start_line: { type: 'integer' as const },
      issue: { type: 'long' as const },
      comment_id: { type: 'long' as const },
      symbol_names: { type: 'keyword' as const },
      symbol_leaves: { type: 'keyword' as const },
      title_search: { type: 'text' as const, analyzer },
      text_search: { type: 'text' as const, analyzer },
      identifiers: { type: 'text' as const, analyzer },
      vector: {
        type: 'dense_vector' as const,
        dims,
        index: true,
        similarity: 'cosine' as const,
        index_options: { type: 'flat' as const },
      },
      vector_bytes: { type: 'binary' as const },
    },
  };
}

/** Field → what the mapping must say, checked on open (a mismatch is a clear error, nothing deleted). */
function expectedFields(dims: number): Record<string, Record<string, unknown>> {
  return {
    id: { type: 'keyword' },
    collection: { type: 'keyword' },
    path: { type: 'keyword' },
    start_line: { type: 'integer' },
    issue: { type: 'long' },
    comment_id: { type: 'long' },
    symbol_names: { type: 'keyword' },
    symbol_leaves: { type: 'keyword' },
    title_search: { type: 'text' },
    text_search: { type: 'text' },
    identifiers: { type: 'text' },
    vector: { type: 'dense_vector', dims, similarity: 'cosine' },
    vector_bytes: { type: 'binary' },
  };
}

const META_MAPPING = {
  dynamic: 'strict' as const,
  _meta: { cita_schema: ES_SCHEMA_VERSION },
  properties: { values: { type: 'object' as const, enabled: false } },
};

/** Turns a client error into one a user can act on. */
function explain(err: unknown, url: string, what: string): Error {
  if (err instanceof errors.ConnectionError || err instanceof errors.TimeoutError || err instanceof errors.NoLivingConnectionsError) {
    // One line: the error code (ECONNREFUSED, ENOTFOUND, …) says more than the client's message.
    const code = err instanceof errors.TimeoutError ? 'timeout' : (/\b(E[A-Z_]{3,})\b/.exec(err.message)?.[1] ?? err.name);
    const detail = err.message.split('\n')[0]!.slice(0, 200);
    return new Error(
      `Elasticsearch at ${url}: unreachable (${code}) while ${what}: ${detail}. Nothing was changed. Is the node running (\`npm run es:start\` locally) and is store.elasticsearch.url right?`,
      { cause: err },
    );
  }
  if (err instanceof errors.ProductNotSupportedError) {
    return new Error(`${url} is not Elasticsearch (the client's product check failed) while ${what}`, { cause: err });
  }
  if (err instanceof errors.ResponseError) {
    const status = err.meta.statusCode;
    if (status === 401) {
      return new Error(`Elasticsearch at ${url} rejected the credentials (401) while ${what}; check the API key or user/password environment variables`, { cause: err });
    }
    if (status === 403) {
      return new Error(`Elasticsearch at ${url} denied ${what} (403): the credentials lack the privilege`, { cause: err });
    }
    const body = err.meta.body as { error?: { type?: string; reason?: string } } | undefined;
    const reason = body?.error ? `${body.error.type}: ${body.error.reason}` : err.message;
    return new Error(`Elasticsearch error (${status}) while ${what}: ${reason}`, { cause: err });
  }
  return err instanceof Error ? err : new Error(String(err));
}

/** The store's `generation()`: `name:generation` of every alias, in a fixed order. */
function generationToken(gens: Map<Collection | 'meta', Generation | null>): string {
  return [...gens].map(([name, g]) => `${name}:${g?.generation ?? 0}`).join(',');
}

interface Generation {
  alias: string;
  /** Concrete index behind the alias. */
  index: string;
  generation: number;
}

export class ElasticsearchStore implements Store {
  readonly kind = 'elasticsearch';
  readonly dims: number;
  readonly instance: string;
  readonly client: Client;
  private readonly url: string;
  private readonly prefix: string;
  private readonly analyzer: string;
  private readonly settings: { number_of_shards: number; number_of_replicas: number };
  private readonly bulkOptions: Required<NonNullable<ElasticsearchStoreOptions['bulk']>>;
  private readonly ownsClient: boolean;
  /**
   * `--rebuild`: the fresh generations being built, behind no alias (readers stay on the current
   * ones); every read and write of this store goes to them until `commitRebuild` swaps them in.
   */
  private staged: Map<Collection | 'meta', string> | null = null;
  private readonly bm25MaxTerms: number | undefined;
  private readonly bm25CommonCutoff: number | undefined;

  private constructor(options: ElasticsearchStoreOptions, client: Client, ownsClient: boolean) {
    this.dims = options.dims;
    this.instance = options.instance;
    this.client = client;
    this.ownsClient = ownsClient;
    this.url = (client.connectionPool.connections[0]?.url.origin as string | undefined) ?? 'the configured node';
    this.prefix = options.prefix ?? 'cita';
    this.analyzer = options.analyzer ?? 'standard';
    this.settings = { number_of_shards: options.shards ?? 1, number_of_replicas: options.replicas ?? 0 };
    this.bulkOptions = { flushBytes: 5_000_000, concurrency: 2, retries: 3, wait: 1000, ...options.bulk };
    this.bm25MaxTerms = options.bm25MaxTerms;
    this.bm25CommonCutoff = options.bm25CommonCutoff;
  }

  /**
   * Connects, checks the node, and creates the indices the first time. Throws (deleting nothing)
   * when the node is unreachable, rejects the credentials, or an existing index has another
   * mapping (other dimensions, other field types, another schema version).
   */
  static async open(options: ElasticsearchStoreOptions): Promise<ElasticsearchStore> {
    return ElasticsearchStore.connect(options, async (store) => {
      for (const collection of COLLECTIONS) await store.ensure(store.alias(collection), chunkMapping(store.dims, store.analyzer), true);
      await store.ensure(store.alias('meta'), META_MAPPING, false);
    });
  }

  /**
   * A store for `cita index --rebuild`: fresh, empty generations of every collection and of meta,
   * behind no alias, so readers keep using the current index while this one is built. Reads and
   * writes of the returned store go to the new generations. `commitRebuild` then moves every alias
   * to them in one atomic request and deletes the old generations; `discardRebuild` deletes the
   * new ones. Nothing existing is touched before the swap. An old generation with another mapping
   * is no obstacle (replacing it is what a rebuild is for); a concrete index at an alias name is.
   */
  static async openRebuild(options: ElasticsearchStoreOptions): Promise<ElasticsearchStore> {
    return ElasticsearchStore.connect(options, async (store) => {
      const staged = new Map<Collection | 'meta', string>();
      try {
        for (const name of [...COLLECTIONS, 'meta'] as const) {
          const alias = store.alias(name);
          const current = await store.current(alias);
          const index = store.indexName(alias, await store.nextGeneration(alias, current?.generation ?? 0));
          const mappings = name === 'meta' ? META_MAPPING : chunkMapping(store.dims, store.analyzer);
          await store.call(`creating index ${index}`, () => store.client.indices.create({ index, settings: store.indexSettings(), mappings }));
          staged.set(name, index);
        }
      } catch (err) {
        if (staged.size > 0) await store.client.indices.delete({ index: [...staged.values()], ignore_unavailable: true }).catch(() => undefined);
        throw err;
      }
      store.staged = staged;
    });
  }

  /**
   * The meta of an instance's index without creating anything: null when there is no index (no
   * meta alias). Lets `cita search`/`ask` say "not indexed yet" and read the dimensions first.
   */
  static async readMeta(options: Omit<ElasticsearchStoreOptions, 'dims'>): Promise<Record<string, string> | null> {
    let meta: Record<string, string> | null = null;
    const store = await ElasticsearchStore.connect({ ...options, dims: 1 }, async (s) => {
      const current = await s.current(s.alias('meta'));
      meta = current ? await s.metaOf(current.index) : null;
    });
    await store.close();
    return meta;
  }

  /** Validates the options, builds the client, waits for a usable cluster, then runs `init`; closes the client on failure. */
  private static async connect(options: ElasticsearchStoreOptions, init: (store: ElasticsearchStore) => Promise<void>): Promise<ElasticsearchStore> {
    const { dims, instance } = options;
    if (!Number.isInteger(dims) || dims <= 0) throw new Error(`ElasticsearchStore: dims must be a positive integer, got ${String(dims)}`);
    if (!/^[a-z0-9][a-z0-9._-]*$/.test(instance)) {
      throw new Error(`ElasticsearchStore: instance ${JSON.stringify(instance)} must be lowercase letters, digits, ".", "_" or "-"`);
    }
    const ownsClient = !(options.client instanceof Client);
    const client = options.client instanceof Client ? options.client : new Client(options.client);
    const store = new ElasticsearchStore(options, client, ownsClient);
    try {
      const health = await store.call('checking the cluster health', () => client.cluster.health({ wait_for_status: 'yellow', timeout: '30s' }));
      if (health.timed_out) {
        throw new Error(`Elasticsearch cluster ${health.cluster_name} at ${store.url} is ${health.status}, not yellow or green, after 30 s; nothing was changed`);
      }
      await init(store);
    } catch (err) {
      if (ownsClient) await client.close();
      throw err;
    }
    return store;
  }

  /**
   * Swaps the rebuilt generations in: every alias moves in one request (removing an old one with
   * `must_exist`, so a concurrent swap makes ours fail), then the old generations are deleted.
   */
  async commitRebuild(): Promise<void> {
    await this.writes.idle();
    const staged = this.staged;
    if (!staged) throw new Error('ElasticsearchStore: commitRebuild without openRebuild');
    const actions: object[] = [];
    const old: string[] = [];
    const before = new Map<Collection | 'meta', Generation | null>();
    for (const [name, index] of staged) {
      const alias = this.alias(name);
      const current = await this.current(alias);
      before.set(name, current);
      if (current) {
        actions.push({ remove: { index: current.index, alias, must_exist: true } });
        old.push(current.index);
      }
      actions.push({ add: { index, alias } });
    }
    try {
      await this.swap(actions, 'swapping aliases to the rebuilt generations', before);
    } catch (err) {
      // Readers are still on the old generations: drop the rebuilt ones rather than leave them orphaned.
      await this.discardRebuild().catch(() => undefined);
      throw err;
    }
    this.staged = null;
    if (old.length > 0) await this.client.indices.delete({ index: old, ignore_unavailable: true }).catch(() => undefined);
  }

  /** Deletes the generations a rebuild was building; the current index was never touched. */
  async discardRebuild(): Promise<void> {
    await this.writes.idle();
    const staged = this.staged;
    if (!staged) return;
    this.staged = null;
    await this.call('deleting the unfinished rebuild', () => this.client.indices.delete({ index: [...staged.values()], ignore_unavailable: true }));
  }

  /** Where reads and writes of a collection (or meta) go: the staged generation while rebuilding, else the alias. */
  private target(name: Collection | 'meta'): string {
    return this.staged?.get(name) ?? this.alias(name);
  }

  private alias(name: Collection | 'meta'): string {
    return `${this.prefix}-${this.instance}-${name}`;
  }

  private indexName(alias: string, generation: number): string {
    return `${alias}-${String(generation).padStart(6, '0')}`;
  }

  private async call<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw explain(err, this.url, what);
    }
  }

  /** The index behind an alias (null when the alias does not exist). */
  private async current(alias: string): Promise<Generation | null> {
    const exists = await this.call(`reading alias ${alias}`, () => this.client.indices.existsAlias({ name: alias }));
    if (!exists) {
      const concrete = await this.call(`checking index ${alias}`, () => this.client.indices.exists({ index: alias }));
      if (concrete) {
        throw new Error(
          `Elasticsearch index ${alias} at ${this.url} is a concrete index, not cita's alias (an old or foreign layout); ` +
            `nothing was changed or deleted. Move it away (reindex elsewhere, then delete it) or use another instance name.`,
        );
      }
      return null;
    }
    const aliases = await this.call(`reading alias ${alias}`, () => this.client.indices.getAlias({ name: alias }));
    const indices = Object.keys(aliases);
    if (indices.length !== 1) throw new Error(`Elasticsearch alias ${alias} points at ${indices.length} indices (${indices.join(', ')}); expected one`);
    const index = indices[0]!;
    const generation = Number(/-(\d{6})$/.exec(index)?.[1] ?? NaN);
    if (!index.startsWith(`${alias}-`) || !Number.isInteger(generation)) {
      throw new Error(`Elasticsearch alias ${alias} points at ${index}, which is not one of cita's generations (${alias}-NNNNNN); nothing was changed`);
    }
    return { alias, index, generation };
  }

  /** Creates generation 1 behind the alias if there is none; checks the mapping of an existing one. */
  private async ensure(alias: string, mapping: object, isChunks: boolean): Promise<void> {
    const gen = await this.current(alias);
    if (gen) {
      await this.checkMapping(gen.index, isChunks);
      return;
    }
    const index = this.indexName(alias, 1);
    try {
      await this.client.indices.create({ index, settings: this.indexSettings(), mappings: mapping, aliases: { [alias]: {} } });
    } catch (err) {
      if (err instanceof errors.ResponseError && err.meta.statusCode === 400 && /resource_already_exists/.test(JSON.stringify(err.meta.body))) {
        // Another process created it meanwhile, or an orphan without the alias: check what is there.
        const again = await this.current(alias);
        if (again) return this.checkMapping(again.index, isChunks);
        throw new Error(`Elasticsearch index ${index} exists without the alias ${alias} (an interrupted run or a foreign index); nothing was deleted. Delete it or add the alias.`);
      }
      throw explain(err, this.url, `creating index ${index}`);
    }
  }

  private indexSettings() {
    // Generations are written once, refreshed explicitly, then only read.
    return { ...this.settings, refresh_interval: '-1' };
  }

  private async checkMapping(index: string, isChunks: boolean): Promise<void> {
    const res = await this.call(`reading the mapping of ${index}`, () => this.client.indices.getMapping({ index }));
    const mapping = Object.values(res)[0]?.mappings as { _meta?: { cita_schema?: unknown }; properties?: Record<string, Record<string, unknown>> } | undefined;
    const rebuild =
      `nothing was changed or deleted; \`cita index ${this.instance} --rebuild\` builds new indices with cita's mapping and swaps them in ` +
      `(the old ones are deleted only after the swap), or use another instance name or store.elasticsearch.prefix`;
    const incompatible = (reason: string) => new IndexDamagedError(`${reason}; ${rebuild}`, reason);
    const version = mapping?._meta?.cita_schema;
    if (version !== ES_SCHEMA_VERSION) {
      throw incompatible(`Elasticsearch index ${index}: mapping has cita schema version ${String(version)}, this cita writes ${ES_SCHEMA_VERSION}`);
    }
    if (!isChunks) return;
    for (const [field, expected] of Object.entries(expectedFields(this.dims))) {
      const actual = mapping?.properties?.[field];
      for (const [key, value] of Object.entries(expected)) {
        if (actual?.[key] !== value) {
          throw incompatible(
            `Elasticsearch index ${index}: mapping conflict on field ${field}: ${key} is ${JSON.stringify(actual?.[key])}, cita needs ${JSON.stringify(value)}`,
          );
        }
      }
    }
  }

  /** Applies of this store queue, like SQLite's write lock (another process's concurrent swap fails ours instead). */
  private readonly writes = limit(1);

  async apply(changes: ChangeSet): Promise<void> {
    return this.writes(() => this.applyNow(changes));
  }

  /**
   * The generation behind every alias, e.g. `docs:3,code:2,issues:1,meta:4` (0: no alias); while
   * rebuilding, those being built. Every apply that changes something moves at least one of them.
   */
  async generation(): Promise<string> {
    if (this.staged) return generationToken(new Map([...this.staged].map(([name, index]) => [name, { alias: this.alias(name), index, generation: Number(index.slice(-6)) }])));
    return generationToken(await this.currents());
  }

  private async currents(): Promise<Map<Collection | 'meta', Generation | null>> {
    const out = new Map<Collection | 'meta', Generation | null>();
    for (const name of [...COLLECTIONS, 'meta'] as const) out.set(name, await this.current(this.alias(name)));
    return out;
  }

  /**
   * Moves aliases in one request. Each old generation is removed with `must_exist`, so if another
   * writer swapped first the whole request fails (404: alias not there, or the old index already
   * deleted by that writer), which is reported as IndexChangedError.
   */
  private async swap(actions: object[], what: string, before: Map<Collection | 'meta', Generation | null>): Promise<void> {
    try {
      await this.client.indices.updateAliases({ actions: actions as never });
    } catch (err) {
      // An old generation no longer behind its alias, or already deleted by the writer that moved it.
      if (err instanceof errors.ResponseError && err.meta.statusCode === 404 && /aliases_not_found|index_not_found/.test(JSON.stringify(err.meta.body))) {
        const now = await this.generation().catch(() => 'unknown');
        throw new IndexChangedError(`Elasticsearch ${this.prefix}-${this.instance}-*`, generationToken(before), now, this.instance);
      }
      throw explain(err, this.url, what);
    }
  }

  private async applyNow(changes: ChangeSet): Promise<void> {
    // Checked before anything is written: a bad chunk fails the set with nothing to undo.
    const upserts = [...new Map(changes.upsert.map((c) => [c.id, c])).values()];
    for (const chunk of upserts) checkChunk(chunk, this.dims, `ElasticsearchStore ${this.instance}`);
    const meta = changes.meta ?? {};
    const hasMeta = Object.keys(meta).length > 0;
    // Compare-and-swap: the generations the plan was read at must still be current. They are read
    // once here, and the swap below asserts every one of them (touched or not) in the same request.
    const expected = changes.ifGeneration;
    const currents = expected === undefined || this.staged ? undefined : await this.currents();
    if (expected !== undefined) {
      const now = currents ? generationToken(currents) : await this.generation();
      if (now !== expected) throw new IndexChangedError(`Elasticsearch ${this.prefix}-${this.instance}-*`, expected, now, this.instance);
    }
    if (upserts.length === 0 && changes.delete.length === 0 && !hasMeta) return;

    // Where every id to remove lives now (an upsert may move a chunk to another collection).
    const removed = new Set([...changes.delete, ...upserts.map((c) => c.id)]);
    const locations = await this.locate([...removed]);
    const touched = new Set<Collection>([...upserts.map((c) => c.collection), ...locations.values()]);
    if (touched.size === 0 && !hasMeta) return;
    const changesOf = (collection: Collection) => ({
      remove: [...locations].filter(([, c]) => c === collection).map(([id]) => id),
      docs: upserts.filter((c) => c.collection === collection).map(toDoc),
    });

    if (this.staged) {
      // A rebuild's generations are behind no alias: nobody reads them, so they are written in place.
      for (const collection of touched) {
        const { remove, docs } = changesOf(collection);
        await this.writeChanges(this.target(collection), remove, docs);
        this.staged.set(collection, await this.withoutDeletes(this.target(collection), this.alias(collection)));
      }
      if (hasMeta) await this.writeMeta(this.target('meta'), { ...(await this.metaOf(this.target('meta'))), ...meta });
      return;
    }

    const fromOf = async (name: Collection | 'meta') => (currents ? currents.get(name) : await this.current(this.alias(name))) ?? null;
    const plans: { from: Generation; to: string }[] = [];
    try {
      for (const collection of touched) {
        const from = await fromOf(collection);
        if (!from) throw new Error(`Elasticsearch alias ${this.alias(collection)} disappeared; was the index deleted by hand?`);
        const to = this.indexName(from.alias, await this.nextGeneration(from.alias, from.generation));
        const plan = { from, to };
        plans.push(plan);
        await this.cloneGeneration(from.index, to);
        const { remove, docs } = changesOf(collection);
        await this.writeChanges(to, remove, docs);
        plan.to = await this.withoutDeletes(to, from.alias);
      }
      if (hasMeta) {
        const from = await fromOf('meta');
        if (!from) throw new Error(`Elasticsearch alias ${this.alias('meta')} disappeared; was the index deleted by hand?`);
        const to = this.indexName(from.alias, await this.nextGeneration(from.alias, from.generation));
        plans.push({ from, to });
        const values = { ...(await this.metaOf(from.index)), ...meta };
        await this.call(`creating index ${to}`, () => this.client.indices.create({ index: to, settings: this.indexSettings(), mappings: META_MAPPING }));
        await this.writeMeta(to, values);
      }
      // One request: Elasticsearch moves every alias at once or none (must_exist: a concurrent swap fails ours).
      const actions: object[] = plans.flatMap(({ from, to }) => [
        { remove: { index: from.index, alias: from.alias, must_exist: true } },
        { add: { index: to, alias: from.alias } },
      ]);
      // A conditional apply also asserts the aliases it leaves alone: removed and added back, atomically.
      const moved = new Set(plans.map((p) => p.from.alias));
      for (const g of currents?.values() ?? []) {
        if (g && !moved.has(g.alias)) actions.push({ remove: { index: g.index, alias: g.alias, must_exist: true } }, { add: { index: g.index, alias: g.alias } });
      }
      const before = currents ?? new Map(plans.map((p) => [p.from.alias.slice(`${this.prefix}-${this.instance}-`.length) as Collection | 'meta', p.from]));
      await this.swap(actions, 'swapping aliases to the new generations', before);
    } catch (err) {
      // Readers are still on the old generations: drop the half-built new ones.
      const orphans = plans.map((p) => p.to);
      if (orphans.length > 0) await this.client.indices.delete({ index: orphans, ignore_unavailable: true }).catch(() => undefined);
      throw err;
    }
    // The old generations are unreachable now; a reader mid-request finishes on its shard copy.
    await this.client.indices.delete({ index: plans.map((p) => p.from.index), ignore_unavailable: true }).catch(() => undefined);
  }

  /**
   * The next generation as a clone of the current one: Elasticsearch hard-links the segment files,
   * so its cost does not grow with the collection the way a copy through the client does (measured
   * in bench/es-apply.ts). Cloning needs a write block on the source; nothing writes to a published
   * generation anyway, and the block is lifted as soon as the clone's shards are active (and on any
   * failure). The clone inherits the mapping and settings; its replicas and write block are set here.
   */
  private async cloneGeneration(from: string, to: string, settings: Record<string, unknown> = {}): Promise<void> {
    await this.call(`blocking writes to ${from} to clone it`, () => this.client.indices.addBlock({ index: from, block: 'write' }));
    try {
      const cloned = await this.call(`cloning ${from} into ${to}`, () =>
        this.client.indices.clone({
          index: from,
          target: to,
          settings: { 'index.number_of_replicas': this.settings.number_of_replicas, 'index.blocks.write': false, ...settings },
        }),
      );
      // The clone waits for its primary by default; only a slow cluster needs the longer wait.
      if (!cloned.shards_acknowledged) {
        const health = await this.call(`waiting for ${to}`, () => this.client.cluster.health({ index: to, wait_for_status: 'yellow', timeout: '60s' }));
        if (health.timed_out) throw new Error(`Elasticsearch clone ${to} of ${from} did not become active within 60 s (status ${health.status}); nothing was changed`);
      }
    } finally {
      await this.unblock(from).catch(() => undefined);
    }
  }

  /**
   * `index` (a generation no reader sees, refreshed) or, if it holds deleted documents, a clone of it
   * merged into one segment without them, which replaces it (`index` is then deleted). See the class
   * comment for why a clone: a force merge of `index` itself keeps the deletes of its own history.
   * (`only_expunge_deletes` left segments with 40% deleted documents unmerged on a 9.x node.)
   */
  private async withoutDeletes(index: string, alias: string): Promise<string> {
    if ((await this.deletedDocs(index)) === 0) return index;
    const to = this.indexName(alias, await this.nextGeneration(alias, 0));
    try {
      await this.cloneGeneration(index, to);
      await this.call(`merging ${to}`, () => this.client.indices.forcemerge({ index: to, max_num_segments: 1 }));
      await this.call(`refreshing ${to}`, () => this.client.indices.refresh({ index: to }));
      const left = await this.deletedDocs(to);
      if (left > 0) {
        throw new Error(
          `Elasticsearch kept ${left} deleted document(s) in ${to} after merging it; BM25 would count them and rank unlike a fresh ` +
            `build of the same content, so nothing was changed. Run the index again, or \`cita index ${this.instance} --rebuild\`.`,
        );
      }
    } catch (err) {
      await this.client.indices.delete({ index: to, ignore_unavailable: true }).catch(() => undefined);
      throw err;
    }
    await this.client.indices.delete({ index, ignore_unavailable: true }).catch(() => undefined);
    return to;
  }

  /** Deleted documents still in an index's segments (every shard copy), as Lucene's statistics count them. */
  private async deletedDocs(index: string): Promise<number> {
    const res = await this.call(`reading the stats of ${index}`, () => this.client.indices.stats({ index, metric: ['docs'] }));
    return res._all.total?.docs?.deleted ?? 0;
  }

  private async unblock(index: string): Promise<void> {
    await this.call(`lifting the write block of ${index}`, () => this.client.indices.putSettings({ index, settings: { 'index.blocks.write': false } }));
  }

  /** Deletes `remove` (ids in this index) and indexes `docs` into a generation no reader sees yet, then refreshes it. */
  private async writeChanges(index: string, remove: string[], docs: ChunkDoc[]): Promise<void> {
    for (let i = 0; i < remove.length; i += PAGE) {
      const batch = remove.slice(i, i + PAGE);
      const res = await this.call(`deleting chunks from ${index}`, () => this.client.bulk({ operations: batch.map((id) => ({ delete: { _index: index, _id: id } })) }));
      // A delete of an id that is not there answers 404 without an error: only real errors fail the set.
      const failed = res.items.map((item) => item.delete).find((r) => r?.error);
      if (failed) throw new Error(`Elasticsearch could not delete chunk ${failed._id} from ${index}: ${failed.error!.type}: ${failed.error!.reason}`);
    }
    await this.bulkIndex(index, docs);
    await this.call(`refreshing ${index}`, () => this.client.indices.refresh({ index }));
  }

  private async writeMeta(index: string, values: Record<string, string>): Promise<void> {
    await this.call(`writing meta to ${index}`, () => this.client.index({ index, id: 'meta', document: { values }, refresh: true }));
  }

  /**
   * Above every existing generation, not just the current one: an apply killed before its swap
   * leaves an unaliased generation behind, which is never reused (nor deleted: it may be another
   * writer's, still being built; that writer's swap then fails on `must_exist`, losing nothing).
   */
  private async nextGeneration(alias: string, current: number): Promise<number> {
    const found = await this.call(`listing generations of ${alias}`, () =>
      this.client.indices.get({ index: `${alias}-*`, allow_no_indices: true, expand_wildcards: 'all', filter_path: ['*.settings.index.provided_name'] }),
    );
    let max = current;
    for (const name of Object.keys(found)) {
      const m = new RegExp(`^${alias.replace(/[.]/g, '\\.')}-(\\d{6})$`).exec(name);
      if (m) max = Math.max(max, Number(m[1]));
    }
    return max + 1;
  }

  async upsert(chunks: StoredChunk[]): Promise<void> {
    await this.apply({ upsert: chunks, delete: [] });
  }

  async delete(ids: string[]): Promise<void> {
    await this.apply({ upsert: [], delete: ids });
  }

  /** Collection of each stored id among `ids`. */
  private async locate(ids: string[]): Promise<Map<string, Collection>> {
    const found = new Map<string, Collection>();
    for (let i = 0; i < ids.length; i += PAGE) {
      const batch = ids.slice(i, i + PAGE);
      const res = await this.call('looking up chunk ids', () =>
        this.client.search<{ collection: Collection }>({
          index: this.aliases(),
          query: { ids: { values: batch } },
          _source: ['collection'],
          size: batch.length,
        }),
      );
      for (const hit of res.hits.hits) if (hit._id && hit._source) found.set(hit._id, hit._source.collection);
    }
    return found;
  }

  private aliases(collections: readonly Collection[] = COLLECTIONS): string[] {
    return collections.map((c) => this.target(c));
  }

  /** Bulk-indexes documents with retries of rejected items and bounded concurrency; any dropped document fails. */
  private async bulkIndex(index: string, docs: ChunkDoc[]): Promise<void> {
    if (docs.length === 0) return;
    const dropped: string[] = [];
    const { flushBytes, concurrency, retries, wait } = this.bulkOptions;
    await this.call(`bulk indexing into ${index}`, () =>
      this.client.helpers.bulk<ChunkDoc>({
        datasource: docs,
        onDocument: (doc) => ({ index: { _index: index, _id: doc.id } }),
        onDrop: (d) => dropped.push(`${d.document.id}: ${JSON.stringify(d.error)}`),
        flushBytes,
        concurrency,
        retries,
        wait,
      }),
    );
    if (dropped.length > 0) {
      throw new Error(`Elasticsearch rejected ${dropped.length} chunk(s) while indexing into ${index}; first: ${dropped[0]}`);
    }
  }

  /** Every matching document's source, in id order, from one point in time (consistent across a swap). */
  private async *scan<T>(index: string[], query: object, source: object | string[]): AsyncGenerator<T> {
    const pit = await this.call('opening a point in time', () => this.client.openPointInTime({ index, keep_alive: '1m' }));
    try {
      let after: unknown[] | undefined;
      for (;;) {
        const res = await this.call('reading documents', () =>
          this.client.search<T>({
            pit: { id: pit.id, keep_alive: '1m' },
            query,
            _source: source as never,
            size: PAGE,
            sort: [{ id: 'asc' }],
            ...(after ? { search_after: after as never } : {}),
          }),
        );
        const hits = res.hits.hits;
        for (const hit of hits) if (hit._source) yield hit._source;
        if (hits.length < PAGE) return;
        after = hits[hits.length - 1]!.sort;
      }
    } finally {
      await this.client.closePointInTime({ id: pit.id }).catch(() => undefined);
    }
  }

  private async metaOf(index: string): Promise<Record<string, string>> {
    const res = await this.call('reading meta', () =>
      this.client.search<{ values: Record<string, string> }>({ index, query: { ids: { values: ['meta'] } }, size: 1 }),
    );
    return res.hits.hits[0]?._source?.values ?? {};
  }

  async bm25(collection: Collection, query: string, k: number, phrases?: readonly string[]): Promise<ScoredChunk[]> {
    checkCollection(collection, 'ElasticsearchStore');
    // The query's own terms, folded like the fields they are matched against.
    const all = queryTerms(query).map(fold);
    const extra = phraseTerms(phrases).map(fold);
    if (all.length + extra.length === 0 || !wantsHits(k)) return [];
    const stats = all.length > 0 && (prunesTerms(all, this.bm25MaxTerms) || this.bm25CommonCutoff !== undefined) ? await this.docFreq(collection, all) : undefined;
    const terms = prunesTerms(all, this.bm25MaxTerms) ? selectTerms(all, this.bm25MaxTerms, stats!.df) : all;
    if (terms.length + extra.length === 0) return [];
    const common = stats && terms.length > 0 ? commonTerms(terms, this.bm25CommonCutoff, stats.df, stats.rows) : undefined;
    const words = terms.length === 0 ? [] : [common ? commonTermsQuery(terms, common) : bm25Query(terms)];
    // Each phrase adds its score where its words stand together, as one more term (a `should` clause).
    const search = extra.length === 0 ? words[0]! : { bool: { should: [...words, ...extra.map(phraseQuery)] } };
    const res = await this.call(`searching ${this.target(collection)}`, () =>
      this.client.search<Source>({
        index: this.target(collection),
        query: search,
        sort: [{ _score: { order: 'desc' } }, { id: { order: 'asc' } }],
        track_scores: true,
        size: Math.min(Math.floor(k), MAX_WINDOW),
        _source: SOURCE_FIELDS,
      }),
    );
    return res.hits.hits.map((hit) => ({ chunk: toChunk(hit._source!), score: hit._score ?? 0 }));
  }

  async matchCounts(collection: Collection, wordSets: string[][]): Promise<number[]> {
    checkCollection(collection, 'ElasticsearchStore');
    // Each term matched in any of bm25's fields.
    const queries = wordSets.map((words) => {
      const terms = [...new Set(words.flatMap(queryTerms).map(fold))];
      return terms.length === 0 ? undefined : { bool: { must: terms.map((t) => ({ multi_match: { query: t, fields: BM25_FIELDS, operator: 'and' as const } })) } };
    });
    return this.countEach(collection, 'matches', queries);
  }

  async phraseCounts(collection: Collection, phrases: string[]): Promise<number[]> {
    checkCollection(collection, 'ElasticsearchStore');
    return this.countEach(
      collection,
      'phrases',
      phrases.map((p) => phraseTerms([p]).map((t) => phraseQuery(fold(t)))[0]),
    );
  }

  /** The documents each query matches, in one msearch; an undefined query (nothing searchable) counts 0 without a search. */
  private async countEach(collection: Collection, what: string, queries: (estypes.QueryDslQueryContainer | undefined)[]): Promise<number[]> {
    const asked = queries.filter((q): q is estypes.QueryDslQueryContainer => q !== undefined);
    if (asked.length === 0) return queries.map(() => 0);
    const index = this.target(collection);
    const res = await this.call(`counting ${what} in ${index}`, () =>
      this.client.msearch({ searches: asked.flatMap((query) => [{ index }, { size: 0, track_total_hits: true, query }]) }),
    );
    const counts = res.responses.map((r) => {
      if ('error' in r) throw new Error(`counting ${what} in ${index}: ${r.error.reason ?? r.error.type}`);
      const total = r.hits.total;
      return typeof total === 'number' ? total : (total?.value ?? 0);
    });
    let next = 0;
    return queries.map((q) => (q === undefined ? 0 : counts[next++]!));
  }

  /**
   * Document frequency of each term in the collection, from Lucene's terms dictionary in one request:
   * the term vectors of an artificial document holding the terms, with term statistics. A term the
   * analyzer keeps whole (`parse_config`, `os.path.join` with the standard analyzer) gets its own
   * frequency, one it splits its rarest part's; a field's frequency counts the documents holding the
   * term in that field, so the largest of the three fields is taken (the documents holding it in
   * any field are at least that many). One count per term in an `msearch` instead cost 234 ms at p95
   * on the pytest index (bench/store-compare.ts), more than the search it prunes. `rows`: the
   * documents holding any of the fields, taken as the largest field's count.
   */
  private async docFreq(collection: Collection, terms: string[]): Promise<{ df: Map<string, number>; rows: number }> {
    const index = this.target(collection);
    const text = terms.join('\n');
    const fields = BM25_FIELDS.map((f) => f.replace(/\^.*$/, ''));
    const res = await this.call(`reading term statistics of ${index}`, () =>
      this.client.termvectors({
        index,
        doc: Object.fromEntries(fields.map((f) => [f, text])),
        fields,
        term_statistics: true,
        field_statistics: true,
        positions: false,
        offsets: false,
        payloads: false,
      }),
    );
    const tokenDf = new Map<string, number>();
    let rows = 0;
    for (const field of Object.values(res.term_vectors ?? {})) {
      rows = Math.max(rows, field.field_statistics?.doc_count ?? 0);
      for (const [token, stats] of Object.entries(field.terms ?? {})) tokenDf.set(token, Math.max(tokenDf.get(token) ?? 0, stats.doc_freq ?? 0));
    }
    const dfOf = (term: string) => {
      const whole = tokenDf.get(term);
      if (whole !== undefined) return whole;
      const parts = term.split(/[^\p{L}\p{N}]+/u).filter((p) => p !== '');
      return parts.length === 0 ? 0 : Math.min(...parts.map((p) => tokenDf.get(p) ?? 0));
    };
    return { df: new Map(terms.map((term) => [term, dfOf(term)])), rows };
  }

  async knn(collection: Collection, vector: Float32Array, k: number): Promise<ScoredChunk[]> {
    checkCollection(collection, 'ElasticsearchStore');
    checkQueryVector(vector, this.dims, `ElasticsearchStore ${this.instance}`);
    if (!wantsHits(k)) return [];
    const index = this.target(collection);
    const queryVector = Array.from(vector);
    // Lucene's float32 scores of one vector differ in the last bit from one segment layout to another,
    // so they only choose the candidates; each score is computed here from the vector as it was given.
    const search = async (n: number) => {
      const res = await this.call(`kNN search on ${index}`, () =>
        this.client.search<Source>({
          index,
          knn: { field: 'vector', query_vector: queryVector, k: n, num_candidates: n },
          size: n,
          _source: [...SOURCE_FIELDS, 'vector_bytes'],
        }),
      );
      return res.hits.hits.map((hit) => ({
        chunk: toChunk(hit._source!),
        score: cosine(vector, fromVectorBytes(hit._source!.vector_bytes!)),
        // Elasticsearch scores cosine as (1 + cos) / 2.
        engineScore: 2 * (hit._score ?? 0) - 1,
      }));
    };
    // Past MAX_WINDOW (num_candidates' limit) a tie at the cut is left to Lucene's order.
    // 8 more than k: a second request is needed only when a hit past them may still belong (rare).
    return (await topK(search, Math.min(Math.floor(k), MAX_WINDOW), MAX_WINDOW, { slack: knnSlack(this.dims), pad: 8 })).hits;
  }

  async get(ids: string[]): Promise<Chunk[]> {
    if (ids.length === 0) return [];
    const byId = new Map<string, Chunk>();
    const unique = [...new Set(ids)];
    for (let i = 0; i < unique.length; i += PAGE) {
      const batch = unique.slice(i, i + PAGE);
      // A search, not mget: it sees only refreshed (published) generations, like every other read.
      const res = await this.call('reading chunks', () =>
        this.client.search<Source>({ index: this.aliases(), query: { ids: { values: batch } }, size: batch.length, _source: SOURCE_FIELDS }),
      );
      for (const hit of res.hits.hits) byId.set(hit._source!.id, toChunk(hit._source!));
    }
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  async ids(collection?: Collection): Promise<string[]> {
    const out: string[] = [];
    const index = collection === undefined ? this.aliases() : [this.target(collection)];
    for await (const s of this.scan<{ id: string }>(index, { match_all: {} }, ['id'])) out.push(s.id);
    return out;
  }

  async count(collection?: Collection): Promise<number> {
    const index = collection === undefined ? this.aliases() : [this.target(collection)];
    const res = await this.call('counting chunks', () => this.client.count({ index }));
    return res.count;
  }

  async lookupIssue(n: number): Promise<Chunk[]> {
    const res = await this.call(`looking up issue #${n}`, () =>
      this.client.search<Source>({
        index: this.aliases(),
        query: { term: { issue: n } },
        sort: [{ comment_id: { order: 'asc', missing: '_first' } }, { start_line: 'asc' }, { id: 'asc' }],
        size: MAX_WINDOW,
        _source: SOURCE_FIELDS,
      }),
    );
    return res.hits.hits.map((hit) => toChunk(hit._source!));
  }

  async lookupSymbol(name: string): Promise<Chunk[]> {
    if (name === '') return [];
    const suffix = `.${name}`;
    const res = await this.call(`looking up symbol ${name}`, () =>
      this.client.search<Source>({
        index: this.aliases(),
        query: { bool: { should: [{ term: { symbol_names: name } }, { term: { symbol_leaves: leafOf(name) } }], minimum_should_match: 1 } },
        size: MAX_WINDOW,
        _source: [...SOURCE_FIELDS, 'symbol_names'],
      }),
    );
    const ranked = res.hits.hits.flatMap((hit) => {
      const source = hit._source!;
      const names = source.symbol_names ?? [];
      const rank = names.includes(name) ? 0 : names.some((s) => s.endsWith(suffix)) ? 1 : -1;
      return rank < 0 ? [] : [{ rank, chunk: toChunk(source) }];
    });
    const cmp = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);
    ranked.sort(
      (a, b) =>
        a.rank - b.rank ||
        cmp(a.chunk.citation.path, b.chunk.citation.path) ||
        a.chunk.citation.startLine - b.chunk.citation.startLine ||
        cmp(a.chunk.id, b.chunk.id),
    );
    return ranked.map((r) => r.chunk);
  }

  async meta(): Promise<Record<string, string>> {
    return this.metaOf(this.target('meta'));
  }

  /** Reads go through the aliases, which a rebuild moves atomically: one open store serves every generation. */
  async standing(): Promise<Standing> {
    return 'live';
  }

  /** Deletes every index and alias of the instance (tests, `--rebuild` cleanup). */
  async dropAll(): Promise<void> {
    // By name: clusters refuse wildcard deletes (action.destructive_requires_name, default true).
    const pattern = `${this.prefix}-${this.instance}-*`;
    const found = await this.call('listing indices', () => this.client.indices.get({ index: pattern, allow_no_indices: true, expand_wildcards: 'all' }));
    const names = Object.keys(found);
    if (names.length > 0) await this.call('deleting indices', () => this.client.indices.delete({ index: names, ignore_unavailable: true }));
  }

  async close(): Promise<void> {
    if (this.ownsClient) await this.client.close();
  }
}
