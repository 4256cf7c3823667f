import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A test double of GitHub's REST API for issues, on 127.0.0.1, driven by the real Octokit client.
 * It answers the way github.com does for the endpoints cita uses: filters (`state`, `labels`,
 * `since`), `sort`/`direction`, `page`/`per_page` with a `Link` header built from its own base URL,
 * 401 for a wrong token, 404 for an unknown (or, without a token, private) repository, 410 for a
 * deleted issue, 301 for a transferred one, and on demand a secondary rate limit, an exhausted
 * primary rate limit, a 502 or a dropped connection.
 */

/** The GitHub REST shape; fields are passed through as given (fixtures), except those the server owns. */
export type GhIssue = Record<string, unknown> & {
  number: number;
  state: 'open' | 'closed';
  labels: ({ name: string } & Record<string, unknown>)[];
  updated_at: string;
  created_at: string;
  pull_request?: unknown;
};
export type GhComment = Record<string, unknown> & { id: number; created_at: string };

export type Fault =
  /** 403 with `retry-after`, body "You have exceeded a secondary rate limit". */
  | { kind: 'secondary-rate-limit'; retryAfter?: number }
  /** Primary limit exhausted: `x-ratelimit-remaining: 0`, reset `resetIn` seconds ahead (real clock: Octokit reads it). */
  | { kind: 'rate-limit'; status?: 403 | 429; resetIn?: number }
  | { kind: 'bad-gateway' }
  /** The connection is closed without an answer. */
  | { kind: 'network' };

interface Repo {
  issues: Map<number, GhIssue>;
  comments: Map<number, GhComment[]>;
  private: boolean;
  /** Issues gone: deleted (410) or transferred (301 to the new location). */
  gone: Map<number, { status: 410 } | { status: 301; to: string }>;
}

export interface FakeGithubOptions {
  /** The one token GitHub accepts; any other sent token gets 401. Requests without a token are anonymous. */
  token?: string;
  /** GitHub's clock: the `date` header and `updated_at` of changes made through this class. */
  now?: () => Date;
}

const RATE_DOCS = 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api';

