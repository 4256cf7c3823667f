import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cita, citaRun, makeProject, type TestProject } from './support/cli.ts';
import { FakeGithub, githubTime, type GhIssue } from './support/fakeGithub.ts';
import { modelDir, sharedDatasets } from './support/paths.ts';

/** Issues end to end: the CLI, the real Octokit client, a GitHub-shaped server on 127.0.0.1, the real model. */

const REPO = 'acme/widgets';
const TOKEN = 'ghp_cli0test0token0000000000000000000000';

function issue(n: number, title: string, body: string, comments = 0): GhIssue {
  const t = githubTime(new Date(Date.UTC(2024, 0, n)));
  return {
    number: n,
    title,
    body,
    state: 'open',
    labels: [],
    user: { login: `user${n}` },
    comments,
    created_at: t,
    updated_at: t,
    html_url: `https://github.com/${REPO}/issues/${n}`,
    url: `https://api.github.com/repos/${REPO}/issues/${n}`,
    id: 1000 + n,
  };
}

function comment(issueNumber: number, id: number, body: string) {
  return {
    id,
    body,
    user: { login: 'helper' },
    created_at: githubTime(new Date(Date.UTC(2024, 2, 1))),
    updated_at: githubTime(new Date(Date.UTC(2024, 2, 1))),
    html_url: `https://github.com/${REPO}/issues/${issueNumber}#issuecomment-${id}`,
    issue_url: `https://api.github.com/repos/${REPO}/issues/${issueNumber}`,
  };
}

const issueNumbers = (stdout: string): number[] =>
  [...new Set<number>((JSON.parse(stdout).results.issues ?? []).map((h: any) => h.chunk.citation.issue as number))].sort((a, b) => a - b);

describe('cita index with the GitHub issues source', () => {
  let fake: FakeGithub;
  let p: TestProject;
  const env = { GITHUB_TOKEN: TOKEN };

  beforeAll(async () => {
    fake = await FakeGithub.start({ token: TOKEN });
    fake.addRepo(
      REPO,
      [
        issue(1, 'Crash when the config file is empty', 'Loading an empty YAML file raises a TypeError in the loader.'),
        issue(2, 'Add a dark theme', 'The web page should follow the system dark mode setting.', 1),
        issue(3, 'Typo in the README', 'The install section says pip instal.'),
      ],
      { 2: [comment(2, 501, 'A first draft of the palette is in the design folder.')] },
    );
    p = makeProject();
    p.write('docs/index.md', '# Widgets\n\nWidgets are small reusable parts.\n');
    p.setInstance(
      [
        'name: demo',
        'repository:',
        '  path: repo',
        `  github: ${REPO}`,
        'sources:',
        '  issues:',
        '    kind: github',
        `    baseUrl: ${fake.baseUrl}`,
        'embedding:',
        `  dir: ${path.dirname(modelDir)}`,
        '',
      ].join('\n'),
    );
  });
  afterAll(async () => {
    p.cleanup();
    await fake.close();
  });

  it('indexes every issue and comment, each citable; `cita issue` prints them', async () => {
    const r = await citaRun(p, ['index', 'demo', '--json'], env);
    expect(r.code).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.collections.issues).toMatchObject({ files: 3, chunks: 4 });
    expect(r.stderr).not.toContain(TOKEN);

    const shown = await citaRun(p, ['issue', 'demo', '#2', '--json']);
    const chunks = JSON.parse(shown.stdout);
    expect(chunks.map((c: any) => c.citation.commentId ?? null)).toEqual([null, 501]);
    expect(chunks[1].citation.url).toBe(`https://github.com/${REPO}/issues/2#issuecomment-501`);
    expect(chunks[1].text).toContain('comment by helper');

    const found = await citaRun(p, ['search', 'demo', 'empty configuration file crashes', '--source', 'issues', '--k', '1', '--json']);
    expect(issueNumbers(found.stdout)).toEqual([1]);
  });

  it('updates incrementally: a new comment is indexed, a deleted issue removed, the rest kept', async () => {
    fake.addComment(REPO, 2, comment(2, 502, 'Contrast ratios are now checked automatically.'));
    fake.deleteIssue(REPO, 3);
    const r = await citaRun(p, ['index', 'demo', '--json'], env);
    expect(r.code).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.collections.issues).toMatchObject({ files: 2, chunks: 4 });
    // Issue 2 was re-fetched and re-chunked, but its body chunk is unchanged: only the new comment is new.
    expect(s.plan.added).toBe(1);
    expect(s.plan.removed).toBe(1);
    const gone = await citaRun(p, ['issue', 'demo', '3']);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('issue #3 is not indexed');
    const two = JSON.parse((await citaRun(p, ['issue', 'demo', '2', '--json'])).stdout);
    expect(two.map((c: any) => c.citation.commentId ?? null)).toEqual([null, 501, 502]);
    const one = JSON.parse((await citaRun(p, ['issue', 'demo', '1', '--json'])).stdout);
    expect(one).toHaveLength(1);
  });

  it('a network failure midway leaves the index as it was, and the next run completes', async () => {
    fake.addComment(REPO, 1, comment(1, 601, 'Reproduced with an empty file on Linux too.'));
    fake.failFrom({ kind: 'network' }, 1);
    const failed = await citaRun(p, ['index', 'demo'], env);
    fake.recover();
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/index was left unchanged/i);
    const before = JSON.parse((await citaRun(p, ['issue', 'demo', '1', '--json'])).stdout);
    expect(before).toHaveLength(1);

    const r = await citaRun(p, ['index', 'demo', '--json'], env);
    expect(r.code).toBe(0);
    const after = JSON.parse((await citaRun(p, ['issue', 'demo', '1', '--json'])).stdout);
    expect(after.map((c: any) => c.citation.commentId ?? null)).toEqual([null, 601]);
  });

  it('a bad token gets a clear message and changes nothing', async () => {
    const r = await citaRun(p, ['index', 'demo'], { GITHUB_TOKEN: 'ghp_wrong0000000000000000000000000000000' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/GITHUB_TOKEN.*401|401.*GITHUB_TOKEN/s);
    expect(r.stderr).not.toContain('ghp_wrong');
    const two = JSON.parse((await citaRun(p, ['issue', 'demo', '2', '--json'])).stdout);
    expect(two).toHaveLength(3);
  });
});

