import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

/**
 * Vectors by (model, text hash), committed batch by batch while a run embeds. The store itself changes
 * only in one final transaction, so a run killed midway leaves the previous index intact, and the next
 * run finds the vectors it already paid for here instead of embedding them again.
 *
 * A vector is kept after its chunk leaves the index (a file excluded, a section edited, another model
 * tried): including the file again, or going back to the old text or model, costs nothing. One cache
 * serves every instance of a checkout (see `vectorCachePath`). It is bounded by size instead: past
 * `maxBytes` of vectors, those least recently used (embedded, or part of an index run) go first.
 */

/** The default bound: about 330,000 vectors of 384 dimensions. */
export const DEFAULT_VECTOR_CACHE_MB = 512;

export interface VectorCacheOptions {
  /** Vector bytes kept at most (`evict`); default DEFAULT_VECTOR_CACHE_MB. */
  maxBytes?: number;
  /** The clock of "last used" (tests). */
  now?: () => number;
}

export class VectorCache {
  private readonly db: Database.Database;
  private readonly getStmt: Database.Statement<[string, string], { vector: Buffer }>;
  readonly maxBytes: number;
  private readonly now: () => number;

  private constructor(db: Database.Database, options: VectorCacheOptions) {
    this.db = db;
    this.maxBytes = options.maxBytes ?? DEFAULT_VECTOR_CACHE_MB * 1024 * 1024;
    this.now = options.now ?? Date.now;
    this.getStmt = db.prepare('SELECT vector FROM vectors WHERE model = ? AND hash = ?');
  }

  /**
   * For a dry run, which must create nothing: the existing cache (only read), or an empty one in
   * memory when there is none yet. Not opened read-only: a read-only connection cannot remove the
   * WAL side files it creates, a read-write one does on close. `legacy`: read instead when `file`
   * does not exist yet (an older cita's cache, which the next real run takes over).
   */
  static openForReading(file: string, legacy?: string): VectorCache {
    const existing = [file, legacy].find((f) => f !== undefined && fs.existsSync(f));
    if (!existing) return VectorCache.create(new Database(':memory:'), {});
    return new VectorCache(new Database(existing, { fileMustExist: true }), {});
  }

  /**
   * Opens (creating) the cache. `legacy`: caches of an older cita (one per instance, which forgot
   * vectors of removed chunks) whose vectors are taken over once, then removed.
   */
  static open(file: string, options: VectorCacheOptions & { legacy?: string[] } = {}): VectorCache {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    const cache = VectorCache.create(db, options);
    for (const old of options.legacy ?? []) if (old !== file && fs.existsSync(old)) cache.takeOver(old);
    return cache;
  }

  private static create(db: Database.Database, options: VectorCacheOptions): VectorCache {
    db.transaction(() => {
      db.exec('CREATE TABLE IF NOT EXISTS vectors (model TEXT NOT NULL, hash TEXT NOT NULL, vector BLOB NOT NULL, PRIMARY KEY (model, hash))');
      // Caches written before the size bound have no `used`: theirs count as oldest.
      const columns = db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('vectors') as string[];
      if (!columns.includes('used')) db.exec('ALTER TABLE vectors ADD COLUMN used INTEGER NOT NULL DEFAULT 0');
      db.exec('CREATE INDEX IF NOT EXISTS vectors_used ON vectors (used)');
    })();
    return new VectorCache(db, options);
  }

  /** Copies another cache file's vectors (keeping ours where both have one) and deletes that file. */
  private takeOver(file: string): void {
    this.db.prepare('ATTACH DATABASE ? AS old').run(file);
    try {
      this.db.exec('INSERT OR IGNORE INTO main.vectors (model, hash, vector, used) SELECT model, hash, vector, 0 FROM old.vectors');
    } finally {
      this.db.exec('DETACH DATABASE old');
    }
    for (const side of ['', '-wal', '-shm']) fs.rmSync(`${file}${side}`, { force: true });
  }

  get(model: string, hash: string): Float32Array | undefined {
    const row = this.getStmt.get(model, hash);
    if (!row) return undefined;
    // Copy out of the row buffer: its memory is reused by the driver.
    return new Float32Array(row.vector.buffer.slice(row.vector.byteOffset, row.vector.byteOffset + row.vector.byteLength));
  }

  /** Stores one batch in one transaction. */
  putMany(model: string, entries: { hash: string; vector: Float32Array }[]): void {
    const now = this.now();
    // Prepared here, not on open: a dry run reads an older cache that has no `used` column.
    const put = this.db.prepare('INSERT OR REPLACE INTO vectors (model, hash, vector, used) VALUES (?, ?, ?, ?)');
    this.db.transaction(() => {
      for (const e of entries) put.run(model, e.hash, Buffer.from(e.vector.buffer, e.vector.byteOffset, e.vector.byteLength), now);
    })();
  }

  /** Marks these vectors used now (those of an index just written), so they are the last to be evicted. */
  touch(model: string, hashes: Iterable<string>): void {
    const now = this.now();
    const touch = this.db.prepare('UPDATE vectors SET used = ? WHERE model = ? AND hash = ?');
    this.db.transaction(() => {
      for (const hash of hashes) touch.run(now, model, hash);
    })();
  }

  /** Drops the least recently used vectors until at most `maxBytes` of vectors remain; returns how many went. */
  evict(maxBytes = this.maxBytes): number {
    return this.db.transaction(() => {
      const total = this.db.prepare('SELECT coalesce(sum(length(vector)), 0) FROM vectors').pluck().get() as number;
      if (total <= maxBytes) return 0;
      let excess = total - maxBytes;
      const drop: number[] = [];
      for (const row of this.db.prepare('SELECT rowid AS id, length(vector) AS n FROM vectors ORDER BY used, rowid').iterate() as Iterable<{ id: number; n: number }>) {
        if (excess <= 0) break;
        drop.push(row.id);
        excess -= row.n;
      }
      return this.db.prepare('DELETE FROM vectors WHERE rowid IN (SELECT value FROM json_each(?))').run(JSON.stringify(drop)).changes;
    })();
  }

  /** Vectors held (of every model). */
  count(): number {
    return this.db.prepare('SELECT count(*) FROM vectors').pluck().get() as number;
  }

  close(): void {
    this.db.close();
  }
}
