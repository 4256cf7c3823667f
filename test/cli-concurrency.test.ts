import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../pipeline/store/sqlite/sqliteStore.ts';
import { citaAsync, citaRun, makeProject, type TestProject } from './support/cli.ts';

/**
 * Two `cita index` processes on one instance (#11): the second fails at once naming the first
 * ("index busy (pid N since T)"), or with --wait runs after it; either way the index ends up equal
 * to a clean run's. The first run is held, deterministically, in its issues fetch: a local
 * GitHub-shaped server answers its first request only when the test says so (by then that run holds
 * the lock and has scanned the repository). Hashing embedder: no model needed. The CLI runs through
 * citaRun/citaAsync, never spawnSync, so the servers in this process keep answering.
 */

const ISSUE = {
  number: 7,
  title: 'Loader crashes on an empty file',
  body: 'parse_config raises on an empty JSON file instead of returning an empty dict.',
  state: 'open',
  labels: [],
  comments: 0,
  user: { login: 'reporter' },
  created_at: '2024-01-01T00:00:00Z',
  updated_at: '2024-01-01T00:00:00Z',
  html_url: 'https://github.com/acme/widgets/issues/7',
  id: 1007,
};

/** Answers every issue listing with ISSUE; holds the first request until `release()`. */
class HoldingGithub {
  readonly server = http.createServer((req, res) => {
    const answer = () => {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(req.url?.startsWith('/repos/acme/widgets/issues') ? [ISSUE] : []));
    };
    if (this.held) return answer();
    this.held = true;
    this.reached();
    void this.gate.then(answer);
  });
  held = false;
  private reached!: () => void;
  /** Resolves when the first request arrives (and is being held). */
  readonly firstRequest = new Promise<void>((resolve) => (this.reached = resolve));
  release!: () => void;
  private readonly gate = new Promise<void>((resolve) => (this.release = resolve));

  async url(): Promise<string> {
    if (!this.server.listening) await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
}

const section = (name: string, words: string) => `## ${name}\n\n${`${words} `.repeat(8).trim()}\n`;
const BEFORE: Record<string, string> = {
  'docs/guide.md': `# Guide\n\n${section('Installing', 'Install the package with pip.')}\n${section('Skipping', 'Use the skip marker to skip a test.')}`,
  'docs/old.md': `# Old\n\n${Array.from({ length: 12 }, (_, i) => section(`Part ${i}`, `Old part ${i} explains option ${i}.`)).join('\n')}`,
  'src/loader.py': 'def parse_config(path):\n    return {}\n',
};
/** One section of the guide edited, old.md deleted. */
const AFTER: Record<string, string | null> = {
  'docs/guide.md': `# Guide\n\n${section('Installing', 'Install the package with pip.')}\n${section('Skipping', 'Use skipif to skip a test on some platforms only.')}`,
  'docs/old.md': null,
};

const projects: TestProject[] = [];
const servers: http.Server[] = [];
afterEach(() => {
  for (const p of projects.splice(0)) p.cleanup();
  for (const s of servers.splice(0)) s.close();
});

/** A project over `files` whose issues come from `github` (an always-answering one for clean runs). */
function project(files: Record<string, string | null>, githubUrl: string): TestProject {
  const p = makeProject();
  projects.push(p);
  p.setInstance(
    [
      'name: demo',
      'repository:',
      '  path: repo',
      '  github: acme/widgets',
      'sources:',
      '  issues:',
      '    kind: github',
      `    baseUrl: ${githubUrl}`,
      'embedding:',
      '  provider: hashing',
      '',
    ].join('\n'),
  );
  write(p, files);
  return p;
}

function write(p: TestProject, files: Record<string, string | null>): void {
  for (const [rel, content] of Object.entries(files)) {
    if (content === null) p.remove(rel);
    else p.write(rel, content);
  }
}

/** Every chunk's id and text, sorted. */
async function contents(p: TestProject): Promise<string[]> {
  const store = SqliteStore.open(path.join(p.dir, '.cita/demo/index.sqlite'), { dims: 384 });
  try {
    return (await store.get(await store.ids())).map((c) => `${c.id} ${c.text}`).sort();
  } finally {
    await store.close();
  }
}

let answering: HoldingGithub;
let answeringUrl: string;
beforeAll(async () => {
  answering = new HoldingGithub();
  answering.held = true; // never holds
  answeringUrl = await answering.url();
});
afterAll(() => answering.server.close());

/** The index one run makes of these files in a fresh project. */
async function clean(files: Record<string, string | null>): Promise<string[]> {
  const p = project(Object.fromEntries(Object.entries(files).filter(([, v]) => v !== null)), answeringUrl);
  const r = await citaRun(p, ['index', 'demo']);
  expect(r.code, r.stderr).toBe(0);
  return contents(p);
}

/** A project whose first `cita index` is started and held in its issues fetch; the repository is then edited. */
async function heldRun() {
  const github = new HoldingGithub();
  servers.push(github.server);
  const p = project(BEFORE, await github.url());
  const first = citaAsync(p, ['index', 'demo']);
  let stderr = '';
  first.stderr.on('data', (d) => (stderr += String(d)));
  const exit = new Promise<number | null>((resolve) => first.on('close', resolve));
  await Promise.race([github.firstRequest, exit.then(() => Promise.reject(new Error(`the first run ended before fetching issues: ${stderr}`)))]);
  write(p, AFTER);
  return {
    p,
    pid: first.pid!,
    finish: async () => {
      github.release();
      return { code: await exit, stderr };
    },
  };
}

describe('two `cita index` processes on one instance', () => {
  it('the second fails at once, naming the first; the index equals a clean run of what the first scanned', async () => {
    const first = await heldRun();
    const second = await citaRun(first.p, ['index', 'demo']);
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(new RegExp(`^cita: index busy \\(pid ${first.pid} since \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\): another index run of "demo"`));
    expect(second.stderr).toContain('--wait');
    const done = await first.finish();
    expect(done.code, done.stderr).toBe(0);
    expect(await contents(first.p)).toEqual(await clean(BEFORE));
    // The next run brings the edit in, as a clean run of the edited repository would.
    expect((await citaRun(first.p, ['index', 'demo'])).code).toBe(0);
    expect(await contents(first.p)).toEqual(await clean({ ...BEFORE, ...AFTER }));
  }, 300_000);

  it('with --wait the second waits for the first, then indexes; the index equals a clean run', async () => {
    const first = await heldRun();
    const second = citaAsync(first.p, ['index', 'demo', '--wait']);
    let stderr = '';
    second.stderr.on('data', (d) => (stderr += String(d)));
    const secondExit = new Promise<number | null>((resolve) => second.on('close', resolve));
    await new Promise<void>((resolve, reject) => {
      second.stderr.on('data', () => {
        if (stderr.includes('waiting for it to end')) resolve();
      });
      void secondExit.then(() => reject(new Error(`the second run ended without waiting: ${stderr}`)));
    });
    expect(stderr).toContain(`index busy (pid ${first.pid} since `);
    const done = await first.finish();
    expect(done.code, done.stderr).toBe(0);
    expect(await secondExit, stderr).toBe(0);
    expect(await contents(first.p)).toEqual(await clean({ ...BEFORE, ...AFTER }));
  }, 300_000);
});
