import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Chunk } from '../pipeline/types.ts';
import { curlLine } from '../tools/start/curl.ts';
import { howToQuestion, pickHowTo, pickIssue, pickSymbol } from '../tools/start/examples.ts';
import type { TestProject } from './support/cli.ts';
import { root } from './support/paths.ts';
import { makeServedProject } from './support/server.ts';

/** `npm start` (tools/start.ts): answers through `cita ask`, then the server until Ctrl-C (#16 item 1). */

const chunk = (collection: Chunk['collection'], citation: Partial<Chunk['citation']>, text = ''): Chunk =>
  ({ id: Math.random().toString(36), collection, text, citation: { path: 'x', startLine: 1, endLine: 1, ...citation } }) as unknown as Chunk;

describe('example questions, from what the index holds', () => {
  it('phrases "How to" headings as questions and picks the shortest, else a generic how-to', () => {
    expect(howToQuestion('How to use fixtures')).toBe('How do I use fixtures?');
    expect(howToQuestion('Installing')).toBeUndefined();
    const docs = [chunk('docs', { headings: ['Guide', 'How to re-run failed tests and maintain state between test runs'] }), chunk('docs', { headings: ['How to run doctests'] })];
    expect(pickHowTo(docs)).toBe('How do I run doctests?');
    expect(pickHowTo([chunk('docs', { headings: ['Installing'] })])).toBe('How do I get started?');
  });

  it('picks the public function outside tests that the docs mention most, and the lowest issue number', () => {
    const code = [
      chunk('code', { path: 'src/a.py', symbol: 'parse_config' }),
      chunk('code', { path: 'src/a.py', symbol: 'load_file' }),
      chunk('code', { path: 'src/a.py', symbol: 'Loader.read_all' }),
      chunk('code', { path: 'src/a.py', symbol: '_private_helper' }),
      chunk('code', { path: 'testing/test_a.py', symbol: 'test_load_file' }),
    ];
    const docs = [chunk('docs', {}, 'Call load_file, then load_file again; parse_config once. _private_helper _private_helper _private_helper')];
    expect(pickSymbol(code, docs)).toBe('load_file');
    expect(pickSymbol(code, [])).toBe('load_file'); // ties: the shorter name
    expect(pickIssue([chunk('issues', { issue: 7432 }), chunk('issues', { issue: 5103 }), chunk('issues', { issue: 5103 })])).toBe(5103);
    expect(pickIssue([])).toBeUndefined();
  });

  it('prints a curl line a POSIX shell passes through unchanged, quotes included', () => {
    const line = curlLine('http://127.0.0.1:4000', 'demo', "What's `parse_config`?");
    const body = /-d ('.*')$/.exec(line)![1]!;
    const echoed = spawnSync('sh', ['-c', `printf %s ${body}`], { encoding: 'utf8' }).stdout;
    expect(JSON.parse(echoed).variables).toEqual({ q: "What's `parse_config`?" });
    expect(JSON.parse(echoed).query).toContain('ask(instance: "demo", question: $q)');
  });
});

describe('npm start on an indexed project', () => {
  let p: TestProject;
  let child: ChildProcess | undefined;
  beforeAll(() => {
    p = makeServedProject();
  });
  afterAll(() => {
    // A failed assertion leaves the server running: stop the whole group.
    if (child?.pid && child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    p?.cleanup();
  });

  it('indexes, asks one question per route through cita ask, serves with a working example query, and stops on Ctrl-C with exit 0', async () => {
    // Through npm, from cita's folder, as a user runs it; the project is the test's (CITA_ROOT). In a
    // process group of its own, so Ctrl-C can be sent as a terminal sends it: to npm, sh and node at once.
    child = spawn('npm', ['start', '--silent', '--', '--instance', 'demo', '--no-setup', '--port', '0'], {
      cwd: root,
      env: { ...process.env, CITA_ROOT: p.dir },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += String(d)));
    const exited = new Promise<number | null>((resolve) => child!.on('close', (code) => resolve(code)));
    const url = await new Promise<string>((resolve, reject) => {
      child!.stdout!.on('data', (d) => {
        stdout += String(d);
        const m = /^cita serving on (http:\/\/\S+)$/m.exec(stdout);
        if (m) resolve(m[1]!);
      });
      void exited.then((code) => reject(new Error(`start exited with ${code}: ${stderr}`)));
    });
    expect(stdout).toMatch(/^Indexed demo with /m);
    const asked = [...stdout.matchAll(/^\$ cita ask demo "(.+)" {4}# (\S+), (\w+)$/gm)].map((m) => [m[1], m[2], m[3]]);
    expect(asked).toEqual([
      ['How do I get started?', 'how-to', 'English'],
      ['¿Dónde está el bug del issue #42?', 'issue', 'Spanish'],
      ['What does `parse_config` do?', 'symbol', 'English'],
    ]);
    // Each answer is cita ask's own output: the route it took and its slots.
    expect(stdout.match(/^Route: /gm)).toHaveLength(3);
    expect(stdout).toMatch(/Route: issues .*language es/);
    expect(stdout).toMatch(/Route: code .*language en/);

    // The printed curl line's request, sent as it is.
    const curl = stdout.split('\n').find((l) => l.trim().startsWith('curl -s '))!;
    const body = spawnSync('sh', ['-c', `printf %s ${/-d ('.*')$/.exec(curl.trim())![1]}`], { encoding: 'utf8' }).stdout;
    expect(curl).toContain(`${url}/graphql`);
    const res = await fetch(`${url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const data = (await res.json()) as { data: { ask: { answer: { text: string }; route: { top: string } } } };
    expect(res.status).toBe(200);
    expect(data.data.ask.route.top).toBe('docs');
    expect((await fetch(`${url}/`)).status).toBe(200);

    process.kill(-child.pid!, 'SIGINT');
    expect(await exited).toBe(0);
    expect(stderr).toContain('shutting down');
  });
});
