import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * One writer at a time per instance, across processes: a lock file beside the index, holding who
 * took it (pid, host, time). Taken before an index run plans and released when it ends, so a second
 * run (another CLI, a server re-index job) fails at once with who holds it, or waits (`--wait`).
 *
 * The file appears whole or not at all: it is written under a temporary name and hard-linked into
 * place, which fails if a lock exists. A lock whose process is gone (same host, pid dead or reused)
 * is taken over; one from another host is never guessed at. The lock is advisory and local to the
 * file system of the project root (also for Elasticsearch, whose cluster knows nothing of it); the
 * index's own generation check at commit is what guarantees that a stale plan is never written.
 */

export interface LockHolder {
  pid: number;
  host: string;
  /** When the lock was taken (ISO 8601). */
  since: string;
  instance?: string;
  /** The holder's start time in clock ticks since boot (Linux), to tell a reused pid from the holder. */
  started?: number;
}

export interface IndexLock {
  readonly file: string;
  readonly holder: LockHolder;
  /** Removes the lock if it is still ours; safe to call more than once. */
  release(): void;
}

/** Another run holds the lock (or it cannot be read); the message says who and what to do. */
export class IndexBusyError extends Error {
  constructor(
    readonly file: string,
    readonly holder: LockHolder | null,
    instance?: string,
  ) {
    super(
      `${holder ? describeHolder(holder) : `index busy (unreadable lock file ${file})`}: another index run${instance ? ` of "${instance}"` : ''} ` +
        `is writing it (\`cita index\` or a server re-index job); run again when it ends (\`cita index --wait\` waits for it)` +
        (holder && holder.host !== os.hostname()
          ? `; the lock was taken on another host, so if no run is left there, delete ${file}`
          : holder
            ? ''
            : `; if no index run is left, delete ${file}`),
    );
  }
}

/** `index busy (pid N since T)`, with the host when it is not this one. */
export function describeHolder(h: LockHolder): string {
  return `index busy (pid ${h.pid}${h.host === os.hostname() ? '' : ` on ${h.host}`} since ${h.since})`;
}

/** Releases of the locks this process holds, by file; run at `process.exit()` too (which skips `finally` blocks). */
const releases = new Map<string, () => void>();
let exitHook = false;

/** Start time of a process in clock ticks since boot (field 22 of /proc/<pid>/stat); undefined off Linux. */
function startTicks(pid: number | 'self'): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const ticks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    return Number.isFinite(ticks) ? ticks : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a process with this pid exists on this host (EPERM: it does, but is someone else's). */
export function pidAlive(pid: number): boolean {
  // 0 and negative numbers would signal process groups.
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** Whether the holder may still be running. Unknowable for another host: then yes. */
export function holderAlive(h: LockHolder, file: string): boolean {
  if (h.host !== os.hostname()) return true;
  // A lock naming our own pid that this process did not take is a dead process's (pid reused).
  if (h.pid === process.pid) return releases.has(path.resolve(file));
  if (!pidAlive(h.pid)) return false;
  const now = startTicks(h.pid);
  return h.started === undefined || now === undefined || now === h.started;
}

function parseHolder(raw: string): LockHolder | null {
  try {
    const h = JSON.parse(raw) as Partial<LockHolder>;
    if (Number.isInteger(h.pid) && typeof h.host === 'string' && typeof h.since === 'string') return h as LockHolder;
  } catch {
    // not JSON: reported as unreadable
  }
  return null;
}

function readRaw(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** Who holds the lock, or null when it is free (or held by a process that is gone). */
export function readLockHolder(file: string): LockHolder | null {
  const raw = readRaw(file);
  if (raw === null) return null;
  const holder = parseHolder(raw);
  if (!holder) throw new IndexBusyError(file, null);
  return holderAlive(holder, file) ? holder : null;
}

/**
 * Removes a dead holder's lock, but only that one: it is moved aside first, and put back if what was
 * moved is not what was judged dead (another run took the lock over in between).
 */
function removeStale(file: string, judged: string): void {
  const aside = `${file}.stale-${process.pid}-${randomUUID().slice(0, 8)}`;
  try {
    fs.renameSync(file, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  try {
    if (readRaw(aside) !== judged) fs.linkSync(aside, file);
  } catch {
    // Someone holds the lock again already: nothing of ours to restore.
  } finally {
    fs.rmSync(aside, { force: true });
  }
}

/** Takes the lock if it is free (or stale); else returns who holds it. */
export function tryAcquireIndexLock(file: string, instance?: string): IndexLock | { busy: LockHolder } {
  const abs = path.resolve(file);
  const me: LockHolder = { pid: process.pid, host: os.hostname(), since: new Date().toISOString(), instance, started: startTicks('self') };
  const content = JSON.stringify(me);
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  const tmp = `${abs}.${process.pid}-${randomUUID().slice(0, 8)}.tmp`;
  fs.writeFileSync(tmp, content);
  try {
    for (;;) {
      try {
        fs.linkSync(tmp, abs);
        return heldLock(abs, me, content);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
          throw new Error(`cannot create the index lock ${abs}: ${(err as Error).message}`, { cause: err });
        }
      }
      const raw = readRaw(abs);
      if (raw === null) continue; // released in between: try again
      const holder = parseHolder(raw);
      if (!holder) throw new IndexBusyError(abs, null, instance);
      if (holderAlive(holder, abs)) return { busy: holder };
      removeStale(abs, raw);
    }
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

function heldLock(file: string, holder: LockHolder, content: string): IndexLock {
  const release = () => {
    if (releases.get(file) !== release) return;
    releases.delete(file);
    // Only our own lock: if it was taken over (we looked dead), it is someone else's now.
    if (readRaw(file) === content) fs.rmSync(file, { force: true });
  };
  releases.set(file, release);
  if (!exitHook) {
    exitHook = true;
    // A signal or a crash skips this too: the next run takes such a lock over, its pid being gone.
    process.on('exit', () => {
      for (const r of [...releases.values()]) r();
    });
  }
  return { file, holder, release };
}

export interface AcquireOptions {
  instance?: string;
  /** Wait until the lock is free instead of failing with IndexBusyError. */
  wait?: boolean;
  /** Called when waiting starts, and again whenever another holder takes over. */
  onWait?: (holder: LockHolder) => void;
  /** Milliseconds between looks while waiting (default 500). */
  pollMs?: number;
  signal?: AbortSignal;
}

/** Takes the instance's index lock, failing at once (IndexBusyError) or waiting while another run holds it. */
export async function acquireIndexLock(file: string, o: AcquireOptions = {}): Promise<IndexLock> {
  let last = '';
  for (;;) {
    o.signal?.throwIfAborted();
    const got = tryAcquireIndexLock(file, o.instance);
    if (!('busy' in got)) return got;
    if (!o.wait) throw new IndexBusyError(path.resolve(file), got.busy, o.instance);
    const who = `${got.busy.host}:${got.busy.pid}:${got.busy.since}`;
    if (who !== last) o.onWait?.(got.busy);
    last = who;
    await sleep(o.pollMs ?? 500, undefined, { signal: o.signal });
  }
}
