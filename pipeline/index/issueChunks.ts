import { contentHash } from '../chunking/ids.ts';
import { chunkIssue } from '../chunking/issueChunker.ts';
import type { CitaConfig } from '../config/schema.ts';
import { readIssueExport } from '../sources/issues/file.ts';
import { fetchGithubIssues, githubTokenFromEnv } from '../sources/issues/github.ts';
import type { IssueFetch } from '../sources/issues/types.ts';
import type { Store } from '../store/store.ts';
import type { Chunk, ChunkingOptions, TokenCounter } from '../types.ts';

/**
 * The issues collection of one run: fetch (in full, or incrementally since the last run), chunk what
 * was fetched, and keep the indexed chunks of issues that were not re-fetched. Fetching happens
 * before anything is written, so a failure midway changes nothing; `since` is saved in the same
 * transaction as the chunks, so the next run resumes from the last complete one.
 */

export interface IssueChunks {
  chunks: Chunk[];
  meta: Record<string, string>;
  warnings: string[];
  fetched: number;
  removed: number[];
  incremental: boolean;
}

export interface GatherIssueOptions {
  config: CitaConfig;
  /** Resolves a config path (relative to the project root). */
  resolve: (p: string) => string;
  store: Store;
  counter: TokenCounter;
  chunking: ChunkingOptions;
  log: (message: string) => void;
  env?: NodeJS.ProcessEnv;
}

/** What must match for an incremental run: a changed filter or repository means a full one. */
function issuesConfigHash(config: CitaConfig): string {
  return contentHash(JSON.stringify(config.sources.issues), config.repository.github ?? '');
}

export async function gatherIssueChunks(o: GatherIssueOptions): Promise<IssueChunks | undefined> {
  const source = o.config.sources.issues;
  if (!source) return undefined;
  const configHash = issuesConfigHash(o.config);
  const meta = await o.store.meta();
  const indexed = await o.store.get(await o.store.ids('issues'));

  let fetch: IssueFetch;
  if (source.kind === 'file') {
    if (!source.file) throw new Error('sources.issues.file: required when kind is "file" (a JSON export of GitHub issues)');
    fetch = readIssueExport(o.resolve(source.file), source.comments ? o.resolve(source.comments) : undefined);
  } else {
    const slug = o.config.repository.github;
    if (!slug) throw new Error('sources.issues.kind is "github" but repository.github (owner/name) is not set');
    const [owner, repo] = slug.split('/') as [string, string];
    const since = meta['issues.config'] === configHash ? meta['issues.since'] : undefined;
    fetch = await fetchGithubIssues({
      owner,
      repo,
      token: githubTokenFromEnv(o.env ?? process.env, source.tokenEnv),
      tokenEnv: source.tokenEnv,
      baseUrl: source.baseUrl,
      state: source.state,
      labels: source.labels,
      pullRequests: source.pullRequests,
      since,
      knownNumbers: since ? new Set(indexed.map((c) => c.citation.issue!)) : undefined,
      log: o.log,
    });
  }

  const warnings = [...fetch.warnings];
  const fresh = fetch.issues.flatMap((issue) => chunkIssue(issue, o.counter, o.chunking, (m) => warnings.push(m)));
  const refetched = new Set(fetch.issues.map((i) => i.number));
  const removed = new Set(fetch.removed);
  const kept = fetch.complete ? [] : indexed.filter((c) => !refetched.has(c.citation.issue!) && !removed.has(c.citation.issue!));
  return {
    chunks: [...kept, ...fresh],
    meta: { 'issues.config': configHash, ...(fetch.state.since ? { 'issues.since': fetch.state.since } : {}) },
    warnings,
    fetched: fetch.issues.length,
    removed: fetch.removed,
    incremental: !fetch.complete,
  };
}
