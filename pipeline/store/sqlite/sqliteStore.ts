import fs from 'node:fs';
import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { COLLECTIONS, type Chunk, type Citation, type Collection, type ScoredChunk, type StoredChunk } from '../../types.ts';
import { checkChunk, checkCollection, checkQueryVector, commonTerms, fold, leafOf, phraseTerms, queryTerms, prunesTerms, searchFields, selectTerms, symbolNames, wantsHits } from '../shared.ts';
import { IndexChangedError, IndexDamagedError, type ChangeSet, type Standing, type Store } from '../store.ts';
import { topK } from '../topK.ts';
import { commonTermsTop, FtsPhraseReads, type RowScore } from './ftsCommonTerms.ts';
import { FtsPostings } from './ftsPostings.ts';

/**
 * The embedded default store: one SQLite file per instance.
 *
 * - `chunks` holds each chunk once; `seq` is the integer key that FTS5 and vec0 rows share
 *   (an explicit INTEGER PRIMARY KEY, because VACUUM may renumber an implicit rowid).
 * - `fts_<collection>`: one FTS5 table per collection, so bm25 statistics (IDF, average length) are
 *   those of the collection searched and a query scores only that collection's rows (3x faster than
 *   one table joined and filtered, measured on 20,000 chunks). Contentless (the text lives in
 *   `chunks` only); columns: title, text, identifier parts from `expandIdentifiers`. A row is removed
 *   with FTS5's 'delete' command and the very values it was indexed with (`ftsColumns` of the stored
 *   title and text), which takes its tokens out of the row count and column totals too. (A
 *   `contentless_delete=1` table only marks the row deleted and keeps counting it in bm25's N and
 *   average length, so an index that had deletes ranked unlike a fresh build of the same content.)
 * - `chunks_vec` is a sqlite-vec `vec0` table partitioned by collection, cosine distance.
 * - bm25 and knn order equal scores by chunk id, at the k-th place too (see topK.ts), never by `seq`,
 *   which depends on the order chunks were written in. bm25 is FTS5's `bm25()` over the OR of the
 *   query's terms, summed from each phrase's scores kept in memory until the next write (ftsPostings.ts).
 * - `symbols` maps names (and their last dotted part) to chunks; `meta` is free key/value, plus the
 *   generation counter under GENERATION_KEY (not shown by `meta()`).
 *
 * Writes go through `apply`, one transaction; WAL lets readers keep the old snapshot meanwhile.
 */

/** The meta row counting applies: the store's `generation()`, bumped in every apply's transaction. */
export const GENERATION_KEY = 'cita.generation';

/**
 * Bumped when the file layout changes; a file with another version must be rebuilt, not guessed at,
 * except version 1, whose FTS tables `open` rebuilds from `chunks` (see `migrateFrom1`).
 */
export const SCHEMA_VERSION = 2;

/** bm25 column weights (title, text, identifier parts): a title hit says more than one in the body. */
export const BM25_WEIGHTS = [2.0, 1.0, 1.0] as const;

/** The FTS5 tokenizer of every collection's table: accents folded, `_` inside words (a change is a SCHEMA_VERSION bump). */
export const FTS_TOKENIZER = "unicode61 remove_diacritics 2 tokenchars '_'";

/** sqlite-vec refuses a KNN query with k above this. */
const VEC_MAX_K = 4096;

export interface SqliteStoreOptions {
  /** Vector dimensions; fixed when the file is created and checked on every open. */
  dims: number;
  /** Instance name, only to make the "re-index" advice in errors copy-pasteable. */
  instance?: string;
  /** Called with the SQL of every statement run (better-sqlite3's `verbose`): to count queries in tests, or to debug. */
  trace?: (sql: string) => void;
  /** bm25 searches with at most this many of a query's terms, the rarest in the collection (`selectTerms`); undefined: all. */
  bm25MaxTerms?: number;
  /** bm25 as Lucene's common-terms query: terms in more than this many rows (below 1: this share of the collection's) only score rows a rarer term matches (`commonTerms`); undefined: every row matching any term. */
  bm25CommonCutoff?: number;
  /** What each collection's postings kept in memory for bm25 may take (`FtsPostings`; `retrieval.bm25.memoryMB`); default BM25_POSTINGS_BYTES. */
  bm25PostingsBytes?: number;
}

