import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../pipeline/config/load.ts';
import { indexInstance } from '../pipeline/index/indexInstance.ts';
import { VectorCache } from '../pipeline/index/vectorCache.ts';
import { resolvePaths } from '../pipeline/instance.ts';
import { makeProject, type TestProject } from './support/cli.ts';
import { recordingEmbedder } from './support/recordingEmbedder.ts';

/**
 * Never paying twice for a vector (#14 item 5): vectors outlive their chunks (a file excluded and
 * included again is not embedded again), every instance of a checkout shares them, and the cache is
 * bounded by size, least recently used first. Real indexing with the hashing embedder; a wrapper
 * counts the texts it is asked to embed.
 */

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

const INSTANCE = 'name: demo\nrepository:\n  path: repo\nembedding:\n  provider: hashing\n';
const section = (name: string, words: string) => `## ${name}\n\n${`${words} `.repeat(8).trim()}\n`;
const FILES: Record<string, string> = {
  'docs/guide.md': `# Guide\n\n${section('Installing', 'Install the package with pip.')}\n${section('Skipping', 'Use the skip marker to skip a test.')}`,
  'docs/changelog.md': `# Changelog\n\n${Array.from({ length: 12 }, (_, i) => section(`Release ${i}`, `Release ${i} fixed bug ${i} in option ${i}.`)).join('\n')}`,
  'src/loader.py': 'def parse_config(path):\n    return {}\n',
};

function project(): TestProject {
  const p = makeProject();
  cleanups.push(() => p.cleanup());
  p.setInstance(INSTANCE);
  for (const [rel, content] of Object.entries(FILES)) p.write(rel, content);
  return p;
}

async function index(p: TestProject, name = 'demo', embedder = recordingEmbedder()) {
  const { config } = loadConfig(name, { root: p.dir });
  const summary = await indexInstance({ config, paths: resolvePaths(config, p.dir), embedder });
  return { summary, embedded: embedder.batches.flat() };
}

describe('the vector cache across config changes', () => {
  it('a file excluded and included again is not embedded again', async () => {
    const p = project();
    const first = await index(p);
    expect(first.summary.plan.embedded).toBeGreaterThan(12);

    p.setInstance(`${INSTANCE}sources:\n  exclude: ["docs/changelog.md"]\n`);
    const excluded = await index(p);
    expect(excluded.summary.plan.removed).toBeGreaterThanOrEqual(12);
    expect(excluded.embedded).toEqual([]);

    p.setInstance(INSTANCE);
    const again = await index(p);
    expect(again.summary.plan.added).toBe(excluded.summary.plan.removed);
    expect(again.summary.plan.fromCache).toBe(again.summary.plan.added);
    expect(again.summary.plan.embedded).toBe(0);
    expect(again.embedded).toEqual([]);
  });

  it('is shared by the instances of one checkout', async () => {
    const p = project();
    await index(p);
    p.setInstance(INSTANCE.replace('name: demo', 'name: other'), 'other');
    const other = await index(p, 'other');
    expect(other.summary.plan.added).toBeGreaterThan(12);
    expect(other.summary.plan.fromCache).toBe(other.summary.plan.added);
    expect(other.embedded).toEqual([]);
  });

  it("takes over an older cita's per-instance cache instead of embedding again", async () => {
    const p = project();
    await index(p);
    const { config } = loadConfig('demo', { root: p.dir });
    const paths = resolvePaths(config, p.dir);
    // The layout before: the same vectors in `.cita/demo/vectors.sqlite`, without `used`.
    const old = new Database(paths.legacyVectorCache!);
    old.exec('CREATE TABLE vectors (model TEXT NOT NULL, hash TEXT NOT NULL, vector BLOB NOT NULL, PRIMARY KEY (model, hash))');
    old.prepare('ATTACH DATABASE ? AS shared').run(paths.vectorCache);
    old.exec('INSERT INTO main.vectors SELECT model, hash, vector FROM shared.vectors');
    old.exec('DETACH DATABASE shared');
    old.close();
    fs.rmSync(paths.vectorCache);
    fs.rmSync(paths.store);

    const again = await index(p);
    expect(again.summary.plan.fromCache).toBe(again.summary.plan.added);
    expect(again.embedded).toEqual([]);
    expect(fs.existsSync(paths.legacyVectorCache!)).toBe(false);
  });
});

describe('VectorCache bound', () => {
  function cache(maxBytes: number) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cita-vcache-'));
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    let clock = 0;
    const c = VectorCache.open(path.join(dir, 'vectors.sqlite'), { maxBytes, now: () => ++clock });
    cleanups.push(() => c.close());
    return c;
  }
  const v = (x: number) => Float32Array.of(x, x, x, x); // 16 bytes

  it('evicts the least recently used vectors past maxBytes, any model', () => {
    const c = cache(3 * 16);
    c.putMany('m1', [{ hash: 'a', vector: v(1) }]);
    c.putMany('m2', [{ hash: 'b', vector: v(2) }]);
    c.putMany('m1', [{ hash: 'c', vector: v(3) }]);
    c.putMany('m1', [{ hash: 'd', vector: v(4) }]);
    c.touch('m1', ['a']); // used again: now the newest
    expect(c.evict()).toBe(1);
    expect(c.get('m2', 'b')).toBeUndefined();
    expect([c.get('m1', 'a'), c.get('m1', 'c'), c.get('m1', 'd')].map((x) => x?.[0])).toEqual([1, 3, 4]);
    expect(c.count()).toBe(3);
  });

  it('keeps everything within the bound', () => {
    const c = cache(1024);
    c.putMany('m1', [1, 2, 3].map((x) => ({ hash: String(x), vector: v(x) })));
    expect(c.evict()).toBe(0);
    expect(c.count()).toBe(3);
  });
});
