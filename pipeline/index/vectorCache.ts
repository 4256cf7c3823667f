import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

/**
 * Vectors by (model, text hash), committed batch by batch while a run embeds. The store itself changes
 * only in one final transaction, so a run killed midway leaves the previous index intact, and the next
 * run finds the vectors it already paid for here instead of embedding them again.
 */
export class VectorCache {
  private readonly db: Database.Database;
  private readonly getStmt: Database.Statement<[string, string], { vector: Buffer }>;
  private readonly putStmt: Database.Statement<[string, string, Buffer]>;

  private constructor(db: Database.Database) {
    this.db = db;
    this.getStmt = db.prepare('SELECT vector FROM vectors WHERE model = ? AND hash = ?');
    this.putStmt = db.prepare('INSERT OR REPLACE INTO vectors (model, hash, vector) VALUES (?, ?, ?)');
  }

  /**
   * For a dry run, which must create nothing: the existing cache (only read), or an empty one in
   * memory when there is none yet. Not opened read-only: a read-only connection cannot remove the
   * WAL side files it creates, a read-write one does on close.
   */
  static openForReading(file: string): VectorCache {
    if (!fs.existsSync(file)) return VectorCache.create(new Database(':memory:'));
    return new VectorCache(new Database(file, { fileMustExist: true }));
  }

  static open(file: string): VectorCache {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    return VectorCache.create(db);
  }

  private static create(db: Database.Database): VectorCache {
    db.exec('CREATE TABLE IF NOT EXISTS vectors (model TEXT NOT NULL, hash TEXT NOT NULL, vector BLOB NOT NULL, PRIMARY KEY (model, hash))');
    return new VectorCache(db);
  }

  get(model: string, hash: string): Float32Array | undefined {
    const row = this.getStmt.get(model, hash);
    if (!row) return undefined;
    // Copy out of the row buffer: its memory is reused by the driver.
    return new Float32Array(row.vector.buffer.slice(row.vector.byteOffset, row.vector.byteOffset + row.vector.byteLength));
  }

  /** Stores one batch in one transaction. */
  putMany(model: string, entries: { hash: string; vector: Float32Array }[]): void {
    this.db.transaction(() => {
      for (const e of entries) this.putStmt.run(model, e.hash, Buffer.from(e.vector.buffer, e.vector.byteOffset, e.vector.byteLength));
    })();
  }

  /** Drops vectors that no current chunk uses, so the cache does not grow without bound. */
  retain(model: string, keep: Set<string>): number {
    const rows = this.db.prepare('SELECT hash FROM vectors WHERE model = ?').all(model) as { hash: string }[];
    const del = this.db.prepare('DELETE FROM vectors WHERE model = ? AND hash = ?');
    let n = 0;
    this.db.transaction(() => {
      for (const r of rows) if (!keep.has(r.hash)) n += del.run(model, r.hash).changes;
      n += this.db.prepare('DELETE FROM vectors WHERE model <> ?').run(model).changes;
    })();
    return n;
  }

  close(): void {
    this.db.close();
  }
}
