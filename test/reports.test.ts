import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listReports, reportFile, verdictOf } from '../api/reports.ts';
import { makeProject, type TestProject } from './support/cli.ts';
import { root } from './support/paths.ts';
import { copyReports } from './support/reports.ts';
import { serve, type Served } from './support/server.ts';

/** The reports view's server side (#16 item 2): the list with verdicts, the files read-only, no way out of reports/. */

describe('report list', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cita-reports-'));
    copyReports(dir);
    fs.writeFileSync(path.join(dir, 'reports/broken.json'), '{ not json');
    fs.writeFileSync(path.join(dir, 'reports/notes.txt'), 'not a report');
    fs.writeFileSync(path.join(dir, 'secret.json'), '{"token":"x"}');
    fs.symlinkSync(path.join(dir, 'secret.json'), path.join(dir, 'reports/escape.json'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('lists each report once with its verdict, the baseline first, then the newest', () => {
    const list = listReports(path.join(dir, 'reports'));
    expect(list.map((r) => r.name)).toEqual(['baseline', 'ab-fusion', 'test-pytest-crosslingual', 'visible-vs-baseline', 'broken']);
    const by = Object.fromEntries(list.map((r) => [r.name, r]));
    expect(by.baseline).toMatchObject({ kind: 'run', verdict: 'baseline', status: 'none', instance: 'pytest', files: ['html', 'md', 'json'] });
    expect(by['visible-vs-baseline']).toMatchObject({ kind: 'nightly', verdict: 'FAIL (4 regressions)', status: 'fail', files: ['md', 'json'] });
    // ab-fusion has a primary family (12 comparisons): those are counted, not the exploratory table.
    expect(by['ab-fusion']).toMatchObject({ kind: 'ab', verdict: 'B better on 0, worse on 2, same on 10 (primary metrics)', status: 'worse' });
    // test-pytest-crosslingual predates primary families: its comparisons over all questions are counted.
    expect(by['test-pytest-crosslingual']).toMatchObject({ kind: 'ab', verdict: 'B better on 4, worse on 1, same on 12 (all questions)' });
    expect(by.broken).toMatchObject({ kind: 'unknown', verdict: 'run' });
  });

  it('reads a nightly PASS and an A/B primary family', () => {
    expect(verdictOf('n', { kind: 'nightly', verdict: { status: 'pass', regressions: [] } })).toEqual({ verdict: 'PASS', status: 'pass' });
    const primary = [{ verdict: 'better' }, { verdict: 'same' }];
    expect(verdictOf('x', { kind: 'ab', primary, comparisons: [{ verdict: 'worse', group: {} }] })).toEqual({ verdict: 'B better on 1, worse on 0, same on 1 (primary metrics)', status: 'better' });
  });

  it.each([
    ['baseline.html', true],
    ['baseline.md', true],
    ['ab-fusion.json', true],
    ['notes.txt', false],
    ['missing.html', false],
    ['..%2Fsecret.json', false],
    ['../secret.json', false],
    ['%2e%2e%2fsecret.json', false],
    ['escape.json', false],
    ['.hidden.json', false],
    ['%E0%A4%A', false],
  ])('serves %s: %s', (name, ok) => {
    expect(reportFile(path.join(dir, 'reports'), name) !== undefined).toBe(ok);
  });
});

describe('reports over HTTP', () => {
  let p: TestProject;
  let s: Served;
  beforeAll(async () => {
    p = makeProject();
    copyReports(p.dir);
    fs.writeFileSync(path.join(p.dir, 'secret.json'), '{"token":"x"}');
    s = await serve(p);
  });
  afterAll(async () => {
    await s?.stop();
    p?.cleanup();
  });

  it('lists the reports and serves each file read-only, the HTML framable by the page only and without scripts', async () => {
    const list = await fetch(`${s.url}/api/reports`);
    expect(list.status).toBe(200);
    const body = (await list.json()) as { reports: { name: string; verdict: string }[] };
    expect(body.reports.map((r) => r.name)).toContain('ab-fusion');
    const html = await fetch(`${s.url}/reports/baseline.html`);
    expect(html.status).toBe(200);
    expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(html.headers.get('content-security-policy')).toMatch(/frame-ancestors 'self'.*sandbox/);
    expect(await html.text()).toBe(fs.readFileSync(path.join(root, 'reports/baseline.html'), 'utf8'));
    expect((await fetch(`${s.url}/reports/baseline.md`)).headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect((await fetch(`${s.url}/reports/baseline.html`, { method: 'POST' })).status).toBe(404);
  });

  it.each(['/reports/..%2Fsecret.json', '/reports/%2e%2e%2fsecret.json', '/reports/..%5Csecret.json', '/reports/config%2Fdefaults.yaml', '/reports/nothing.html', '/reports/'])(
    'refuses %s with 404',
    async (url) => {
      const res = await fetch(`${s.url}${url}`);
      expect(res.status).toBe(404);
      expect(await res.text()).not.toContain('token');
    },
  );

  it('puts the reports behind the key when queries need it', async () => {
    const keyed = await serve(p, ['--require-key'], { CITA_API_KEY: 'k3y' });
    try {
      expect((await fetch(`${keyed.url}/api/reports`)).status).toBe(401);
      expect((await fetch(`${keyed.url}/reports/baseline.html`)).status).toBe(401);
      expect((await fetch(`${keyed.url}/reports/baseline.md`, { headers: { authorization: 'Bearer k3y' } })).status).toBe(200);
    } finally {
      await keyed.stop();
    }
  });
});
