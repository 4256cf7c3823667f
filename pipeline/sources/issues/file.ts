import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { Issue, IssueComment, IssueFetch } from './types.ts';

/**
 * GitHub's REST issue and comment objects (the fields cita reads), and the JSON export reader.
 * The API client validates its responses with the same schemas, so an export and a live fetch
 * produce the same `Issue`s. A loader returns what it could read plus warnings naming the entry
 * index and field: one broken entry never costs the rest of the export.
 */

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}

/** A zod error option whose message reads `expected integer, got "7"` (or `missing; expected integer`). */
function expected(what: string) {
  return {
    error: (issue: { input?: unknown }) =>
      issue.input === undefined ? `missing; expected ${what}` : `expected ${what}, got ${describe(issue.input)}`,
  };
}

const isoDate = z.string(expected('an ISO 8601 date string')).refine((s) => !Number.isNaN(Date.parse(s)), {
  error: (issue) => `expected an ISO 8601 date, got ${describe(issue.input)}`,
});
// GitHub sends `user: null` for some deleted accounts; the web UI shows them as `ghost`.
const user = z.object({ login: z.string(expected('string')) }, expected('an object with login')).nullable().optional();

export const githubCommentSchema = z.object(
  {
    id: z.int(expected('integer')),
    body: z.string(expected('string')).nullable().optional(),
    user,
    created_at: isoDate,
    html_url: z.string(expected('string')),
    issue_url: z.string(expected('string')).optional(),
  },
  expected('a comment object'),
);
export type GithubComment = z.infer<typeof githubCommentSchema>;

export const githubIssueSchema = z.object(
  {
    number: z.int(expected('integer')).positive(expected('a positive integer')),
    title: z.string(expected('string')),
    body: z.string(expected('string')).nullable().optional(),
    state: z.enum(['open', 'closed'], expected('"open" or "closed"')),
    // The API sends label objects; hand-written exports often list names.
    labels: z
      .array(z.union([z.string(), z.object({ name: z.string() })], expected('a label name or {name}')), expected('array'))
      .optional(),
    user,
    created_at: isoDate,
    updated_at: isoDate,
    html_url: z.string(expected('string')),
    // Present (an object) only on pull requests.
    pull_request: z.unknown().optional(),
    // The API gives a count; an export may inline the comment objects instead.
    comments: z
      .union([z.int().nonnegative(), z.array(z.unknown())], expected('a comment count or an array of comments'))
      .optional(),
  },
  expected('an issue object'),
);
export type GithubIssue = z.infer<typeof githubIssueSchema>;

/** `label[3].number: expected integer, got "7"`, one line per problem. */
export function zodWarnings(label: string, error: z.ZodError): string[] {
  return error.issues.map((issue) => {
    const where = issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');
    return `${label}${where}: ${issue.message}`;
  });
}

export function commentFromGithub(raw: GithubComment): IssueComment {
  return {
    id: raw.id,
    author: raw.user?.login ?? 'ghost',
    createdAt: raw.created_at,
    body: raw.body ?? '',
    url: raw.html_url,
  };
}

export function issueFromGithub(raw: GithubIssue, comments: IssueComment[]): Issue {
  return {
    number: raw.number,
    title: raw.title,
    body: raw.body ?? '',
    state: raw.state,
    labels: (raw.labels ?? []).map((l) => (typeof l === 'string' ? l : l.name)),
    author: raw.user?.login ?? 'ghost',
    createdAt: raw.created_at,
    updatedAt: raw.updated_at,
    url: raw.html_url,
    isPullRequest: raw.pull_request !== undefined && raw.pull_request !== null,
    comments,
  };
}

/** The issue number a comment's `issue_url` (`…/repos/o/r/issues/123`) points at. */
export function issueNumberOfUrl(url: string): number | undefined {
  const m = /\/issues\/(\d+)\/?$/.exec(url);
  return m ? Number(m[1]) : undefined;
}

/** Valid comments of a list; each invalid one becomes a warning under `label[i]`. */
function parseComments(items: unknown[], label: string, warnings: string[]): { comment: IssueComment; raw: GithubComment }[] {
  const out: { comment: IssueComment; raw: GithubComment }[] = [];
  items.forEach((item, i) => {
    const parsed = githubCommentSchema.safeParse(item);
    if (parsed.success) out.push({ comment: commentFromGithub(parsed.data), raw: parsed.data });
    else warnings.push(...zodWarnings(`${label}[${i}]`, parsed.error));
  });
  return out;
}

/**
 * Comments of a second file, by issue number: either an array of GitHub comment objects (each
 * with `issue_url`, as `GET /repos/{o}/{r}/issues/comments` returns them) or an object keyed by
 * issue number whose values are arrays of comment objects.
 */
