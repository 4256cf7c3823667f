/**
 * Issues as the issue sources hand them to the chunker: GitHub's REST objects reduced to what is
 * indexed and cited. Both sources (the GitHub API and a JSON export) produce an `IssueFetch`.
 */

export interface IssueComment {
  id: number;
  /** GitHub login; `ghost` for a deleted account. */
  author: string;
  /** ISO 8601, as GitHub gives it (`2020-06-28T15:02:07Z`). */
  createdAt: string;
  body: string;
  /** `html_url` of the comment: where a person checks the citation. */
  url: string;
}

export interface Issue {
  number: number;
  title: string;
  /** Verbatim; may hold `\r\n` line endings (the chunker normalises them). */
  body: string;
  state: 'open' | 'closed';
  labels: string[];
  author: string;
  createdAt: string;
  updatedAt: string;
  /** `html_url` of the issue. */
  url: string;
  isPullRequest: boolean;
  comments: IssueComment[];
}

export interface IssueFetch {
  issues: Issue[];
  /** Numbers the index holds that must go: deleted, transferred, or no longer matching the filters. */
  removed: number[];
  /** false for an incremental fetch: issues not listed keep what the index has */
  complete: boolean;
  /** Saved by the caller with the index and passed back on the next run (`since`). */
  state: { since?: string };
  /** Entries that were skipped, and why (index and field); never fatal. */
  warnings: string[];
}
