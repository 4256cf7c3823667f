import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { pidAlive } from '../../index/indexLock.ts';
import type { RebuildTarget, StoreBackend } from '../store.ts';
import { GENERATION_KEY, SqliteStore, type SqliteStoreOptions } from './sqliteStore.ts';

/**
 * The SQLite index's lifecycle: one file per instance (`store.path`), created on first open; a
 * rebuild writes a file of its own beside it and renames it over the old one.
 */
export function sqliteBackend(file: string, instance: string, options: Pick<SqliteStoreOptions, 'bm25MaxTerms' | 'bm25CommonCutoff' | 'bm25PostingsBytes'> = {}): StoreBackend {
  return {
    exists: async () => fs.existsSync(file),
    meta: async (omit = []) => readMeta(file, omit),
    open: async (dims) => openFile(file, dims, instance, options),
    async rebuild(dims): Promise<RebuildTarget> {
      discardStaleRebuilds(file);
      const next = rebuildFile(file);
      const store = openFile(next, dims, instance, options);
      return {
        store,
        async commit() {
          await store.close();
          replaceIndex(file, next);
        },
        async discard() {
          await store.close();
          discardRebuild(next);
        },
      };
    },
  };
}

function openFile(file: string, dims: number, instance: string, bm25: Pick<SqliteStoreOptions, 'bm25MaxTerms' | 'bm25CommonCutoff' | 'bm25PostingsBytes'>): SqliteStore {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  return SqliteStore.open(file, { dims, instance, ...bm25 });
}

/** The meta table, read-only and without loading sqlite-vec; `{}` when there is no file or it cannot be read. */
function readMeta(file: string, omit: string[]): Record<string, string> {
  if (!fs.existsSync(file)) return {};
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare('SELECT key, value FROM meta WHERE key NOT IN (SELECT value FROM json_each(?))').all(JSON.stringify([GENERATION_KEY, ...omit])) as {
      key: string;
      value: string;
    }[];
    return Object.fromEntries(rows.map((r) => [r.key, r.value]));
  } catch {
    return {};
  } finally {
    db.close();
  }
}

/**
 * Where a `--rebuild` builds a fresh index before it replaces the old one: a name of its own
 * (`<index>.rebuild-<pid>-<random>`), so no run ever opens or deletes another run's file.
 */
export function rebuildFile(file: string, id = `${process.pid}-${randomUUID().slice(0, 8)}`): string {
  return `${file}.rebuild-${id}`;
}

const SIDE_FILES = ['-wal', '-shm'];

/**
 * Replaces the index `file` with a completely built new one. The old file is left untouched until
 * the new one is whole; a rename is atomic, so a crash leaves one or the other, never a mix. The new
 * file was closed (WAL checkpointed) by the caller; the old one's side files go first so they are
 * never applied to the new file.
 */
export function replaceIndex(file: string, rebuilt: string): void {
  for (const side of SIDE_FILES) if (fs.existsSync(`${rebuilt}${side}`)) throw new Error(`${rebuilt} was not closed cleanly`);
  if (fs.existsSync(file)) {
    // Fold the old WAL into its file, so dropping the side files loses nothing if we stop here.
    try {
      const db = new Database(file);
      db.pragma('wal_checkpoint(TRUNCATE)');
      db.close();
    } catch {
      // Not a readable database (the reason for many a rebuild): nothing in it to keep.
    }
    for (const side of SIDE_FILES) fs.rmSync(`${file}${side}`, { force: true });
  }
  fs.renameSync(rebuilt, file);
}

/** Removes a half-built rebuild file and its side files. */
export function discardRebuild(file: string): void {
  for (const suffix of ['', ...SIDE_FILES]) fs.rmSync(`${file}${suffix}`, { force: true });
}

/** Removes half-built rebuilds left by interrupted runs: those whose process is gone (and the old fixed name). */
function discardStaleRebuilds(file: string): void {
  const dir = path.dirname(file);
  const prefix = `${path.basename(file)}.rebuild`;
  if (!fs.existsSync(dir)) return;
  for (const name of fs.readdirSync(dir)) {
    if (!name.startsWith(prefix) || SIDE_FILES.some((side) => name.endsWith(side))) continue;
    const pid = /^-(\d+)-[0-9a-f]+$/.exec(name.slice(prefix.length))?.[1];
    if (name === prefix || (pid !== undefined && !pidAlive(Number(pid)))) discardRebuild(path.join(dir, name));
  }
}
