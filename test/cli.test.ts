import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cita, citaAsync, makeProject, type TestProject } from './support/cli.ts';

/** End-to-end through the real CLI, the real model and a real SQLite file. */

const GUIDE = `# Guide

## Installing

Install the package with pip. Then run the command line tool from any folder.

## Skipping tests

Use the skip marker to skip a test unconditionally. Use skipif with a condition to skip a test only on
some platforms, for example on Windows. Skipped tests are reported in the summary.
`;

const CONFIG_PY = `"""Reading configuration files."""
import json


def parse_config(path):
    """Read a JSON configuration file and return a dict."""
    with open(path) as fh:
        return json.load(fh)


class Registry:
    def register(self, name, plugin):
        self.plugins[name] = plugin
`;

function summary(stdout: string): Record<string, any> {
  return JSON.parse(stdout);
}

describe('cita index and search', () => {
  let p: TestProject;
  beforeAll(() => {
    p = makeProject();
    p.write('docs/guide.md', GUIDE);
    p.write('src/config.py', CONFIG_PY);
    p.write('src/latin1.py', Buffer.from('# caf\xe9\nx = 1\n', 'latin1'));
    p.write('src/blob.py', Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x00, 0x01]));
  });
  afterAll(() => p.cleanup());

  it('indexes docs and code, reports skipped files with reasons, and nothing over the window', () => {
    const r = cita(p, ['index', 'demo', '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const s = summary(r.stdout);
    expect(s.files).toBe(2);
    expect(s.collections.docs.chunks).toBeGreaterThanOrEqual(2);
    expect(s.collections.code.chunks).toBeGreaterThanOrEqual(2);
    expect(s.truncated).toBe(0);
    expect(s.largestTokens).toBeLessThanOrEqual(512);
    expect(s.skipped).toEqual({ 'not-utf8': 1, binary: 1 });
    expect(s.plan.embedded).toBe(s.chunks);
  });

  it('finds the right section in English and in Spanish, with citations', () => {
    for (const [q, language] of [['how do I skip a test on Windows', 'en'], ['¿Cómo omito un test en Windows?', 'es']]) {
      const r = cita(p, ['search', 'demo', q!, '--source', 'docs', '--k', '1', '--json']);
      expect(r.code).toBe(0);
      const out = JSON.parse(r.stdout);
      expect(out.language).toBe(language);
      expect(out.translation?.text === undefined).toBe(language === 'en');
      const top = out.results.docs[0];
      expect(top.chunk.citation.path).toBe('docs/guide.md');
      expect(top.chunk.citation.headings).toEqual(['Guide', 'Skipping tests']);
      expect(top.chunk.text).toContain('skipif');
    }
  });

  it('matches parts of identifiers with BM25 alone', () => {
    const r = cita(p, ['search', 'demo', 'config parse', '--source', 'code', '--alpha', '0', '--json']);
    const top = JSON.parse(r.stdout).results.code[0];
    expect(top.chunk.citation.symbol).toBe('parse_config');
    expect(top.chunk.citation.startLine).toBe(5);
  });

  it('re-indexes incrementally: unchanged chunks keep their vectors, changes and deletions apply', () => {
    const again = summary(cita(p, ['index', 'demo', '--json']).stdout);
    expect(again.plan).toMatchObject({ added: 0, removed: 0, embedded: 0 });

    p.write('src/extra.py', 'def shiny_new_function():\n    return 42\n');
    p.remove('docs/guide.md');
    const changed = summary(cita(p, ['index', 'demo', '--json']).stdout);
    expect(changed.plan.added).toBe(1);
    expect(changed.plan.removed).toBeGreaterThanOrEqual(2);
    expect(changed.plan.embedded).toBe(1);
    const docs = cita(p, ['search', 'demo', 'skip a test', '--json']);
    expect(JSON.parse(docs.stdout).results.docs).toBeUndefined();
    const code = JSON.parse(cita(p, ['search', 'demo', 'shiny_new_function', '--source', 'code', '--json']).stdout);
    expect(code.results.code[0].chunk.citation.path).toBe('src/extra.py');
  });

  it('rebuilds a damaged index from scratch, reusing cached vectors', () => {
    const file = path.join(p.dir, '.cita/demo/index.sqlite');
    fs.writeFileSync(file, 'this is not a database');
    const broken = cita(p, ['search', 'demo', 'parse_config']);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain('--rebuild');
    const r = cita(p, ['index', 'demo', '--rebuild', '--json']);
    expect(r.code).toBe(0);
    const s = summary(r.stdout);
    expect(s.plan.added).toBe(s.chunks);
    expect(s.plan.embedded).toBe(0);
    expect(fs.existsSync(`${file}.rebuild`)).toBe(false);
    const hit = JSON.parse(cita(p, ['search', 'demo', 'parse_config', '--source', 'code', '--json']).stdout).results.code[0];
    expect(hit.chunk.citation.symbol).toBe('parse_config');
  });

  it('plans without writing on --dry-run', () => {
    p.write('src/dry.py', 'def dry_run_only():\n    pass\n');
    const dry = summary(cita(p, ['index', 'demo', '--dry-run', '--json']).stdout);
    expect(dry.dryRun).toBe(true);
    expect(dry.plan.added).toBe(1);
    const code = JSON.parse(cita(p, ['search', 'demo', 'dry_run_only', '--source', 'code', '--alpha', '0', '--json']).stdout);
    expect(code.results.code.some((h: any) => h.chunk.citation.path === 'src/dry.py')).toBe(false);
  });
});

