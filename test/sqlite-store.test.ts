import Database from 'better-sqlite3';
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as sqliteVec from 'sqlite-vec';
import { afterEach, describe, expect, it } from 'vitest';
import { expandIdentifiers, ftsQuery } from '../pipeline/text/codeTokens.ts';
import { rebuildFile, replaceIndex, sqliteBackend } from '../pipeline/store/sqlite/backend.ts';
import { SCHEMA_VERSION, SqliteStore } from '../pipeline/store/sqlite/sqliteStore.ts';
import { intersect, kthLargestPositive } from '../pipeline/store/sqlite/ftsPostings.ts';
import { IndexChangedError, IndexDamagedError } from '../pipeline/store/store.ts';
import { backendContract } from './backend.contract.ts';
import { CONTRACT_DIMS, makeChunk, randomVector, storeContract } from './store.contract.ts';
import { root } from './support/paths.ts';

const tempDirs: string[] = [];
function tempFile(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'cita-sqlite-'));
  tempDirs.push(dir);
  return path.join(dir, 'index.sqlite');
}
afterEach(() => {
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

storeContract('sqlite', async ({ dims, bm25MaxTerms, bm25CommonCutoff }) => SqliteStore.open(tempFile(), { dims, bm25MaxTerms, bm25CommonCutoff }));
backendContract('sqlite', () => ({ backend: sqliteBackend(path.join(path.dirname(tempFile()), 'sub', 'index.sqlite'), 'demo'), cleanup: () => undefined }));

/** A plain connection to the file, as another process would have it (vec0 loaded to read its tables). */
function rawConnection(file: string): Database.Database {
  const db = new Database(file);
  sqliteVec.load(db);
  return db;
}

function errorOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected an error');
}

function integrity(file: string): string[] {
  const db = rawConnection(file);
  try {
    return (db.pragma('integrity_check') as { integrity_check: string }[]).map((r) => r.integrity_check);
  } finally {
    db.close();
  }
}

const initial = () => [
  makeChunk('keep-doc', 'docs', 'Configure the cache directory with cache_dir.'),
  makeChunk('keep-code', 'code', 'def cache_dir(config): ...', { symbols: ['Cache.cache_dir'] }),
  makeChunk('keep-issue', 'issues', 'cache_dir ignored on Windows', { citation: { path: '#12', startLine: 1, endLine: 3, issue: 12 } }),
];

describe('SqliteStore (file)', () => {
  it('uses WAL and records its schema version', async () => {
    const file = tempFile();
    const store = SqliteStore.open(file, { dims: CONTRACT_DIMS });
    await store.close();
    const db = rawConnection(file);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    db.close();
  });

  it('keeps its data across close and reopen', async () => {
    const file = tempFile();
    const chunks = initial();
    const first = SqliteStore.open(file, { dims: CONTRACT_DIMS });
    await first.apply({ upsert: chunks, delete: [], meta: { model: 'test' } });
    await first.close();

    const store = SqliteStore.open(file, { dims: CONTRACT_DIMS });
    expect(await store.count()).toBe(3);
    const { vector: keepCodeVector, ...keepCode } = chunks[1]!;
    expect(await store.get(['keep-code'])).toEqual([keepCode]);
    expect((await store.bm25('docs', 'cache', 5)).map((h) => h.chunk.id)).toEqual(['keep-doc']);
    expect((await store.knn('code', keepCodeVector, 1))[0]?.chunk.id).toBe('keep-code');
    expect((await store.lookupSymbol('cache_dir')).map((c) => c.id)).toEqual(['keep-code']);
    expect((await store.lookupIssue(12)).map((c) => c.id)).toEqual(['keep-issue']);
    expect(await store.meta()).toEqual({ model: 'test' });
    await store.close();
  });

  it('refuses to open an index built with other vector dimensions', async () => {
    const file = tempFile();
    await SqliteStore.open(file, { dims: 8 }).close();
    expect(() => SqliteStore.open(file, { dims: 16, instance: 'pytest' })).toThrow(
      /holds 8-dimension vectors but 16 were asked for; re-index with `cita index pytest --rebuild`/,
    );
  });

  it('refuses a file written by a newer schema, saying how to rebuild', async () => {
    const file = tempFile();
    await SqliteStore.open(file, { dims: CONTRACT_DIMS }).close();
    const db = rawConnection(file);
    db.pragma(`user_version = ${SCHEMA_VERSION + 98}`);
    db.close();
    expect(() => SqliteStore.open(file, { dims: CONTRACT_DIMS, instance: 'pytest' })).toThrow(
      new RegExp(
        `index schema version ${SCHEMA_VERSION + 98} is newer than this cita .*; re-index with \`cita index pytest --rebuild\``,
      ),
    );
  });

  it('opens a version-1 file by rebuilding its FTS tables from chunks, so it ranks like a fresh build (#11 item 7)', async () => {
    const content = [
      makeChunk('m-cache', 'docs', 'Configure the cache directory with cache_dir.'),
      makeChunk('m-fixture', 'docs', 'A fixture provides a cache to the test.'),
      makeChunk('m-marker', 'docs', 'The skip marker takes a reason.'),
      makeChunk('m-code', 'code', 'def cache_dir(config): return config.cache'),
    ];
    const gone = ['one', 'two', 'three'].map((w) => makeChunk(`gone-${w}`, 'docs', `cache cache fixture ${w} words that were deleted later`));
    const fresh = SqliteStore.open(tempFile(), { dims: CONTRACT_DIMS });
    await fresh.upsert(content);
    const expected = await fresh.bm25('docs', 'cache fixture', 10);
    await fresh.close();

    // A version-1 file: contentless_delete FTS tables, which kept counting deleted rows in bm25.
    const file = tempFile();
    const store = SqliteStore.open(file, { dims: CONTRACT_DIMS });
    await store.upsert(content);
    await store.close();
    const db = rawConnection(file);
    const v1 = (c: string) =>
      `DROP TABLE fts_${c}; CREATE VIRTUAL TABLE fts_${c} USING fts5 (title, text, identifiers, content = '', contentless_delete = 1, ` +
      `tokenize = "unicode61 remove_diacritics 2 tokenchars '_'");`;
    db.exec(['docs', 'code', 'issues'].map(v1).join('\n'));
    const rows = db.prepare(`SELECT seq, collection, title, text FROM chunks ORDER BY seq`).all() as { seq: number; collection: string; title: string; text: string }[];
    const insert = (c: string, seq: number, title: string, text: string) =>
      db.prepare(`INSERT INTO fts_${c} (rowid, title, text, identifiers) VALUES (?, ?, ?, ?)`).run(seq, title, text, expandIdentifiers(`${title}\n${text}`));
    for (const r of rows) insert(r.collection, r.seq, r.title, r.text);
    gone.forEach((c, i) => insert('docs', 1000 + i, c.title, c.text));
    for (let i = 0; i < gone.length; i++) db.prepare(`DELETE FROM fts_docs WHERE rowid = ?`).run(1000 + i);
    db.pragma('user_version = 1');
    db.close();

    const migrated = SqliteStore.open(file, { dims: CONTRACT_DIMS });
    expect(await migrated.bm25('docs', 'cache fixture', 10)).toEqual(expected);
    expect(await migrated.count()).toBe(content.length);
    await migrated.close();
    const check = rawConnection(file);
    expect(check.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect((check.prepare(`SELECT sql FROM sqlite_master WHERE name = 'fts_docs'`).get() as { sql: string }).sql).not.toMatch(/contentless_delete/);
    check.close();
    expect(integrity(file)).toEqual(['ok']);
  });

  it('knn answers a k beyond the 4,096 that sqlite-vec allows, in score-then-id order', async () => {
    const store = SqliteStore.open(tempFile(), { dims: CONTRACT_DIMS });
    const shared = randomVector('shared');
    const chunks = Array.from({ length: 4200 }, (_, i) =>
      makeChunk(`k${String(i).padStart(4, '0')}`, 'docs', 'x', { vector: i % 2 === 0 ? shared : randomVector(`k-${i}`) }),
    );
    await store.upsert(chunks);
    const hits = await store.knn('docs', shared, 4150);
    expect(hits).toHaveLength(4150);
    // The 2,100 chunks with the shared vector come first, by id; every score ties the query's.
    expect(hits.slice(0, 2100).map((h) => h.chunk.id)).toEqual(chunks.filter((_, i) => i % 2 === 0).map((c) => c.id));
    for (let i = 1; i < hits.length; i++) expect(hits[i - 1]!.score).toBeGreaterThanOrEqual(hits[i]!.score);
    expect((await store.knn('docs', shared, 10)).map((h) => h.chunk.id)).toEqual(hits.slice(0, 10).map((h) => h.chunk.id));
    await store.close();
  });

  it('refuses an SQLite file that is not a cita index, and a file that is not SQLite', () => {
    const foreign = tempFile();
    const db = new Database(foreign);
    db.exec('CREATE TABLE users (name TEXT)');
    db.close();
    expect(() => SqliteStore.open(foreign, { dims: CONTRACT_DIMS })).toThrow(/not a cita index/);

    const text = tempFile();
    writeFileSync(text, 'this is a text file, not a database\n'.repeat(100));
    expect(() => SqliteStore.open(text, { dims: CONTRACT_DIMS })).toThrow(/not an SQLite database.*--rebuild/);
  });

  it('reports a damaged index as IndexDamagedError: a reason without the path, and the rebuild', async () => {
    const text = tempFile();
    writeFileSync(text, 'this is a text file, not a database\n'.repeat(100));
    const notDb = errorOf(() => SqliteStore.open(text, { dims: CONTRACT_DIMS, instance: 'demo' }));
    expect(notDb).toBeInstanceOf(IndexDamagedError);
    expect((notDb as IndexDamagedError).reason).toBe('not an SQLite database');

    // A damaged page that only a query reads: the root page of the docs full-text index.
    const file = tempFile();
    const store = SqliteStore.open(file, { dims: CONTRACT_DIMS, instance: 'demo' });
    await store.upsert(initial());
    await store.close();
    const db = rawConnection(file);
    const { rootpage } = db.prepare(`SELECT rootpage FROM sqlite_master WHERE name = 'fts_docs_data'`).get() as { rootpage: number };
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    db.close();
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.alloc(pageSize, 0xff), 0, pageSize, (rootpage - 1) * pageSize);
    closeSync(fd);
    const damaged = SqliteStore.open(file, { dims: CONTRACT_DIMS, instance: 'demo' });
    const err = await damaged.bm25('docs', 'cache', 5).catch((e: unknown) => e);
    await damaged.close();
    expect(err).toBeInstanceOf(IndexDamagedError);
    expect((err as IndexDamagedError).reason).toBe('the file is damaged (database disk image is malformed)');
    expect((err as Error).message).toBe(`${file}: the file is damaged (database disk image is malformed); re-index with \`cita index demo --rebuild\``);
  });

  it('closing a store whose file a rebuild replaced leaves the new index and its WAL alone', async () => {
    const file = tempFile();
    const old = SqliteStore.open(file, { dims: CONTRACT_DIMS });
    await old.upsert(initial());
    const next = rebuildFile(file);
    const rebuilt = SqliteStore.open(next, { dims: CONTRACT_DIMS });
    await rebuilt.upsert([makeChunk('fresh', 'docs', 'the rebuilt index')]);
    await rebuilt.close();
    expect(await old.standing()).toBe('live');
    replaceIndex(file, next);
    expect(await old.standing()).toBe('replaced');
    const current = SqliteStore.open(file, { dims: CONTRACT_DIMS });
    await current.upsert([makeChunk('in-wal', 'docs', 'written after the swap, still in the WAL')]);
    expect(existsSync(`${file}-wal`)).toBe(true);
    await old.close(); // the last connection to the swapped-out file
    expect(existsSync(`${file}-wal`)).toBe(true);
    const reader = SqliteStore.open(file, { dims: CONTRACT_DIMS });
    expect((await reader.ids()).sort()).toEqual(['fresh', 'in-wal']);
    await reader.close();
    await current.close();
    expect(integrity(file)).toEqual(['ok']);
  });

  it('a reader in a transaction keeps its snapshot while a writer applies', async () => {
    const file = tempFile();
    const store = SqliteStore.open(file, { dims: CONTRACT_DIMS });
    await store.upsert(initial());
    const reader = rawConnection(file);
    const count = reader.prepare('SELECT count(*) AS n FROM chunks');
    reader.exec('BEGIN');
    expect(count.get()).toEqual({ n: 3 });
    await store.apply({ upsert: [makeChunk('new', 'docs', 'new', { vector: randomVector('new') })], delete: ['keep-doc'] });
    expect(count.get()).toEqual({ n: 3 });
    reader.exec('COMMIT');
    expect(count.get()).toEqual({ n: 3 });
    expect(reader.prepare(`SELECT id FROM chunks ORDER BY id`).all()).toEqual([{ id: 'keep-code' }, { id: 'keep-issue' }, { id: 'new' }]);
    reader.close();
    await store.close();
  });

  it('refuses a plan read before another connection committed, and one whose file a rebuild replaced', async () => {
    const file = tempFile();
    const a = SqliteStore.open(file, { dims: CONTRACT_DIMS });
    const b = SqliteStore.open(file, { dims: CONTRACT_DIMS });
    await a.apply({ upsert: initial(), delete: [], meta: { run: 'seed' } });

    // a plans; b (another run) commits first; a's commit must not land on top of b's.
    const planned = await a.generation();
    await b.apply({ upsert: [makeChunk('from-b', 'docs', 'b')], delete: ['keep-doc'], meta: { run: 'b' } });
    await expect(a.apply({ upsert: [makeChunk('from-a', 'docs', 'a')], delete: ['keep-code'], meta: { run: 'a' }, ifGeneration: planned })).rejects.toThrow(IndexChangedError);
    expect(await a.ids()).toEqual(['from-b', 'keep-code', 'keep-issue']);
    expect(await a.meta()).toEqual({ run: 'b' });
    await b.close();

    // A rebuild renames a new file over the path: writes through a's connection would go to the old, unlinked one.
    const rebuilt = `${file}.rebuild-test`;
    const fresh = SqliteStore.open(rebuilt, { dims: CONTRACT_DIMS });
    await fresh.apply({ upsert: [makeChunk('rebuilt', 'docs', 'rebuilt')], delete: [], meta: { run: 'rebuild' } });
    await fresh.close();
    const plannedAgain = await a.generation();
    replaceIndex(file, rebuilt);
    await expect(a.apply({ upsert: [makeChunk('lost', 'docs', 'lost')], delete: [], ifGeneration: plannedAgain })).rejects.toThrow(/a --rebuild replaced it/);
    await a.close();
    const now = SqliteStore.open(file, { dims: CONTRACT_DIMS });
    expect(await now.ids()).toEqual(['rebuilt']);
    await now.close();
  });
});

describe('SqliteStore with a writer in another process', () => {
  const DIMS = 384;
  const CHILD = path.join(root, 'test/support/sqlite-apply-child.ts');
  const BIG = 6000;

  interface Writer {
    child: ChildProcess;
    output: () => string;
    exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  }

  function startWriter(file: string, count: number, run: string): Writer {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, file, String(DIMS), String(count), run], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on('exit', (code, signal) => resolve({ code, signal })),
    );
    return { child, output: () => out, exited };
  }

  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const walSize = (file: string) => (existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0);

  /**
   * Waits until the child said `applying` and its transaction has written 2 MB to the WAL (pages the
   * cache could not hold): from then on it is mid-transaction. Returns false if it finished first.
   */
  async function waitUntilMidTransaction(writer: Writer, file: string): Promise<boolean> {
    while (!writer.output().includes('applying')) {
      if (writer.child.exitCode !== null) throw new Error(`writer exited early: ${writer.output()}`);
      await sleep(5);
    }
    const start = walSize(file);
    while (walSize(file) < start + 2_000_000) {
      if (writer.output().includes('applied') || writer.child.exitCode !== null) return false;
      await sleep(2);
    }
    return !writer.output().includes('applied');
  }

  async function seed(file: string): Promise<void> {
    const store = SqliteStore.open(file, { dims: DIMS });
    await store.apply({
      upsert: initial().map((c) => ({ ...c, vector: randomVector(c.id, DIMS) })),
      delete: [],
      meta: { run: 'seed' },
    });
    await store.close();
  }

  it('a reader sees the old state until the writer commits, then the new one, never a mix', async () => {
    const file = tempFile();
    await seed(file);
    const reader = SqliteStore.open(file, { dims: DIMS });
    const writer = startWriter(file, BIG, 'bulk');
    try {
      expect(await waitUntilMidTransaction(writer, file)).toBe(true);
      const seen = new Set<string>();
      let midTransaction = 0;
      // The three reads are three statements, so the commit can land between them: a sample counts
      // only when the count is the same after it as before (the one commit moves it from 3 to BIG + 3,
      // so equal counts bracket reads that all saw one state).
      let straddled = 0;
      while (writer.child.exitCode === null) {
        const before = await reader.count();
        const state = `${before}/${(await reader.bm25('docs', 'bulkmarker', 5)).length}/${(await reader.meta()).run}`;
        if ((await reader.count()) === before) seen.add(state);
        else straddled++;
        if (!writer.output().includes('applied')) midTransaction++;
        await sleep(10);
      }
      const { code } = await writer.exited;
      expect(code, writer.output()).toBe(0);
      seen.add(`${await reader.count()}/${(await reader.bm25('docs', 'bulkmarker', 5)).length}/${(await reader.meta()).run}`);
      expect(midTransaction).toBeGreaterThan(0);
      expect(straddled).toBeLessThanOrEqual(1); // one commit can split one sample at most
      expect([...seen].every((s) => s === '3/0/seed' || s === `${BIG + 3}/5/bulk`), [...seen].join(' ')).toBe(true);
      expect(seen.has(`${BIG + 3}/5/bulk`)).toBe(true);
      expect(await reader.count()).toBe(BIG + 3);
    } finally {
      writer.child.kill('SIGKILL');
      await reader.close();
    }
  });

  it('SIGKILL in the middle of a large apply leaves the previous index whole and usable', async () => {
    const file = tempFile();
    await seed(file);
    const writer = startWriter(file, BIG, 'doomed');
    try {
      expect(await waitUntilMidTransaction(writer, file)).toBe(true);
      writer.child.kill('SIGKILL');
      const { signal } = await writer.exited;
      expect(signal).toBe('SIGKILL');
      expect(writer.output()).not.toContain('applied');
    } finally {
      writer.child.kill('SIGKILL');
    }
    expect(walSize(file)).toBeGreaterThan(2_000_000);

    expect(integrity(file)).toEqual(['ok']);
    const store = SqliteStore.open(file, { dims: DIMS });
    expect(await store.count()).toBe(3);
    expect([...(await store.ids())].sort()).toEqual(['keep-code', 'keep-doc', 'keep-issue']);
    expect(await store.bm25('docs', 'doomedmarker', 5)).toEqual([]);
    expect((await store.bm25('docs', 'cache directory', 5)).map((h) => h.chunk.id)).toEqual(['keep-doc']);
    expect((await store.knn('code', randomVector('keep-code', DIMS), 1))[0]?.chunk.id).toBe('keep-code');
    expect(await store.lookupSymbol('doomed_function_1')).toEqual([]);
    expect((await store.lookupSymbol('cache_dir')).map((c) => c.id)).toEqual(['keep-code']);
    expect(await store.meta()).toEqual({ run: 'seed' });

    // And the next run can write to it.
    await store.apply({ upsert: [makeChunk('after', 'docs', 'after the crash', { vector: randomVector('after', DIMS) })], delete: [] });
    expect(await store.count()).toBe(4);
    await store.close();
    expect(integrity(file)).toEqual(['ok']);
  });
});