/**
 * Per collection, 12 bytes a posting: pytest's whole index keeps 2 MiB; at 200,000 chunks the 144
 * questions of bench/bm25-plans.ts keep 94 MiB, and 64 MiB made the least recently used go
 * round in circles (docs/store.md).
 */
export const BM25_POSTINGS_BYTES = 256 * 2 ** 20;

/** Document frequencies cached per collection and generation: more entries than this and the cache starts again. */
const DF_CACHE_MAX = 200_000;

interface ChunkRow {
  seq: number;
  id: string;
  collection: string;
  title: string;
  text: string;
  citation: string;
  tokens: number;
  symbols: string | null;
}

const CHUNK_COLUMNS = 'c.seq, c.id, c.collection, c.title, c.text, c.citation, c.tokens, c.symbols';

function schemaSql(dims: number): string {
  return `
    CREATE TABLE chunks (
      seq INTEGER PRIMARY KEY,
      id TEXT NOT NULL UNIQUE,
      collection TEXT NOT NULL,
      path TEXT NOT NULL,
      start_line INTEGER NOT NULL,
      end_line INTEGER NOT NULL,
      title TEXT NOT NULL,
      text TEXT NOT NULL,
      citation TEXT NOT NULL,
      tokens INTEGER NOT NULL,
      symbols TEXT,
      issue INTEGER,
      comment_id INTEGER
    );
    CREATE INDEX chunks_collection ON chunks (collection, id);
    CREATE INDEX chunks_issue ON chunks (issue, comment_id, start_line) WHERE issue IS NOT NULL;
    ${COLLECTIONS.map(
      (collection) => `
    ${ftsTableSql(collection)}`,
    ).join('')}
    CREATE VIRTUAL TABLE chunks_vec USING vec0 (
      embedding float[${dims}] distance_metric=cosine,
      collection text partition key
    );
    CREATE TABLE symbols (
      name TEXT NOT NULL,
      leaf TEXT NOT NULL,
      chunk_seq INTEGER NOT NULL REFERENCES chunks (seq)
    );
    CREATE INDEX symbols_name ON symbols (name);
    CREATE INDEX symbols_leaf ON symbols (leaf);
    CREATE INDEX symbols_chunk ON symbols (chunk_seq);
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
  `;
}

function ftsTableSql(collection: Collection): string {
  return `CREATE VIRTUAL TABLE fts_${collection} USING fts5 (
      title, text, identifiers,
      content = '',
      tokenize = "${FTS_TOKENIZER}"
    );`;
}

/**
 * What a chunk's FTS row holds, from its stored title and text (`searchFields`). Removing the row
 * needs exactly these values again, so this must stay a pure function of the two (a change to it is
 * a SCHEMA_VERSION bump).
 */
function ftsColumns(title: string, text: string): [string, string, string] {
  const f = searchFields(title, text);
  return [f.title, f.text, f.identifiers];
}

