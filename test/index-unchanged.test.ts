import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../pipeline/config/load.ts';
import { HashingEmbedder } from '../pipeline/embedding/hashing.ts';
import { indexInstance } from '../pipeline/index/indexInstance.ts';
import type { IndexSummary } from '../pipeline/index/indexer.ts';
import { FILES_META_KEY } from '../pipeline/index/fileManifest.ts';
import { openIndex, openStore, readMeta, resolvePaths } from '../pipeline/instance.ts';
import type { Embedder } from '../pipeline/types.ts';
import { makeProject, type TestProject } from './support/cli.ts';

/**
 * A no-change re-index does not chunk again (#16 item 4): files whose size, mtime and content hash
 * are those of the run that wrote the index keep their chunks without a token being counted; an
 * edited file, other chunking options or another model chunk again. Real indexing with the hashing
 * embedder; a wrapper counts the token counting that chunking does.
 */

const projects: TestProject[] = [];
afterEach(() => {
  for (const p of projects.splice(0)) p.cleanup();
});

const INSTANCE = 'name: demo\nrepository:\n  path: repo\nembedding:\n  provider: hashing\n';
const section = (name: string, words: string) => `## ${name}\n\n${`${words} `.repeat(8).trim()}\n`;
const FILES: Record<string, string> = {
  'docs/guide.md': `# Guide\n\n${section('Installing', 'Install the package with pip.')}\n${section('Skipping', 'Use the skip marker to skip a test.')}`,
  'docs/changelog.md': `# Changelog\n\n${Array.from({ length: 6 }, (_, i) => section(`Release ${i}`, `Release ${i} fixed bug ${i}.`)).join('\n')}`,
  'src/loader.py': 'def parse_config(path):\n    return {}\n\n\nclass Loader:\n    def load(self):\n        return parse_config("x")\n',
};

function project(files = FILES): TestProject {
  const p = makeProject();
  projects.push(p);
  p.setInstance(INSTANCE);
  for (const [rel, content] of Object.entries(files)) p.write(rel, content);
  return p;
}

/** The hashing embedder, counting the texts whose tokens it counts (what chunking costs); `id` to play another model. */
function counting(id?: string): Embedder & { counted: number } {
  const inner = new HashingEmbedder();
  const e = {
    id: id ?? inner.id,
    dims: inner.dims,
    window: inner.window,
    counted: 0,
    countTokens: (text: string) => {
      e.counted++;
      return inner.countTokens(text);
    },
    embedQueries: (texts: string[]) => inner.embedQueries(texts),
    embedPassages: (texts: string[]) => inner.embedPassages(texts),
    close: () => inner.close(),
  };
  return e;
}

async function index(p: TestProject, embedder = counting()) {
  const { config } = loadConfig('demo', { root: p.dir });
  const summary = await indexInstance({ config, paths: resolvePaths(config, p.dir), embedder });
  return { summary, counted: embedder.counted };
}

/** Every chunk of the index, as stored. */
async function contents(p: TestProject) {
  const { config } = loadConfig('demo', { root: p.dir });
  const store = await openStore(config, resolvePaths(config, p.dir), 384);
  try {
    return (await store.get(await store.ids())).sort((a, b) => (a.id < b.id ? -1 : 1));
  } finally {
    await store.close();
  }
}

/** A summary without its time. */
const stable = ({ seconds: _, ...s }: IndexSummary) => s;

describe('re-indexing unchanged files', () => {
  it('chunks nothing when nothing changed, and the index and summary are the same', async () => {
    const p = project();
    const first = await index(p);
    expect(first.counted).toBeGreaterThan(0);
    const before = await contents(p);

    const again = await index(p);
    expect(again.counted).toBe(0);
    expect(first.summary.plan.reusedFiles).toBe(0);
    expect(again.summary.plan.reusedFiles).toBe(3);
    expect(again.summary.plan).toMatchObject({ added: 0, removed: 0, embedded: 0 });
    expect(stable(again.summary)).toEqual({ ...stable(first.summary), plan: { ...first.summary.plan, added: 0, unchanged: first.summary.chunks, embedded: 0, fromCache: 0, reusedFiles: 3 } });
    expect(await contents(p)).toEqual(before);
    // The per-file record is the indexer's: readMeta (what the page polls) leaves it out.
    const { config } = loadConfig('demo', { root: p.dir });
    const paths = resolvePaths(config, p.dir);
    const store = await openIndex(config, paths);
    try {
      expect(Object.keys(await store.meta())).toContain(FILES_META_KEY);
    } finally {
      await store.close();
    }
    const meta = await readMeta(config, paths);
    expect(meta).toMatchObject({ model: 'hashing-384', dims: '384' });
    expect(Object.keys(meta)).not.toContain(FILES_META_KEY);
  });

  it('chunks an edited file again, and only it; the index is that of a fresh run', async () => {
    const p = project();
    await index(p);
    const edited = FILES['docs/guide.md']!.replace('skip marker', 'skipif marker');
    p.write('docs/guide.md', edited);
    const run = await index(p);
    expect(run.summary.plan.reusedFiles).toBe(2);
    expect(run.counted).toBeGreaterThan(0);
    expect(run.summary.plan.added).toBeGreaterThan(0);

    const fresh = project({ ...FILES, 'docs/guide.md': edited });
    await index(fresh);
    expect(await contents(p)).toEqual(await contents(fresh));
  });

  it('chunks again a file with the same content but another mtime', async () => {
    const p = project();
    await index(p);
    const file = path.join(p.repo, 'src/loader.py');
    const { mtime } = fs.statSync(file);
    fs.utimesSync(file, mtime, new Date(mtime.getTime() + 5000));
    const run = await index(p);
    expect(run.summary.plan.reusedFiles).toBe(2);
    expect(run.summary.plan.added).toBe(0);
  });

  it('chunks everything again when the chunking options or the model change', async () => {
    const p = project();
    await index(p);
    p.setInstance(`${INSTANCE}chunking:\n  maxTokens: 64\n`);
    const options = await index(p);
    expect(options.summary.plan.reusedFiles).toBe(0);
    expect(options.counted).toBeGreaterThan(0);

    const model = await index(p, counting('hashing-384-other'));
    expect(model.summary.plan.reusedFiles).toBe(0);
    expect(model.counted).toBeGreaterThan(0);
    expect(model.summary.plan.embedded).toBe(model.summary.chunks);
  });
});