/** GitHub's timestamps: second precision, `Z`. */
export function githubTime(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export class FakeGithub {
  /** Method and URL of every request received, for debugging a failing test (tests assert on results). */
  readonly requests: string[] = [];
  private readonly repos = new Map<string, Repo>();
  private readonly faults: { fault: Fault; after: number }[] = [];
  private persistentFault: { fault: Fault; after: number } | undefined;
  private readonly token: string | undefined;
  now: () => Date;
  /** Called with each request's URL before it is answered: lets a test change GitHub mid-run. */
  onRequest: ((url: string) => void) | undefined;

  private constructor(
    private readonly server: http.Server,
    readonly baseUrl: string,
    options: FakeGithubOptions,
  ) {
    this.token = options.token;
    this.now = options.now ?? (() => new Date());
  }

  static async start(options: FakeGithubOptions = {}): Promise<FakeGithub> {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const fake = new FakeGithub(server, `http://127.0.0.1:${port}`, options);
    server.on('request', (req, res) => fake.handle(req, res));
    return fake;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve, reject) => this.server.close((e) => (e ? reject(e) : resolve())));
  }

  addRepo(fullName: string, issues: GhIssue[], comments: Record<number, GhComment[]> = {}, options: { private?: boolean } = {}): void {
    const repo: Repo = { issues: new Map(), comments: new Map(), private: options.private ?? false, gone: new Map() };
    for (const issue of issues) repo.issues.set(issue.number, structuredClone(issue));
    for (const [n, list] of Object.entries(comments)) repo.comments.set(Number(n), structuredClone(list));
    this.repos.set(fullName, repo);
  }

  /** Edits an issue as a user would: `updated_at` becomes GitHub's now. */
  updateIssue(fullName: string, number: number, patch: Partial<GhIssue>): void {
    const issue = this.repo(fullName).issues.get(number);
    if (!issue) throw new Error(`fake github: no issue #${number} in ${fullName}`);
    Object.assign(issue, patch, { updated_at: githubTime(this.now()) });
  }

  /** Adds a comment; like GitHub, this bumps the issue's `updated_at`. */
  addComment(fullName: string, number: number, comment: GhComment): void {
    const repo = this.repo(fullName);
    repo.comments.set(number, [...(repo.comments.get(number) ?? []), comment]);
    this.updateIssue(fullName, number, {});
  }

  /** Deletes an issue: it leaves the listings and answers 410 Gone (GitHub's answer for deleted issues). */
  deleteIssue(fullName: string, number: number): void {
    const repo = this.repo(fullName);
    repo.issues.delete(number);
    repo.comments.delete(number);
    repo.gone.set(number, { status: 410 });
  }

  /** Transfers an issue to another repository: it leaves the listings and answers 301 to its new URL. */
  transferIssue(fullName: string, number: number, toFullName: string, toNumber: number): void {
    const repo = this.repo(fullName);
    repo.issues.delete(number);
    repo.comments.delete(number);
    repo.gone.set(number, { status: 301, to: `/repos/${toFullName}/issues/${toNumber}` });
  }

  /** Fails one request: the next one, or the one after `after` more have been answered. */
  failNext(fault: Fault, after = 0): void {
    this.faults.push({ fault, after });
  }

  /** Fails every request from the one after `after` more have been answered, until `recover()`. */
  failFrom(fault: Fault, after = 0): void {
    this.persistentFault = { fault, after };
  }

  recover(): void {
    this.persistentFault = undefined;
    this.faults.length = 0;
  }

  private repo(fullName: string): Repo {
    const repo = this.repos.get(fullName);
    if (!repo) throw new Error(`fake github: no repository ${fullName}`);
    return repo;
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    this.requests.push(`${req.method} ${req.url}`);
    this.onRequest?.(req.url ?? '/');
    const url = new URL(req.url ?? '/', this.baseUrl);
    if (this.injectFault(req, res)) return;

    const auth = req.headers.authorization;
    const sent = auth?.replace(/^(?:token|bearer)\s+/i, '');
    if (sent !== undefined && sent !== this.token) {
      return this.send(res, 401, { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest', status: '401' });
    }
    const m = /^\/repos\/([^/]+)\/([^/]+)\/issues(?:\/(\d+))?(\/comments)?\/?$/.exec(url.pathname);
    const repo = m ? this.repos.get(`${m[1]}/${m[2]}`) : undefined;
    if (req.method !== 'GET' || !m || !repo || (repo.private && sent === undefined)) {
      return this.send(res, 404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest', status: '404' });
    }
    if (m[3] === undefined) return this.listIssues(repo, url, res);
    const number = Number(m[3]);
    const gone = repo.gone.get(number);
    if (gone?.status === 410) {
      return this.send(res, 410, { message: 'This issue was deleted', documentation_url: 'https://docs.github.com/rest', status: '410' });
    }
    if (gone?.status === 301) {
      const location = `${this.baseUrl}${gone.to}${m[4] ?? ''}`;
      return this.send(res, 301, { message: 'Moved Permanently', url: location, documentation_url: 'https://docs.github.com/rest' }, { location });
    }
    const issue = repo.issues.get(number);
    if (!issue) return this.send(res, 404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest', status: '404' });
    if (!m[4]) return this.send(res, 200, this.issueJson(repo, issue));
    const comments = [...(repo.comments.get(number) ?? [])].sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id - b.id);
    return this.sendPage(res, url, comments);
  }

  /** `GET /repos/{o}/{r}/issues`: issues and pull requests, filtered and sorted as GitHub does. */
  private listIssues(repo: Repo, url: URL, res: http.ServerResponse): void {
    const q = url.searchParams;
    const state = q.get('state') ?? 'open';
    if (!['open', 'closed', 'all'].includes(state)) {
      return this.send(res, 422, { message: 'Validation Failed', errors: [{ resource: 'Issue', field: 'state', code: 'invalid' }], status: '422' });
    }
    const labels = (q.get('labels') ?? '').split(',').filter((l) => l !== '');
    const since = q.get('since');
    const sinceMs = since ? Date.parse(since) : undefined;
    const sort = q.get('sort') ?? 'created';
    const direction = q.get('direction') ?? 'desc';
    const key = (i: GhIssue): number =>
      sort === 'updated' ? Date.parse(i.updated_at) : sort === 'comments' ? (repo.comments.get(i.number)?.length ?? 0) : Date.parse(i.created_at);
    const items = [...repo.issues.values()]
      .filter((i) => state === 'all' || i.state === state)
      // GitHub: all of the listed labels must be present.
      .filter((i) => labels.every((l) => i.labels.some((x) => x.name === l)))
      // GitHub: "only results that were last updated after the given time"; equal times are included.
      .filter((i) => sinceMs === undefined || Date.parse(i.updated_at) >= sinceMs)
      .sort((a, b) => (direction === 'asc' ? 1 : -1) * (key(a) - key(b) || a.number - b.number))
      .map((i) => this.issueJson(repo, i));
    this.sendPage(res, url, items);
  }

  private issueJson(repo: Repo, issue: GhIssue): GhIssue {
    return { ...issue, comments: repo.comments.get(issue.number)?.length ?? 0 };
  }

  private sendPage(res: http.ServerResponse, url: URL, items: unknown[]): void {
    const perPage = Math.min(Math.max(Number(url.searchParams.get('per_page') ?? 30) || 30, 1), 100);
    const page = Math.max(Number(url.searchParams.get('page') ?? 1) || 1, 1);
    const last = Math.max(Math.ceil(items.length / perPage), 1);
    const link = (p: number, rel: string) => {
      const u = new URL(url.pathname + url.search, this.baseUrl);
      u.searchParams.set('page', String(p));
      u.searchParams.set('per_page', String(perPage));
      return `<${u.toString()}>; rel="${rel}"`;
    };
    const links: string[] = [];
    if (page > 1) links.push(link(page - 1, 'prev'));
    if (page < last) links.push(link(page + 1, 'next'), link(last, 'last'));
    if (page > 1) links.push(link(1, 'first'));
    const headers: Record<string, string> = links.length > 0 ? { link: links.join(', ') } : {};
    this.send(res, 200, items.slice((page - 1) * perPage, page * perPage), headers);
  }

  /** Answers with the next due fault, if any; true when it did. */
  private injectFault(req: http.IncomingMessage, res: http.ServerResponse): boolean {
    let fault: Fault | undefined;
    const due = this.faults.findIndex((f) => f.after === 0);
    if (due >= 0) {
      fault = this.faults[due]!.fault;
      this.faults.splice(due, 1);
    } else if (this.persistentFault?.after === 0) {
      fault = this.persistentFault.fault;
    }
    // Requests answered normally count down the delayed faults.
    if (!fault) {
      for (const f of this.faults) f.after--;
      if (this.persistentFault) this.persistentFault.after--;
      return false;
    }
    switch (fault.kind) {
      case 'secondary-rate-limit':
        this.send(
          res,
          403,
          {
            message:
              'You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID 0000:0000:0000000:0000000:00000000.',
            documentation_url: `${RATE_DOCS}#about-secondary-rate-limits`,
            status: '403',
          },
          { 'retry-after': String(fault.retryAfter ?? 1) },
        );
        break;
      case 'rate-limit': {
        const reset = Math.floor(Date.now() / 1000) + (fault.resetIn ?? 1);
        const status = fault.status ?? 429;
        this.send(
          res,
          status,
          { message: 'API rate limit exceeded for user ID 1.', documentation_url: `${RATE_DOCS}#about-rate-limits`, status: String(status) },
          { 'x-ratelimit-limit': '5000', 'x-ratelimit-remaining': '0', 'x-ratelimit-used': '5000', 'x-ratelimit-reset': String(reset) },
        );
        break;
      }
      case 'bad-gateway':
        this.send(res, 502, { message: 'Server Error' });
        break;
      case 'network':
        req.socket.destroy();
        break;
    }
    return true;
  }

  private send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
      date: this.now().toUTCString(),
      'x-github-api-version-selected': '2022-11-28',
      'x-ratelimit-limit': '5000',
      'x-ratelimit-remaining': '4999',
      'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 3600),
      ...headers,
    });
    res.end(text);
  }
}