function vectorBlob(v: Float32Array): Buffer {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

function rowToChunk(row: ChunkRow): Chunk {
  const chunk: Chunk = {
    id: row.id,
    collection: row.collection as Collection,
    text: row.text,
    title: row.title,
    citation: JSON.parse(row.citation) as Citation,
    tokens: row.tokens,
  };
  if (row.symbols !== null) chunk.symbols = JSON.parse(row.symbols) as string[];
  return chunk;
}

export class SqliteStore implements Store {
  readonly kind = 'sqlite';
  readonly file: string;
  readonly dims: number;
  private readonly db: Database.Database;
  private readonly stmt: ReturnType<typeof prepareStatements>;
  private readonly instance: string | undefined;
  /** The file opened (undefined in memory): a `--rebuild` renames another over the path, and writes to this one would be lost. */
  private readonly ino: number | undefined;
  private readonly bm25MaxTerms: number | undefined;
  private readonly bm25CommonCutoff: number | undefined;
  /** Per collection, for the generation it was read at: document frequency of FTS5 tokens (`docFreq`) and the row count. */
  private readonly dfCache = new Map<Collection, { generation: number; df: Map<string, number>; rows?: number }>();
  private vocabTables: Partial<Record<Collection, Database.Statement>> = {};
  private phraseReads: Partial<Record<Collection, FtsPhraseReads>> = {};
  private postings: Partial<Record<Collection, FtsPostings>> = {};
  private readonly bm25PostingsBytes: number;

  private constructor(db: Database.Database, file: string, dims: number, options: SqliteStoreOptions) {
    this.db = db;
    this.file = file;
    this.dims = dims;
    this.instance = options.instance;
    this.bm25MaxTerms = options.bm25MaxTerms;
    this.bm25CommonCutoff = options.bm25CommonCutoff;
    this.bm25PostingsBytes = options.bm25PostingsBytes ?? BM25_POSTINGS_BYTES;
    // A dry run plans against an in-memory store (no file to be replaced).
    this.ino = file === ':memory:' ? undefined : fs.statSync(file).ino;
    this.stmt = prepareStatements(db);
  }

  /**
   * Opens (or creates) the index file. Throws, naming the file and the fix, when the file was written
   * by another schema version or with other vector dimensions.
   */
  static open(file: string, options: SqliteStoreOptions): SqliteStore {
    const { dims } = options;
    if (!Number.isInteger(dims) || dims <= 0) {
      throw new Error(`SqliteStore: dims must be a positive integer, got ${String(dims)}`);
    }
    const rebuild = rebuildAdvice(options.instance);
    const damaged = (reason: string, advice = rebuild) => new IndexDamagedError(`${file}: ${reason}; ${advice}`, reason);
    const db = new Database(file, options.trace ? { verbose: (sql) => options.trace!(String(sql)) } : {});
    try {
      sqliteVec.load(db);
      db.pragma('journal_mode = WAL');
      // NORMAL in WAL mode: a crash never corrupts or half-applies; a power cut may lose the last commit.
      db.pragma('synchronous = NORMAL');
      db.pragma('foreign_keys = ON');
      const readVersion = () => db.pragma('user_version', { simple: true }) as number;
      let version = readVersion();
      if (version === 0) {
        // Checked again under the write lock: another process may have created the schema meanwhile.
        db.transaction(() => {
          version = readVersion();
          if (version !== 0) return;
          const tables = db.prepare(`SELECT count(*) AS n FROM sqlite_master`).get() as { n: number };
          if (tables.n > 0) {
            throw damaged('not a cita index (an SQLite file without a cita schema version)');
          }
          db.exec(schemaSql(dims));
          db.pragma(`user_version = ${SCHEMA_VERSION}`);
          version = SCHEMA_VERSION;
        }).immediate();
      }
      if (version === 1) {
        db.transaction(() => {
          version = readVersion();
          if (version !== 1) return;
          migrateFrom1(db);
          db.pragma(`user_version = ${SCHEMA_VERSION}`);
          version = SCHEMA_VERSION;
        }).immediate();
      }
      if (version !== SCHEMA_VERSION) {
        throw damaged(`index schema version ${version} is ${version > SCHEMA_VERSION ? 'newer than' : 'unknown to'} this cita (which reads version ${SCHEMA_VERSION})`);
      }
      const fileDims = vectorDims(db);
      if (fileDims === undefined) throw damaged('index has no vector table (chunks_vec); the file is damaged');
      if (fileDims !== dims) throw damaged(`index holds ${fileDims}-dimension vectors but ${dims} were asked for`);
    } catch (err) {
      db.close();
      if (err instanceof Database.SqliteError && err.code === 'SQLITE_NOTADB') throw damaged('not an SQLite database', `move it away or ${rebuild}`);
      if (isCorruption(err)) throw damaged(`the file is damaged (${(err as Error).message})`);
      throw err;
    }
    return new SqliteStore(db, file, dims, options);
  }

  async apply(changes: ChangeSet): Promise<void> {
    this.applySync(changes);
  }

  async upsert(chunks: StoredChunk[]): Promise<void> {
    this.applySync({ upsert: chunks, delete: [] });
  }

  async delete(ids: string[]): Promise<void> {
    this.applySync({ upsert: [], delete: ids });
  }

  /**
   * Deletes first, then upserts (so an id in both ends up present), then meta, all in one
   * transaction. Each chunk is checked as it is written: a bad one rolls back the whole set.
   * `ifGeneration` is checked inside that transaction, under the write lock, before anything is written.
   */
  private applySync(changes: ChangeSet): void {
    const s = this.stmt;
    const run = this.db.transaction((c: ChangeSet) => {
      const generation = this.readGeneration();
      if (c.ifGeneration !== undefined) {
        const replaced = this.replacedBy();
        if (replaced) throw new IndexChangedError(this.file, c.ifGeneration, replaced, this.instance);
        if (c.ifGeneration !== String(generation)) throw new IndexChangedError(this.file, c.ifGeneration, String(generation), this.instance);
      }
      // The last of several upserts of one id wins, as if they were applied one after another.
      const upserts = [...new Map(c.upsert.map((chunk) => [chunk.id, chunk])).values()];
      // All removals before all inserts: FTS5 and vec0 flush their pending inserts whenever a delete
      // comes between them, which made interleaved replace ~20x slower.
      this.remove([...c.delete, ...upserts.map((chunk) => chunk.id)]);
      for (const chunk of upserts) {
        checkChunk(chunk, this.dims, `SqliteStore ${this.file}`);
        const { citation } = chunk;
        const seq = s.insertChunk.run({
          id: chunk.id,
          collection: chunk.collection,
          path: citation.path,
          start_line: citation.startLine,
          end_line: citation.endLine,
          title: chunk.title,
          text: chunk.text,
          citation: JSON.stringify(citation),
          tokens: chunk.tokens,
          symbols: chunk.symbols === undefined ? null : JSON.stringify(chunk.symbols),
          issue: citation.issue ?? null,
          comment_id: citation.commentId ?? null,
        }).lastInsertRowid;
        s.fts[chunk.collection].insert.run(seq, ...ftsColumns(chunk.title, chunk.text));
        s.insertVec.run(BigInt(seq), vectorBlob(chunk.vector), chunk.collection);
        for (const name of symbolNames(chunk)) s.insertSymbol.run(name, leafOf(name), seq);
      }
      for (const [key, value] of Object.entries(c.meta ?? {})) s.upsertMeta.run(key, value);
      s.upsertMeta.run(GENERATION_KEY, String(generation + 1));
    });
    // IMMEDIATE takes the write lock up front, so two writers queue instead of failing mid-way.
    run.immediate(changes);
  }

  /** Removes chunks from every table, one table at a time: vec0 deletes were 5x slower interleaved. */
  private remove(ids: string[]): void {
    const s = this.stmt;
    type Row = { seq: number; collection: Collection; title: string; text: string };
    // Once per id: a second 'delete' of a row would subtract its tokens again.
    const rows = [...new Set(ids)].flatMap((id) => (s.seqOf.get(id) as Row | undefined) ?? []);
    for (const row of rows) s.fts[row.collection].delete.run(row.seq, ...ftsColumns(row.title, row.text));
    for (const row of rows) s.deleteVec.run(BigInt(row.seq));
    for (const row of rows) s.deleteSymbols.run(row.seq);
    for (const row of rows) s.deleteChunk.run(row.seq);
  }

  async bm25(collection: Collection, query: string, k: number, phrases?: readonly string[]): Promise<ScoredChunk[]> {
    checkCollection(collection, 'SqliteStore');
    const terms = queryTerms(query);
    // A phrase is one more FTS5 phrase (`"exit code"`), after the terms (never pruned: a caller chose it).
    const extra = phraseTerms(phrases).filter((p) => !terms.includes(p));
    if (terms.length + extra.length === 0 || !wantsHits(k)) return [];
    const n = Math.min(Math.floor(k), Number.MAX_SAFE_INTEGER - 1);
    // One read transaction: the frequencies that chose the terms are those of the rows scored.
    return this.read(() =>
      this.db.transaction(() => {
        const pruned = prunesTerms(terms, this.bm25MaxTerms) ? selectTerms(terms, this.bm25MaxTerms, this.docFreq(collection, terms)) : terms;
        const kept = [...pruned, ...extra];
        if (kept.length === 0) return [];
        return this.rowsOf(this.commonTermsTop(collection, kept, n) ?? this.postingsOf(collection).top(kept, n, this.readGeneration(), this.idsOfSeqs));
      })(),
    );
  }

  /** Each rowid's chunk id. */
  private readonly idsOfSeqs = (seqs: number[]) => new Map(this.stmt.idsOfSeqs.all(JSON.stringify(seqs)) as [number, string][]);

  /** The chunks of ranked rows, in their order, with their scores. */
  private rowsOf(top: RowScore[]): ScoredChunk[] {
    if (top.length === 0) return [];
    const bySeq = new Map((this.stmt.rowsOfSeqs.all(JSON.stringify(top.map((t) => t.rowid))) as ChunkRow[]).map((row) => [row.seq, row]));
    return top.map((t) => ({ chunk: rowToChunk(bySeq.get(t.rowid)!), score: t.score }));
  }

  async matchCounts(collection: Collection, wordSets: string[][]): Promise<number[]> {
    checkCollection(collection, 'SqliteStore');
    return this.countRows(collection, wordSets.map((words) => [...new Set(words.flatMap(queryTerms))]));
  }

  async phraseCounts(collection: Collection, phrases: string[]): Promise<number[]> {
    checkCollection(collection, 'SqliteStore');
    return this.countRows(collection, phrases.map((p) => phraseTerms([p])));
  }

  /** For each set of FTS5 phrases, the rows holding all of them, from the kept postings (an empty set counts 0). */
  private countRows(collection: Collection, phraseSets: string[][]): number[] {
    return this.read(() => this.db.transaction(() => this.postingsOf(collection).counts(phraseSets, this.readGeneration()))());
  }

  /**
   * Document frequency of each term in the collection: the rows FTS5 matches it in, in any column.
   * From an `fts5vocab` table (its `doc`: rows holding the token), not a `count(*)` per term, which
   * costs about twice as much. A dotted term (`os.path.join`) is a phrase of several tokens; its
   * frequency is taken as its rarest token's, an upper bound (0 when a token is absent, as the phrase
   * is then). Reading a token's frequency walks its whole doclist, as long for `the` as matching it,
   * so frequencies are cached per collection until the next apply changes the generation.
   */
  private docFreq(collection: Collection, terms: string[]): Map<string, number> {
    const generation = this.readGeneration();
    let cache = this.dfCache.get(collection);
    if (!cache || cache.generation !== generation || cache.df.size > DF_CACHE_MAX) {
      cache = { generation, df: new Map() };
      this.dfCache.set(collection, cache);
    }
    const tokensOf = (term: string) => fold(term).split('.').filter((t) => t !== '');
    const missing = [...new Set(terms.flatMap(tokensOf))].filter((t) => !cache.df.has(t));
    if (missing.length > 0) {
      const rows = this.vocab(collection).all(JSON.stringify(missing)) as [string, number][];
      for (const t of missing) cache.df.set(t, 0);
      for (const [term, doc] of rows) cache.df.set(term, doc);
    }
    const df = cache.df;
    const dfOf = (term: string) => {
      const tokens = tokensOf(term);
      return tokens.length === 0 ? 0 : Math.min(...tokens.map((t) => df.get(t) ?? 0));
    };
    return new Map(terms.map((term) => [term, dfOf(term)]));
  }

  /**
   * The top n of the common-terms plan (`bm25CommonCutoff`): the rows holding a rare term, each
   * scored with every term. Undefined when the query is searched whole (no cutoff, or its terms all
   * rare or all common). Call inside the read transaction.
   */
  private commonTermsTop(collection: Collection, terms: string[], n: number): RowScore[] | undefined {
    if (this.bm25CommonCutoff === undefined) return undefined;
    const common = commonTerms(terms, this.bm25CommonCutoff, this.docFreq(collection, terms), this.rowCount(collection));
    if (!common) return undefined;
    return commonTermsTop(this.phrasesOf(collection), terms, common, n, this.idsOfSeqs);
  }

  /** The collection's rows, cached with its frequencies (`docFreq`, which must run first: it checks the generation). */
  private rowCount(collection: Collection): number {
    const cache = this.dfCache.get(collection)!;
    cache.rows ??= (this.stmt.countOf.get(collection) as { n: number }).n;
    return cache.rows;
  }

  private phrasesOf(collection: Collection): FtsPhraseReads {
    return (this.phraseReads[collection] ??= new FtsPhraseReads(this.db, `fts_${collection}`, BM25_WEIGHTS));
  }

  /** What the collection's bm25 keeps in memory (`FtsPostings.stats`), for benchmarks. */
  postingsStats(collection: Collection): ReturnType<FtsPostings['stats']> {
    return this.postingsOf(collection).stats();
  }

  private postingsOf(collection: Collection): FtsPostings {
    return (this.postings[collection] ??= new FtsPostings(
      this.phrasesOf(collection),
      () => this.db.prepare(`SELECT rowid FROM fts_${collection} ORDER BY rowid`).pluck().all() as number[],
      this.bm25PostingsBytes,
    ));
  }

  /** The collection's FTS5 vocabulary (`term`, `doc`) for the tokens given as a JSON array; a temp table, made on first use. */
  private vocab(collection: Collection): Database.Statement {
    let stmt = this.vocabTables[collection];
    if (!stmt) {
      this.db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocab_${collection} USING fts5vocab(main, fts_${collection}, 'row')`);
      stmt = this.db.prepare(`SELECT term, doc FROM temp.vocab_${collection} WHERE term IN (SELECT value FROM json_each(?))`).raw();
      this.vocabTables[collection] = stmt;
    }
    return stmt;
  }

  async knn(collection: Collection, vector: Float32Array, k: number): Promise<ScoredChunk[]> {
    checkCollection(collection, 'SqliteStore');
    checkQueryVector(vector, this.dims, `SqliteStore ${this.file}`);
    if (!wantsHits(k)) return [];
    const blob = vectorBlob(vector);
    const hits = (rows: unknown[]) =>
      (rows as (ChunkRow & { distance: number })[]).map((row) => ({ chunk: rowToChunk(row), score: 1 - row.distance }));
    const n = Math.floor(k);
    const { hits: top, complete } = await topK((m) => hits(this.read(() => this.stmt.knn.all({ vector: blob, k: m, collection }))), n, VEC_MAX_K);
    if (complete) return top;
    // Beyond what vec0 answers: every vector of the collection, by the same distance function.
    return hits(this.read(() => this.stmt.knnScan.all({ vector: blob, k: n, collection })));
  }

  /** Chunks in the order asked; unknown ids are skipped. */
  async get(ids: string[]): Promise<Chunk[]> {
    if (ids.length === 0) return [];
    const rows = this.read(() => this.stmt.getMany.all(JSON.stringify(ids)) as ChunkRow[]);
    const byId = new Map(rows.map((r) => [r.id, rowToChunk(r)]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  async ids(collection?: Collection): Promise<string[]> {
    const rows = this.read(() => (collection === undefined ? this.stmt.allIds.all() : this.stmt.idsOf.all(collection)) as { id: string }[]);
    return rows.map((r) => r.id);
  }

  async count(collection?: Collection): Promise<number> {
    const row = this.read(() => (collection === undefined ? this.stmt.countAll.get() : this.stmt.countOf.get(collection)) as { n: number });
    return row.n;
  }

  /**
   * The issue's chunks: the body, then each comment by id (GitHub ids grow with time), each in order
   * of lines; the issue chunker numbers lines within the body or comment, so lines alone would mix them.
   */
  async lookupIssue(n: number): Promise<Chunk[]> {
    return this.read(() => this.stmt.issue.all(n) as ChunkRow[]).map(rowToChunk);
  }

  /**
   * Chunks defining `name` (case-sensitive): exact names first, then qualified names ending in
   * `.name` (`method` finds `Class.method`; `Inner.method` finds `Outer.Inner.method`).
   */
  async lookupSymbol(name: string): Promise<Chunk[]> {
    if (name === '') return [];
    const rows = this.read(() => this.stmt.symbol.all({ name, leaf: leafOf(name), suffix: `.${name}` }) as ChunkRow[]);
    return rows.map(rowToChunk);
  }

  async meta(): Promise<Record<string, string>> {
    const rows = this.read(() => this.stmt.allMeta.all() as { key: string; value: string }[]);
    return Object.fromEntries(rows.filter((r) => r.key !== GENERATION_KEY).map((r) => [r.key, r.value]));
  }

  async generation(): Promise<string> {
    return String(this.read(() => this.readGeneration()));
  }

  private readGeneration(): number {
    const row = this.stmt.metaOf.get(GENERATION_KEY) as { value: string } | undefined;
    return row ? Number(row.value) : 0;
  }

  /** Why the path no longer leads to the file this store writes (a rebuild swapped it, or it was deleted); null if it does. */
  private replacedBy(): string | null {
    const standing = this.standingNow();
    return standing === 'live' ? null : standing === 'replaced' ? 'a new file (a --rebuild replaced it)' : 'none (the file was deleted)';
  }

  /** Whether the path still leads to the file opened: a rebuild renames another over it. */
  async standing(): Promise<Standing> {
    return this.standingNow();
  }

  private standingNow(): Standing {
    if (this.ino === undefined) return 'live';
    try {
      return fs.statSync(this.file).ino === this.ino ? 'live' : 'replaced';
    } catch {
      return 'removed';
    }
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }

  /** A read; damaged pages found on the way are reported as a damaged index, with the fix. */
  private read<T>(query: () => T): T {
    try {
      return query();
    } catch (err) {
      if (!isCorruption(err)) throw err;
      const reason = `the file is damaged (${(err as Error).message})`;
      throw new IndexDamagedError(`${this.file}: ${reason}; ${rebuildAdvice(this.instance)}`, reason, { cause: err });
    }
  }
}

/**
 * Version 1 indexed FTS rows in `contentless_delete=1` tables, whose bm25 statistics kept every row
 * ever deleted. The FTS tables hold nothing that `chunks` does not, so they are rebuilt from it:
 * the file then ranks like a fresh build, without re-reading sources or re-embedding.
 */
function migrateFrom1(db: Database.Database): void {
  // All at once: better-sqlite3 runs no statement while another one iterates.
  const rows = db.prepare(`SELECT seq, collection, title, text FROM chunks ORDER BY seq`).all() as {
    seq: number;
    collection: Collection;
    title: string;
    text: string;
  }[];
  for (const collection of COLLECTIONS) {
    db.exec(`DROP TABLE fts_${collection}; ${ftsTableSql(collection)}`);
  }
  const insert = Object.fromEntries(
    COLLECTIONS.map((c) => [c, db.prepare(`INSERT INTO fts_${c} (rowid, title, text, identifiers) VALUES (?, ?, ?, ?)`)]),
  ) as Record<Collection, Database.Statement>;
  for (const row of rows) insert[row.collection].run(row.seq, ...ftsColumns(row.title, row.text));
}

/** Reads the dimensions from the vec0 table's own definition, so they can never disagree with it. */
function vectorDims(db: Database.Database): number | undefined {
  const row = db.prepare(`SELECT sql FROM sqlite_master WHERE name = 'chunks_vec'`).get() as
    | { sql: string }
    | undefined;
  const dims = row && /float\[(\d+)\]/.exec(row.sql)?.[1];
  return dims ? Number(dims) : undefined;
}

const rebuildAdvice = (instance?: string) => `re-index with \`cita index ${instance ?? '<instance>'} --rebuild\``;

/** SQLite's own verdict that a file's pages are damaged (`database disk image is malformed`), on open or in a query. */
function isCorruption(err: unknown): boolean {
  return err instanceof Database.SqliteError && (err.code.startsWith('SQLITE_CORRUPT') || err.code === 'SQLITE_NOTADB');
}

function prepareStatements(db: Database.Database) {
  const ftsOf = (collection: Collection) => ({
    insert: db.prepare(`INSERT INTO fts_${collection} (rowid, title, text, identifiers) VALUES (?, ?, ?, ?)`),
    delete: db.prepare(`INSERT INTO fts_${collection} (fts_${collection}, rowid, title, text, identifiers) VALUES ('delete', ?, ?, ?, ?)`),
  });
  return {
    fts: Object.fromEntries(COLLECTIONS.map((c) => [c, ftsOf(c)])) as Record<Collection, ReturnType<typeof ftsOf>>,
    seqOf: db.prepare(`SELECT seq, collection, title, text FROM chunks WHERE id = ?`),
    insertChunk: db.prepare(
      `INSERT INTO chunks (id, collection, path, start_line, end_line, title, text, citation, tokens, symbols, issue, comment_id)
       VALUES (:id, :collection, :path, :start_line, :end_line, :title, :text, :citation, :tokens, :symbols, :issue, :comment_id)`,
    ),
    insertVec: db.prepare(`INSERT INTO chunks_vec (rowid, embedding, collection) VALUES (?, ?, ?)`),
    insertSymbol: db.prepare(`INSERT INTO symbols (name, leaf, chunk_seq) VALUES (?, ?, ?)`),
    deleteVec: db.prepare(`DELETE FROM chunks_vec WHERE rowid = ?`),
    deleteSymbols: db.prepare(`DELETE FROM symbols WHERE chunk_seq = ?`),
    deleteChunk: db.prepare(`DELETE FROM chunks WHERE seq = ?`),
    upsertMeta: db.prepare(
      `INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
    ),
    knn: db.prepare(
      `WITH nearest AS (
         SELECT rowid, distance FROM chunks_vec
         WHERE embedding MATCH :vector AND k = :k AND collection = :collection
       )
       SELECT ${CHUNK_COLUMNS}, nearest.distance AS distance
       FROM nearest JOIN chunks c ON c.seq = nearest.rowid
       ORDER BY nearest.distance, c.id`,
    ),
    // Exhaustive, for a k or a tie beyond what vec0 answers; vec_distance_cosine is the distance vec0 computes.
    knnScan: db.prepare(
      `SELECT ${CHUNK_COLUMNS}, vec_distance_cosine(v.embedding, :vector) AS distance
       FROM chunks_vec v JOIN chunks c ON c.seq = v.rowid
       WHERE v.collection = :collection
       ORDER BY distance, c.id LIMIT :k`,
    ),
    idsOfSeqs: db.prepare(`SELECT seq, id FROM chunks WHERE seq IN (SELECT value FROM json_each(?))`).raw(),
    rowsOfSeqs: db.prepare(`SELECT ${CHUNK_COLUMNS} FROM chunks c WHERE c.seq IN (SELECT value FROM json_each(?))`),
    getMany: db.prepare(`SELECT ${CHUNK_COLUMNS} FROM chunks c WHERE c.id IN (SELECT value FROM json_each(?))`),
    allIds: db.prepare(`SELECT id FROM chunks ORDER BY id`),
    idsOf: db.prepare(`SELECT id FROM chunks WHERE collection = ? ORDER BY id`),
    countAll: db.prepare(`SELECT count(*) AS n FROM chunks`),
    countOf: db.prepare(`SELECT count(*) AS n FROM chunks WHERE collection = ?`),
    issue: db.prepare(
      `SELECT ${CHUNK_COLUMNS} FROM chunks c WHERE c.issue = ?
       ORDER BY c.comment_id IS NOT NULL, c.comment_id, c.start_line, c.seq`,
    ),
    symbol: db.prepare(
      `SELECT ${CHUNK_COLUMNS} FROM chunks c
       JOIN (
         SELECT chunk_seq, min(CASE WHEN name = :name THEN 0 ELSE 1 END) AS rank
         FROM symbols
         WHERE name = :name OR (leaf = :leaf AND substr(name, -length(:suffix)) = :suffix)
         GROUP BY chunk_seq
       ) s ON s.chunk_seq = c.seq
       ORDER BY s.rank, c.path, c.start_line, c.id`,
    ),
    allMeta: db.prepare(`SELECT key, value FROM meta ORDER BY key`),
    metaOf: db.prepare(`SELECT value FROM meta WHERE key = ?`),
  };
}
