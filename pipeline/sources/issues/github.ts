import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import { Octokit } from '@octokit/rest';
import { commentFromGithub, githubCommentSchema, githubIssueSchema, issueFromGithub, zodWarnings, type GithubIssue } from './file.ts';
import type { Issue, IssueComment, IssueFetch } from './types.ts';

/**
 * Issues from GitHub's REST API through Octokit, with the throttling plugin (waits out primary and
 * secondary rate limits, with a visible message) and the retry plugin (transient 5xx and network
 * errors). Any failure that survives the retries throws, so the caller changes nothing and the next
 * run starts again from the same `since`.
 *
 * Incremental runs (`since` given) need two listings:
 * - changes: `state=all&since=…` returns every issue updated since the last run, whatever its state
 *   and labels, so an issue that was closed or lost a label is seen and, if the filters now exclude
 *   it, removed; the filters are applied here, as GitHub would have.
 * - existence, only when `knownNumbers` is given: deletions and transfers bump no `updated_at`, so no
 *   `since` listing can show them. A full `state=all` listing (no comments) costs one request per
 *   100 issues; asking for each known issue that was not listed (`GET /issues/{n}`, 404/410/301)
 *   would cost one request per issue, almost always far more. Known numbers it lacks are removed.
 *
 * The next `since` is GitHub's own clock (the `date` header) when the changes listing began: any
 * issue touched after that moment has a later `updated_at`, whichever page it was on, and the local
 * clock's skew does not matter. GitHub's `since` includes equal times, so nothing on the boundary is lost.
 */

/** The environment variable the token is read from; never from config files. */
export const GITHUB_TOKEN_ENV = 'GITHUB_TOKEN';

export type IssueStateFilter = 'open' | 'closed' | 'all';

export interface GithubIssueOptions {
  owner: string;
  repo: string;
  /** From `process.env[tokenEnv]`; optional for public repositories (60 requests an hour without). */
  token?: string;
  /** Named in error messages; default `GITHUB_TOKEN`. */
  tokenEnv?: string;
  /** API root; default `https://api.github.com` (GitHub Enterprise: `https://host/api/v3`). */
  baseUrl?: string;
  state: IssueStateFilter;
  /** An issue must carry all of them (GitHub's `labels` semantics). */
  labels: string[];
  pullRequests: boolean;
  /** `state.since` of the previous run; absent for a full run. */
  since?: string;
  /** Issue numbers the index holds; on an incremental run, those gone from GitHub are reported as removed. */
  knownNumbers?: Iterable<number>;
  /** Progress and rate-limit waits, for a person to read. Never receives the token. */
  log: (message: string) => void;
  /** Fallback for the next `since` when GitHub sends no `date` header. */
  now?: () => Date;
  /** Retries of a transient failure (5xx, network) per request; waits 1, 4, 9… s. Default 3. */
  retries?: number;
  /** Waits per request for a rate limit before giving up. Default 3. */
  rateLimitRetries?: number;
}

const PER_PAGE = 100;
const DEFAULT_BASE_URL = 'https://api.github.com';

// One class for all instances: composing plugins per call would rebuild the class each time.
const GithubClient = Octokit.plugin(throttling, retry);
type GithubClient = InstanceType<typeof GithubClient>;

function createClient(options: GithubIssueOptions): GithubClient {
  const { log } = options;
  const rateLimitRetries = options.rateLimitRetries ?? 3;
  const onLimit = (kind: string) => (retryAfter: number, request: { method: string; url: string }, _octokit: unknown, retryCount: number) => {
    if (retryCount >= rateLimitRetries) {
      log(`GitHub rate limit: giving up on ${request.method} ${request.url} after ${retryCount} wait(s)`);
      return false;
    }
    log(`GitHub rate limit: waiting ${retryAfter} s (${kind}) before retrying ${request.method} ${request.url}, wait ${retryCount + 1} of ${rateLimitRetries}`);
    return true;
  };
  return new GithubClient({
    auth: options.token,
    baseUrl: (options.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, ''),
    userAgent: 'cita',
    // Octokit's request log goes to info/debug; warnings are shown. None of them carries the token.
    log: { debug: () => {}, info: () => {}, warn: (m: string) => log(`GitHub: ${m}`), error: (m: string) => log(`GitHub: ${m}`) },
    throttle: {
      onRateLimit: onLimit('primary limit'),
      onSecondaryRateLimit: onLimit('secondary limit'),
    },
    retry: {
      retries: options.retries ?? 3,
      // 429 is the throttling plugin's to wait out; retrying it here too would double the waits.
      doNotRetry: [400, 401, 403, 404, 410, 422, 429, 451],
    },
  });
}