describe('bad input: clear message, non-zero exit, nothing corrupted', () => {
  let p: TestProject;
  beforeAll(() => {
    p = makeProject();
  });
  afterAll(() => p.cleanup());

  it('names a missing instance', () => {
    const r = cita(p, ['index', 'nope']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^cita: no instance "nope"/);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('points at the bad line of an invalid config', () => {
    p.setInstance('name: broken\nrepository:\n  path: repo\nchunking:\n  maxTokens: -3\n', 'broken');
    const r = cita(p, ['index', 'broken']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('broken.yaml:5: chunking.maxTokens');
  });

  it('refuses an empty repository without creating an index', () => {
    const r = cita(p, ['index', 'demo']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no files to index');
    expect(fs.existsSync(path.join(p.dir, '.cita/demo/index.sqlite'))).toBe(false);
  });

  it('says how to build an index before searching', () => {
    const r = cita(p, ['search', 'demo', 'anything']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('run `cita index demo`');
  });

  it('rejects bad options with usage', () => {
    const r = cita(p, ['search', 'demo', 'q', '--k', 'zero']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('expected an integer');
  });
});

describe('--dry-run writes nothing', () => {
  let p: TestProject;
  beforeAll(() => {
    p = makeProject();
    // The hashing embedder: no model files, so nothing but the index could create a folder.
    p.setInstance(`name: demo\nrepository:\n  path: repo\nembedding:\n  provider: hashing\n`);
    p.write('docs/guide.md', GUIDE);
    p.write('src/config.py', CONFIG_PY);
  });
  afterAll(() => p.cleanup());

  it('plans a fresh instance without creating the index, its folder or the vector cache', () => {
    const r = cita(p, ['index', 'demo', '--dry-run', '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const s = summary(r.stdout);
    expect(s.dryRun).toBe(true);
    expect(s.plan.added).toBe(s.chunks);
    expect(s.plan).toMatchObject({ removed: 0, fromCache: 0, embedded: s.chunks });
    expect(fs.existsSync(path.join(p.dir, '.cita'))).toBe(false);
  });

  it('plans against an existing index and cache without changing them', () => {
    expect(cita(p, ['index', 'demo']).code).toBe(0);
    const dir = path.join(p.dir, '.cita/demo');
    const before = fs.readdirSync(dir).sort();
    const bytes = fs.readFileSync(path.join(dir, 'index.sqlite'));
    p.write('src/dry.py', 'def dry_run_only():\n    pass\n');
    const s = summary(cita(p, ['index', 'demo', '--dry-run', '--json']).stdout);
    expect(s.plan).toMatchObject({ added: 1, removed: 0, fromCache: 0, embedded: 1 });
    expect(fs.readdirSync(dir).sort()).toEqual(before);
    expect(fs.readFileSync(path.join(dir, 'index.sqlite')).equals(bytes)).toBe(true);
  });
});

describe('kill -9 during indexing', () => {
  let p: TestProject;
  beforeAll(() => {
    p = makeProject();
    p.write('docs/first.md', '# First\n\nThe first version of the documentation talks about fixtures.\n');
  });
  afterAll(() => p.cleanup());

  it('leaves the previous index usable, and the next run completes reusing the vectors already paid for', async () => {
    expect(cita(p, ['index', 'demo']).code).toBe(0);
    // Enough new text to keep the model busy for several seconds.
    for (let i = 0; i < 40; i++) {
      const body = Array.from({ length: 12 }, (_, j) => `Paragraph ${j} of page ${i} explains option number ${i * 100 + j} in detail.`).join('\n\n');
      p.write(`docs/page${i}.md`, `# Page ${i}\n\n## Part A\n\n${body}\n\n## Part B\n\n${body}\n`);
    }
    const child = citaAsync(p, ['index', 'demo']);
    let stderr = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`never reached embedding: ${stderr}`)), 120_000);
      child.stderr.on('data', (d) => {
        stderr += String(d);
        if (/embedding: [1-9]\d*\//.test(stderr)) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.on('exit', () => reject(new Error(`exited before the kill: ${stderr}`)));
    });
    child.kill('SIGKILL');
    await new Promise((r) => child.on('close', r));

    // The old index answers, and holds only the old content.
    const old = cita(p, ['search', 'demo', 'fixtures', '--json']);
    expect(old.code).toBe(0);
    const hits = JSON.parse(old.stdout).results.docs;
    expect(hits.map((h: any) => h.chunk.citation.path)).toEqual(['docs/first.md']);

    const rerun = cita(p, ['index', 'demo', '--json']);
    expect(rerun.code).toBe(0);
    const s = summary(rerun.stdout);
    expect(s.plan.fromCache).toBeGreaterThan(0);
    expect(s.plan.embedded + s.plan.fromCache).toBe(s.plan.added);
    const after = JSON.parse(cita(p, ['search', 'demo', 'option number 3905', '--alpha', '0', '--json']).stdout);
    expect(after.results.docs[0].chunk.citation.path).toBe('docs/page39.md');
  }, 600_000);
});

describe('output through a slow pipe', () => {
  let p: TestProject;
  beforeAll(() => {
    p = makeProject();
    // The hashing embedder: no model needed to make an index whose JSON runs past a pipe's 64 KiB.
    p.setInstance(`name: demo\nrepository:\n  path: repo\nembedding:\n  provider: hashing\nsources:\n  docs:\n    include: ["docs/**/*.md"]\n`);
    for (let i = 0; i < 60; i++) {
      p.write(`docs/page${i}.md`, `# Page ${i}\n\n## Running tests\n\n${'Tests run with the test runner, which reports every test it runs. '.repeat(20)}\n`);
    }
    expect(cita(p, ['index', 'demo']).code).toBe(0);
  });
  afterAll(() => p.cleanup());

  it('arrives whole when the reader is slower than the CLI (nothing cut at 64 KiB)', () => {
    const bin = path.resolve(import.meta.dirname, '../bin/cita.mjs');
    const r = spawnSync('sh', ['-c', `"${process.execPath}" "${bin}" search demo "running tests" --source docs --k 100 --json | (sleep 2; cat)`], {
      cwd: p.dir,
      env: { ...process.env, CITA_ROOT: p.dir },
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    expect(r.status).toBe(0);
    expect(r.stdout.length).toBeGreaterThan(64 * 1024);
    expect(JSON.parse(r.stdout).results.docs.length).toBeGreaterThan(50);
  });

  it('stops quietly, exit 0, when the reader closes the pipe early', () => {
    const bin = path.resolve(import.meta.dirname, '../bin/cita.mjs');
    const r = spawnSync('bash', ['-c', `"${process.execPath}" "${bin}" search demo "running tests" --source docs --k 100 --json | head -c 100 > /dev/null; echo "exit \${PIPESTATUS[0]}"`], {
      cwd: p.dir,
      env: { ...process.env, CITA_ROOT: p.dir },
      encoding: 'utf8',
    });
    expect(r.stdout.trim()).toBe('exit 0');
    expect(r.stderr).toBe('');
  });
});
