import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../pipeline/config/load.ts';
import { indexInstance } from '../pipeline/index/indexInstance.ts';
import { acquireIndexLock, IndexBusyError, tryAcquireIndexLock, type IndexLock } from '../pipeline/index/indexLock.ts';
import { openEmbedder, openStore, resolvePaths } from '../pipeline/instance.ts';
import { IndexChangedError } from '../pipeline/store/store.ts';
import type { Embedder } from '../pipeline/types.ts';
import { makeProject, type TestProject } from './support/cli.ts';

/**
 * Two index runs of one instance at once (#11): the lock keeps the second out (or makes it wait),
 * and a run whose plan went stale anyway is refused at commit. In-process with the hashing embedder;
 * test/cli-concurrency.test.ts does the same with real `cita index` processes.
 */

const projects: TestProject[] = [];
afterEach(() => {
  for (const p of projects.splice(0)) p.cleanup();
});

const section = (name: string, words: string) => `## ${name}\n\n${`${words} `.repeat(8).trim()}\n`;

/** The repository before the edit: a guide and a file that will be deleted. */
const BEFORE: Record<string, string> = {
  'docs/guide.md': `# Guide\n\n${section('Installing', 'Install the package with pip.')}\n${section('Skipping', 'Use the skip marker to skip a test.')}`,
  'docs/old.md': `# Old\n\n${Array.from({ length: 12 }, (_, i) => section(`Part ${i}`, `Old part ${i} explains option ${i}.`)).join('\n')}`,
  'src/loader.py': 'def parse_config(path):\n    return {}\n',
};
/** After: one section of the guide edited, old.md deleted. */
const AFTER: Record<string, string | null> = {
  'docs/guide.md': `# Guide\n\n${section('Installing', 'Install the package with pip.')}\n${section('Skipping', 'Use skipif to skip a test on some platforms only.')}`,
  'docs/old.md': null,
};

function project(files: Record<string, string | null>): TestProject {
  const p = makeProject();
  projects.push(p);
  p.setInstance('name: demo\nrepository:\n  path: repo\nembedding:\n  provider: hashing\n');
  write(p, files);
  return p;
}

function write(p: TestProject, files: Record<string, string | null>): void {
  for (const [rel, content] of Object.entries(files)) {
    if (content === null) p.remove(rel);
    else p.write(rel, content);
  }
}

function instance(p: TestProject) {
  const { config } = loadConfig('demo', { root: p.dir });
  return { config, paths: resolvePaths(config, p.dir) };
}

async function run(p: TestProject, extra: { embedder?: Embedder; lock?: IndexLock } = {}) {
  const { config, paths } = instance(p);
  const embedder = extra.embedder ?? (await openEmbedder(config, paths));
  return indexInstance({ config, paths, embedder, lock: extra.lock });
}

/** What the index holds: every chunk's id and text, sorted. */
async function contents(p: TestProject): Promise<string[]> {
  const { config, paths } = instance(p);
  const store = await openStore(config, paths, 384);
  try {
    return (await store.get(await store.ids())).map((c) => `${c.id} ${c.text}`).sort();
  } finally {
    await store.close();
  }
}

/** The index a single run makes of these files in a fresh project. */
async function clean(files: Record<string, string | null>): Promise<string[]> {
  const p = project(Object.fromEntries(Object.entries(files).filter(([, v]) => v !== null)));
  await run(p);
  return contents(p);
}

/** An embedder whose first embedding call waits for `open()`: the run has planned and is paused before its commit. */
async function gated(p: TestProject) {
  const { config, paths } = instance(p);
  const inner = await openEmbedder(config, paths);
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let reached!: () => void;
  const paused = new Promise<void>((resolve) => (reached = resolve));
  const embedder: Embedder = Object.create(inner);
  embedder.embedPassages = async (texts: string[]) => {
    reached();
    await gate;
    return inner.embedPassages(texts);
  };
  return { embedder, paused, open };
}