/** What an Octokit failure means for the user, without the request headers (they hold the token). */
export function explainGithubError(error: unknown, options: Pick<GithubIssueOptions, 'owner' | 'repo' | 'token' | 'tokenEnv' | 'baseUrl'>): Error {
  const tokenEnv = options.tokenEnv ?? GITHUB_TOKEN_ENV;
  const repo = `${options.owner}/${options.repo}`;
  const unchanged = 'The index was left unchanged.';
  const e = error as { status?: unknown; message?: unknown; response?: { data?: unknown }; request?: { method?: string; url?: string } };
  if (typeof e?.status !== 'number') return error instanceof Error ? error : new Error(String(error));
  const what = e.request?.method && e.request.url ? `${e.request.method} ${e.request.url}` : 'a request';
  const said = typeof (e.response?.data as { message?: unknown } | undefined)?.message === 'string' ? (e.response!.data as { message: string }).message : String(e.message);
  switch (true) {
    case e.status === 401:
      return new Error(
        `GitHub rejected the token in $${tokenEnv} (401 ${said}): it is wrong, expired or revoked. Create a new token, or unset ${tokenEnv} to read a public repository anonymously. ${unchanged}`,
      );
    case e.status === 404:
      return new Error(
        `GitHub: repository ${repo} not found, or the token cannot see it (404 on ${what}). Check repository.github in the config${options.token ? ` and that the token in $${tokenEnv} has access to it` : `; for a private repository set $${tokenEnv}`}. ${unchanged}`,
      );
    case e.status === 403 || e.status === 429:
      return new Error(
        /rate limit/i.test(said)
          ? `GitHub rate limit still exceeded after waiting (${e.status} on ${what}); run again later${options.token ? '' : `, or set $${tokenEnv} for a higher limit`}. ${unchanged}`
          : `GitHub refused ${what} (${e.status}: ${said}). Check the token's permissions in $${tokenEnv}. ${unchanged}`,
      );
    case e.response === undefined:
      // @octokit/request reports a failed fetch (DNS, refused, reset) as status 500 without a response.
      return new Error(
        `cannot reach GitHub at ${options.baseUrl ?? DEFAULT_BASE_URL} (${said}) on ${what}, even after retries; check the network. ${unchanged}`,
      );
    default:
      return new Error(`GitHub answered ${e.status} (${said}) on ${what}, even after retries; try again later. ${unchanged}`);
  }
}

/** One issue listing, all pages, validated item by item; `date` is GitHub's clock at the first page. */
async function listIssues(
  octokit: GithubClient,
  params: { owner: string; repo: string; state: IssueStateFilter; labels?: string; since?: string; sort: 'created' | 'updated'; direction: 'asc' | 'desc' },
  warnings: string[],
): Promise<{ items: GithubIssue[]; date?: string }> {
  const items: GithubIssue[] = [];
  let date: string | undefined;
  let page = 0;
  for await (const response of octokit.paginate.iterator(octokit.rest.issues.listForRepo, { ...params, per_page: PER_PAGE })) {
    page++;
    date ??= response.headers.date;
    for (const [i, item] of (response.data as unknown[]).entries()) {
      const parsed = githubIssueSchema.safeParse(item);
      if (parsed.success) items.push(parsed.data);
      else warnings.push(...zodWarnings(`GET /repos/${params.owner}/${params.repo}/issues page ${page} [${i}]`, parsed.error));
    }
  }
  return { items, date };
}

/** All comments of one issue, oldest first. */
async function listComments(octokit: GithubClient, owner: string, repo: string, number: number, warnings: string[]): Promise<IssueComment[]> {
  const comments: IssueComment[] = [];
  const raw = await octokit.paginate(octokit.rest.issues.listComments, { owner, repo, issue_number: number, per_page: PER_PAGE });
  for (const [i, item] of (raw as unknown[]).entries()) {
    const parsed = githubCommentSchema.safeParse(item);
    if (parsed.success) comments.push(commentFromGithub(parsed.data));
    else warnings.push(...zodWarnings(`comments of #${number} [${i}]`, parsed.error));
  }
  return comments;
}