export function parseCommentsExport(data: unknown, label: string, warnings: string[]): Map<number, IssueComment[]> {
  const byIssue = new Map<number, IssueComment[]>();
  const add = (n: number, c: IssueComment) => byIssue.set(n, [...(byIssue.get(n) ?? []), c]);
  if (Array.isArray(data)) {
    data.forEach((item, i) => {
      const parsed = githubCommentSchema.safeParse(item);
      if (!parsed.success) {
        warnings.push(...zodWarnings(`${label}[${i}]`, parsed.error));
        return;
      }
      const url = parsed.data.issue_url;
      const n = url === undefined ? undefined : issueNumberOfUrl(url);
      if (n === undefined) {
        warnings.push(
          `${label}[${i}].issue_url: ${url === undefined ? 'missing' : `got ${describe(url)}`}; expected a URL ending in /issues/<number>`,
        );
        return;
      }
      add(n, commentFromGithub(parsed.data));
    });
  } else if (data !== null && typeof data === 'object') {
    for (const [key, items] of Object.entries(data)) {
      const n = Number(key);
      if (!Number.isInteger(n) || n <= 0) {
        warnings.push(`${label}.${key}: expected an issue number as the key`);
        continue;
      }
      if (!Array.isArray(items)) {
        warnings.push(`${label}.${key}: expected an array of comments, got ${describe(items)}`);
        continue;
      }
      for (const { comment } of parseComments(items, `${label}.${key}`, warnings)) add(n, comment);
    }
  } else {
    throw new Error(`${label}: expected an array of GitHub comment objects or an object keyed by issue number, got ${describe(data)}`);
  }
  return byIssue;
}

/**
 * Issues of an export (an array of GitHub REST issue objects), validated entry by entry. An entry
 * with an invalid field is skipped and reported as `label[i].field: …`; a comment that is invalid
 * is skipped on its own. Pure: the file reading is in `readIssueExport`.
 */
export function parseIssueExport(
  data: unknown,
  label: string,
  comments?: { data: unknown; label: string },
): IssueFetch {
  if (!Array.isArray(data)) {
    throw new Error(`${label}: expected a JSON array of GitHub issue objects, got ${describe(data)}`);
  }
  const warnings: string[] = [];
  const external = comments ? parseCommentsExport(comments.data, comments.label, warnings) : new Map<number, IssueComment[]>();
  const issues: Issue[] = [];
  const firstIndex = new Map<number, number>();
  const countedOnly: number[] = [];
  data.forEach((item, i) => {
    const parsed = githubIssueSchema.safeParse(item);
    if (!parsed.success) {
      warnings.push(...zodWarnings(`${label}[${i}]`, parsed.error));
      return;
    }
    const raw = parsed.data;
    const seen = firstIndex.get(raw.number);
    if (seen !== undefined) {
      warnings.push(`${label}[${i}].number: #${raw.number} repeats ${label}[${seen}]; the first one is kept`);
      return;
    }
    firstIndex.set(raw.number, i);
    const inline = Array.isArray(raw.comments) ? parseComments(raw.comments, `${label}[${i}].comments`, warnings).map((c) => c.comment) : [];
    const ids = new Set(inline.map((c) => c.id));
    const all = [...inline, ...(external.get(raw.number) ?? []).filter((c) => !ids.has(c.id))];
    if (typeof raw.comments === 'number' && raw.comments > all.length) countedOnly.push(raw.number);
    issues.push(issueFromGithub(raw, all));
  });
  const orphans = [...external.keys()].filter((n) => !firstIndex.has(n));
  if (orphans.length > 0 && comments) {
    warnings.push(`${comments.label}: comments for issues not in ${label} were skipped: ${orphans.map((n) => `#${n}`).join(', ')}`);
  }
  if (countedOnly.length > 0) {
    // Not an error (SWE-bench-derived exports carry counts only), but the user should know.
    warnings.push(
      `${label}: ${countedOnly.length} issue(s) count comments that the export does not carry (${countedOnly
        .slice(0, 10)
        .map((n) => `#${n}`)
        .join(', ')}${countedOnly.length > 10 ? ', …' : ''}); only their bodies are indexed`,
    );
  }
  return { issues, removed: [], complete: true, state: {}, warnings };
}

function readJson(file: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`issues export: cannot read ${file}: ${(e as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new Error(`issues export: ${file} is not valid JSON: ${(e as Error).message}`);
  }
}

/**
 * Reads a JSON export of issues (GitHub REST issue objects), with comments inline or in a second
 * file. Unreadable files throw; malformed entries become warnings (`issues.json[3].number: …`).
 */
export function readIssueExport(file: string, commentsFile?: string): IssueFetch {
  const data = readJson(file);
  const comments = commentsFile ? { data: readJson(commentsFile), label: path.basename(commentsFile) } : undefined;
  return parseIssueExport(data, path.basename(file), comments);
}