describe('the pytest issues export', () => {
  let p: TestProject;
  beforeAll(() => {
    p = makeProject();
    p.write('README.md', '# A repository whose knowledge lives in its issues\n');
    p.setInstance(
      [
        'name: demo',
        'repository:',
        '  path: repo',
        'sources:',
        '  issues:',
        '    kind: file',
        `    file: ${path.join(sharedDatasets, 'pytest/issues.json')}`,
        'embedding:',
        `  dir: ${path.dirname(modelDir)}`,
        '',
      ].join('\n'),
    );
  });
  afterAll(() => p.cleanup());

  it('indexes all 17 issues; search by an issue text finds it; lookup by number returns it', () => {
    const r = cita(p, ['index', 'demo', '--json']);
    expect(r.code).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.collections.issues.files).toBe(17);
    expect(s.truncated).toBe(0);

    const issues = JSON.parse(fs.readFileSync(path.join(sharedDatasets, 'pytest/issues.json'), 'utf8')) as { number: number; title: string; body: string }[];
    for (const target of issues.slice(0, 3)) {
      const text = `${target.title}\n${target.body.slice(0, 400)}`;
      const found = cita(p, ['search', 'demo', text, '--source', 'issues', '--k', '1', '--json']);
      expect(JSON.parse(found.stdout).results.issues[0].chunk.citation.issue).toBe(target.number);
    }
    const shown = cita(p, ['issue', 'demo', '7432', '--json']);
    expect(shown.code).toBe(0);
    const chunks = JSON.parse(shown.stdout);
    expect(chunks[0].citation).toMatchObject({ issue: 7432, url: 'https://github.com/pytest-dev/pytest/issues/7432' });
    expect(chunks[0].text).toContain('Issue #7432: skipping: --runxfail breaks pytest.mark.skip location reporting');
  }, 600_000);

  it('reports broken export entries by index and field and indexes the rest', () => {
    const broken = path.join(p.dir, 'broken.json');
    fs.writeFileSync(
      broken,
      JSON.stringify([
        { number: 1, title: 'Good issue', body: 'Fine.', state: 'open', html_url: 'https://github.com/a/b/issues/1', labels: [], user: { login: 'x' }, created_at: '2024-01-01T00:00:00Z', updated_at: '2024-01-01T00:00:00Z' },
        { title: 'No number', body: 'x', state: 'open' },
      ]),
    );
    const r = cita(p, ['index', 'demo', '--json', '--set', `sources.issues.file=${broken}`]);
    expect(r.code).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.collections.issues.files).toBe(1);
    expect(s.warnings.join('\n')).toMatch(/\[1\]\.number/);
  });
});