/** Whether a listed issue passes the configured filters (what GitHub would have applied). */
export function matchesFilters(raw: GithubIssue, filters: Pick<GithubIssueOptions, 'state' | 'labels' | 'pullRequests'>): boolean {
  const isPullRequest = raw.pull_request !== undefined && raw.pull_request !== null;
  if (isPullRequest && !filters.pullRequests) return false;
  if (filters.state !== 'all' && raw.state !== filters.state) return false;
  const names = new Set((raw.labels ?? []).map((l) => (typeof l === 'string' ? l : l.name)));
  return filters.labels.every((l) => names.has(l));
}

function isoSeconds(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * Fetches issues (and their comments) of one repository. A full run (no `since`) returns every
 * matching issue with `complete: true`; an incremental run returns the issues updated since, and in
 * `removed` the known issues that were deleted, transferred or no longer match the filters.
 * Throws, with a message a user can act on, on any failure that retries did not cure.
 */
export async function fetchGithubIssues(options: GithubIssueOptions): Promise<IssueFetch> {
  try {
    return await fetchIssues(options);
  } catch (error) {
    throw explainGithubError(error, options);
  }
}

async function fetchIssues(options: GithubIssueOptions): Promise<IssueFetch> {
  const { owner, repo, log } = options;
  const octokit = createClient(options);
  const warnings: string[] = [];
  const incremental = options.since !== undefined;
  const known = new Set(options.knownNumbers ?? []);
  const startedAt = (options.now ?? (() => new Date()))();

  log(
    incremental
      ? `GitHub: listing issues of ${owner}/${repo} updated since ${options.since}`
      : `GitHub: listing ${options.state === 'all' ? 'all' : options.state} issues of ${owner}/${repo}${options.labels.length > 0 ? ` labelled ${options.labels.join(', ')}` : ''}`,
  );
  // A full run lets GitHub filter; an incremental one must see every change (see the module comment).
  const listing = await listIssues(
    octokit,
    incremental
      ? { owner, repo, state: 'all', since: options.since, sort: 'updated', direction: 'asc' }
      : { owner, repo, state: options.state, labels: options.labels.length > 0 ? options.labels.join(',') : undefined, sort: 'created', direction: 'asc' },
    warnings,
  );
  const removed = new Set<number>();
  const selected: GithubIssue[] = [];
  for (const raw of listing.items) {
    if (matchesFilters(raw, options)) selected.push(raw);
    else if (known.has(raw.number)) removed.add(raw.number);
  }

  if (incremental && known.size > 0) {
    log(`GitHub: checking which of the ${known.size} indexed issues still exist in ${owner}/${repo}`);
    const all = await listIssues(octokit, { owner, repo, state: 'all', sort: 'created', direction: 'asc' }, warnings);
    const exists = new Set(all.items.map((i) => i.number));
    for (const n of known) if (!exists.has(n)) removed.add(n);
  }

  const issues: Issue[] = [];
  let commentCount = 0;
  for (const raw of selected) {
    if (removed.has(raw.number)) continue; // deleted while we listed
    let comments: IssueComment[] = [];
    // The listing carries the comment count: most issues need no second request.
    if (typeof raw.comments === 'number' && raw.comments > 0) {
      try {
        comments = await listComments(octokit, owner, repo, raw.number, warnings);
      } catch (error) {
        // 410 is GitHub's answer for a deleted issue: deleted since the listing, it is gone, not a
        // failure of the run. A 404 is ambiguous (lost access to the repository?) and aborts.
        if ((error as { status?: unknown }).status !== 410) throw error;
        warnings.push(`#${raw.number} was deleted while its comments were fetched (410); not indexed`);
        if (known.has(raw.number)) removed.add(raw.number);
        continue;
      }
    }
    commentCount += comments.length;
    issues.push(issueFromGithub(raw, comments));
  }

  const date = listing.date !== undefined && !Number.isNaN(Date.parse(listing.date)) ? new Date(listing.date) : startedAt;
  log(
    `GitHub: ${issues.length} issue(s) with ${commentCount} comment(s) fetched from ${owner}/${repo}${removed.size > 0 ? `; ${removed.size} to remove` : ''}`,
  );
  return {
    issues,
    removed: [...removed].sort((a, b) => a - b),
    complete: !incremental,
    state: { since: isoSeconds(date) },
    warnings,
  };
}

/** The token from the environment (never from a config file); undefined when unset or blank. */
export function githubTokenFromEnv(env: NodeJS.ProcessEnv = process.env, name = GITHUB_TOKEN_ENV): string | undefined {
  const token = env[name]?.trim();
  return token ? token : undefined;
}