describe('SqliteStore bm25 over kept postings (#14 item 4)', () => {
  // A small Zipf-like corpus: common words in most chunks, rare ones in a few, and copies that tie.
  const WORDS = ['the', 'test', 'fixture', 'skip', 'marker', 'cache', 'plugin', 'assert', 'raises', 'tmp_path', 'capsys', 'monkeypatch', 'xfail', 'parametrize', 'conftest'];
  function corpus(seed: number, n: number, prefix: string) {
    let x = seed;
    const next = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
    return Array.from({ length: n }, (_, i) => {
      const words = Array.from({ length: 3 + Math.floor(next() * 12) }, () => WORDS[Math.floor(WORDS.length * next() ** 2)]!);
      // Every seventh chunk repeats an earlier one's text: equal scores, ranked by id.
      const text = i % 7 === 6 ? `copy of ${prefix}` : words.join(' ');
      return makeChunk(`${prefix}-${String(i).padStart(3, '0')}`, 'code', text, { title: i % 5 === 0 ? `${words[0]} title` : undefined });
    });
  }
  /** FTS5's own ranking: one `bm25()` over the OR of the quoted terms, ties by chunk id (the store's plan before this). */
  function fts5Ranking(file: string, query: string, k: number): [string, number][] {
    const db = rawConnection(file);
    try {
      return db
        .prepare(`SELECT c.id, -bm25(fts_code, 2.0, 1.0, 1.0) AS score FROM fts_code JOIN chunks c ON c.seq = fts_code.rowid WHERE fts_code MATCH ? ORDER BY score DESC, c.id LIMIT ?`)
        .raw()
        .all(ftsQuery(query), k) as [string, number][];
    } finally {
      db.close();
    }
  }
  const QUERIES = ['the test', 'skip marker cache', 'tmp_path capsys the', 'conftest', 'copy of', 'xfail parametrize raises assert the test', 'nowhere the'];

  it("ranks and scores as FTS5's bm25() does, to the bit, at any memory budget, before and after writes", async () => {
    const file = tempFile();
    const budgets = [undefined, 0, 300];
    const stores = budgets.map((bm25PostingsBytes) => SqliteStore.open(file, { dims: CONTRACT_DIMS, bm25PostingsBytes }));
    await stores[0]!.upsert(corpus(1, 200, 'a'));
    const check = async () => {
      for (const store of stores) {
        for (const query of QUERIES) {
          for (const k of [1, 5, 20, 500]) {
            const hits = (await store.bm25('code', query, k)).map((h) => [h.chunk.id, h.score]);
            expect(hits, `${query} k=${k}`).toEqual(fts5Ranking(file, query, k));
          }
        }
      }
    };
    await check();
    // Writes change every phrase's IDF and the average length: what was kept is dropped, by every store on the file.
    await stores[1]!.apply({ upsert: corpus(2, 120, 'b'), delete: corpus(1, 200, 'a').filter((_, i) => i % 3 === 0).map((c) => c.id) });
    await check();
    for (const store of stores) await store.close();
  });

  it('finds the k-th largest score and intersects row lists as a sort and a set would', () => {
    let x = 7;
    const next = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let round = 0; round < 50; round++) {
      const values = Float64Array.from({ length: 1 + Math.floor(next() * 300) }, () => (next() < 0.3 ? 0 : Math.round(next() * 20) / 4));
      const positive = [...values].filter((v) => v > 0).sort((a, b) => b - a);
      for (const k of [1, 2, 10, 299, 400, Number.MAX_SAFE_INTEGER]) expect(kthLargestPositive(values, k)).toBe(positive.length < k ? -Infinity : positive[k - 1]);
      const list = () => Int32Array.from(new Set(Array.from({ length: Math.floor(next() * 100) }, () => Math.floor(next() * 150)))).sort();
      const [a, b] = [list(), list()];
      expect([...intersect(a, b)]).toEqual([...a].filter((v) => b.includes(v)));
    }
  });

  it('reads each phrase from FTS5 once, then from memory until the next write', async () => {
    const statements: string[] = [];
    const store = SqliteStore.open(tempFile(), { dims: CONTRACT_DIMS, trace: (sql) => statements.push(sql) });
    // 300 copies of one text (a licence header, a vendored file): equal scores, ordered by id.
    const copies = Array.from({ length: 300 }, (_, i) => makeChunk(`copy-${String(i).padStart(3, '0')}`, 'code', 'the skip marker skips a test'));
    await store.upsert([...copies, makeChunk('other', 'code', 'a fixture for the test')]);
    const matches = () => statements.splice(0).filter((sql) => /\bMATCH\b/.test(sql)).length;
    matches();
    const hits = await store.bm25('code', 'skip marker', 10);
    expect(hits.map((h) => h.chunk.id)).toEqual(copies.slice(0, 10).map((c) => c.id));
    expect(matches()).toBe(2);
    expect((await store.bm25('code', 'marker skip test', 10)).map((h) => h.chunk.id)).toEqual(copies.slice(0, 10).map((c) => c.id));
    expect(matches()).toBe(1);
    expect(store.postingsStats('code')).toMatchObject({ phrases: 3, postings: 300 + 300 + 301 });
    // Word co-occurrence counts are intersections of the same rows.
    expect(await store.matchCounts('code', [['skip', 'marker'], ['test'], ['marker', 'fixture']])).toEqual([300, 301, 0]);
    expect(matches()).toBe(1);
    await store.upsert([makeChunk('marker', 'code', 'marker marker marker')]);
    expect((await store.bm25('code', 'marker', 1)).map((h) => h.chunk.id)).toEqual(['marker']);
    expect(matches()).toBe(1);
    await store.close();
  });
});
