import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { issueQuery } from '../pipeline/answer/ask.ts';
import { chunkIssue, normaliseIssueText } from '../pipeline/chunking/issueChunker.ts';
import { readIssueExport } from '../pipeline/sources/issues/file.ts';
import type { Issue } from '../pipeline/sources/issues/types.ts';
import type { TokenCounter } from '../pipeline/types.ts';
import { sharedDatasets } from './support/paths.ts';

// What the second hop of "where is the bug from #N?" searches with: the issue as filed, not its first chunk.
// The chunker's real output over a real issue; a word count stands in for the model's tokenizer (only the
// cutting depends on it, and what is checked holds for any cut).
const words: TokenCounter = { countTokens: (t) => t.split(/\s+/).filter(Boolean).length, window: 512 };
const { issues } = readIssueExport(path.join(sharedDatasets, 'pytest/issues.json'));
const issue11143 = issues.find((i) => i.number === 11143)!;
const withComment: Issue = {
  ...issue11143,
  comments: [{ id: 99, author: 'bob', body: 'COMMENT-ONLY-WORD: I think the fix belongs elsewhere.', createdAt: '2023-07-01T00:00:00Z', url: `${issue11143.url}#issuecomment-99` }],
};
const chunks = chunkIssue(withComment, words, { maxTokens: 120, lineWindow: 60 });
const body = chunks.filter((c) => c.citation.commentId === undefined);

describe('issueQuery (the second hop)', () => {
  it('searches with the whole body of a long issue, the header once, without its comments', () => {
    expect(body.length).toBeGreaterThan(2);
    const q = issueQuery(chunks, 'issue');
    expect(q.startsWith('Issue #11143: Rewrite fails when first expression of file is a number and mistaken as docstring\nstate: closed\n\n')).toBe(true);
    expect(q.split('Issue #11143:').length - 1).toBe(1);
    // Every word of the body is searched, in order; the traceback at its end names the module to fix.
    const bodyWords = normaliseIssueText(issue11143.body).split(/\s+/).filter(Boolean);
    expect(q.split(/\s+/).filter(Boolean).slice(-bodyWords.length)).toEqual(bodyWords);
    expect(q).toContain('_pytest/assertion/rewrite.py');
    expect(q).not.toContain('COMMENT-ONLY-WORD');
  });

  it('`start` keeps the earlier rule: the first chunk, at most 2,000 characters, which lacks the traceback', () => {
    const q = issueQuery(chunks, 'start');
    expect(q).toBe(body[0]!.text.slice(0, 2000));
    expect(q).not.toContain('_pytest/assertion/rewrite.py');
  });

  it('joins two referenced issues, each with its own title, and is empty without one', () => {
    const other = issues.find((i) => i.number === 7432)!;
    const both = [...chunks, ...chunkIssue(other, words, { maxTokens: 120, lineWindow: 60 })];
    const q = issueQuery(both, 'issue');
    expect(q).toContain('Issue #11143: Rewrite fails');
    expect(q).toContain(`Issue #7432: ${other.title}`);
    expect(q.indexOf('Issue #7432:')).toBeGreaterThan(q.indexOf('_pytest/assertion/rewrite.py'));
    expect(issueQuery([], 'issue')).toBe('');
    expect(issueQuery([], 'start')).toBe('');
  });
});