describe('two index runs of one instance at once', () => {
  it('the second is refused while the first holds the lock, naming it; the index equals a clean run', async () => {
    const p = project(BEFORE);
    const first = await gated(p);
    const a = run(p, { embedder: first.embedder });
    await first.paused; // a has scanned and planned
    write(p, AFTER);
    const b = run(p);
    await expect(b).rejects.toThrow(IndexBusyError);
    await expect(b).rejects.toThrow(new RegExp(`index busy \\(pid ${process.pid} since \\d{4}-\\d\\d-\\d\\dT[^)]+\\): another index run of "demo"`));
    first.open();
    await a;
    // a indexed what it scanned, whole; the next run brings the edit in.
    expect(await contents(p)).toEqual(await clean(BEFORE));
    await run(p);
    expect(await contents(p)).toEqual(await clean({ ...BEFORE, ...AFTER }));
  });

  it('a run whose plan went stale (a writer that ignored the lock committed) is refused at commit and writes nothing', async () => {
    const p = project(BEFORE);
    const first = await gated(p);
    const a = run(p, { embedder: first.embedder });
    await first.paused;
    write(p, AFTER);
    // A writer that does not take the lock (another host on a shared cluster, an older cita).
    const { paths } = instance(p);
    await run(p, { lock: { file: paths.lock, holder: { pid: 0, host: 'elsewhere', since: '' }, release: () => undefined } });
    first.open();
    await expect(a).rejects.toThrow(IndexChangedError);
    await expect(a).rejects.toThrow(/changed while this run was planning.*Nothing was written; run `cita index demo` again/);
    expect(await contents(p)).toEqual(await clean({ ...BEFORE, ...AFTER }));
    // The lock was released on failure: the next run goes ahead.
    expect(fs.existsSync(paths.lock)).toBe(false);
  });

  it('two --rebuilds: the second is refused before it touches anything; the first swaps its index in', async () => {
    const p = project(BEFORE);
    await run(p);
    const { config, paths } = instance(p);
    const first = await gated(p);
    // The vector cache would spare the rebuild any embedding: a new file makes it embed (and pause).
    p.write('docs/new.md', '# New\n\nA page added before the rebuild.\n');
    const a = indexInstance({ config, paths, embedder: first.embedder, rebuild: true });
    await first.paused;
    const rebuilds = () => fs.readdirSync(path.dirname(paths.store)).filter((f) => f.startsWith('index.sqlite.rebuild')).sort();
    const building = rebuilds();
    expect(building.filter((f) => !/-(wal|shm)$/.test(f))).toHaveLength(1);
    await expect(indexInstance({ config, paths, embedder: await openEmbedder(config, paths), rebuild: true })).rejects.toThrow(IndexBusyError);
    expect(rebuilds()).toEqual(building);
    first.open();
    await a;
    expect(rebuilds()).toEqual([]);
    expect(await contents(p)).toEqual(await clean({ ...BEFORE, 'docs/new.md': '# New\n\nA page added before the rebuild.\n' }));
  });
});

describe('the index lock', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });
  const lockFile = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cita-lock-'));
    dirs.push(dir);
    return path.join(dir, 'index.sqlite.lock');
  };
  const holderFile = (file: string, holder: object) => fs.writeFileSync(file, JSON.stringify(holder));

  it('one holder at a time; released, it can be taken again', async () => {
    const file = lockFile();
    const lock = await acquireIndexLock(file, { instance: 'demo' });
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toMatchObject({ pid: process.pid, host: os.hostname(), instance: 'demo' });
    await expect(acquireIndexLock(file)).rejects.toThrow(`index busy (pid ${process.pid} since ${lock.holder.since})`);
    lock.release();
    expect(fs.existsSync(file)).toBe(false);
    (await acquireIndexLock(file)).release();
  });

  it('takes over a lock whose process is gone (a crashed run), and one naming our pid that we do not hold', async () => {
    const file = lockFile();
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    holderFile(file, { pid: gone, host: os.hostname(), since: '2020-01-01T00:00:00.000Z' });
    const lock = await acquireIndexLock(file);
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).pid).toBe(process.pid);
    lock.release();
    // In a container every run may be pid 1: a lock with our pid that this process did not take is a dead run's.
    holderFile(file, { pid: process.pid, host: os.hostname(), since: '2020-01-01T00:00:00.000Z' });
    (await acquireIndexLock(file)).release();
    expect(fs.existsSync(file)).toBe(false);
  });

  it('never takes over a lock from another host, and says how to clear it', async () => {
    const file = lockFile();
    holderFile(file, { pid: 4242, host: 'build-server-7', since: '2020-01-01T00:00:00.000Z' });
    await expect(acquireIndexLock(file)).rejects.toThrow(`index busy (pid 4242 on build-server-7 since 2020-01-01T00:00:00.000Z)`);
    await expect(acquireIndexLock(file)).rejects.toThrow(`delete ${file}`);
    fs.writeFileSync(file, 'not json');
    await expect(acquireIndexLock(file)).rejects.toThrow(`unreadable lock file ${file}`);
  });

  it('--wait: waits while a live process holds it, and takes it when that process ends', async () => {
    const file = lockFile();
    const holder = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    holderFile(file, { pid: holder.pid, host: os.hostname(), since: '2020-01-01T00:00:00.000Z' });
    expect(tryAcquireIndexLock(file)).toEqual({ busy: expect.objectContaining({ pid: holder.pid }) });
    const waitedFor: number[] = [];
    let waiting!: () => void;
    const started = new Promise<void>((resolve) => (waiting = resolve));
    const acquired = acquireIndexLock(file, {
      wait: true,
      pollMs: 20,
      onWait: (h) => {
        waitedFor.push(h.pid);
        waiting();
      },
    });
    await started;
    holder.kill('SIGKILL');
    await new Promise((resolve) => holder.on('exit', resolve));
    const lock = await acquired;
    expect(waitedFor).toEqual([holder.pid]);
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).pid).toBe(process.pid);
    lock.release();
  });

  it('release leaves alone a lock that is no longer ours', async () => {
    const file = lockFile();
    const lock = await acquireIndexLock(file);
    holderFile(file, { pid: 4242, host: 'build-server-7', since: '2020-01-01T00:00:00.000Z' });
    lock.release();
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).pid).toBe(4242);
  });
});
