import { describe, expect, it } from 'vitest';
import { buildContext, CUT_MARK, cutText, renderContext, splitBlockText, type ContextCandidate } from '../pipeline/answer/context.ts';
import type { BlockScores } from '../pipeline/answer/types.ts';
import { docChunkText, docHeader } from '../pipeline/chunking/docChunker.ts';
import { chunkId } from '../pipeline/chunking/ids.ts';
import { commentHeader, issueChunkText } from '../pipeline/chunking/issueChunker.ts';
import type { Issue } from '../pipeline/sources/issues/types.ts';
import type { Chunk, Citation, StoredChunk } from '../pipeline/types.ts';

// Hand-made chunks in the chunkers' own formats (header helpers imported from them).

const DOC = 'doc/en/how-to/skipping.rst';
const CODE = 'src/_pytest/skipping.py';

function docChunk(file: string, headings: string[], startLine: number, bodyLines: string[]): Chunk {
  const citation: Citation = { path: file, startLine, endLine: startLine + bodyLines.length - 1, headings };
  const text = docChunkText(docHeader(file, headings), bodyLines.join('\n'));
  return { id: chunkId('docs', citation, text), collection: 'docs', text, title: headings.join(' > '), citation, tokens: 0 };
}

/** Code chunks start with `# path`, then the enclosing scope lines, then the cited lines verbatim. */
function codeChunk(file: string, startLine: number, bodyLines: string[], scope: string[] = [], symbol?: string): Chunk {
  const citation: Citation = { path: file, startLine, endLine: startLine + bodyLines.length - 1 };
  if (symbol) citation.symbol = symbol;
  const text = [`# ${file}`, ...scope, ...bodyLines].join('\n');
  return { id: chunkId('code', citation, text), collection: 'code', text, title: `${file}:${symbol ?? ''}`, citation, tokens: 0 };
}

const issue: Issue = {
  number: 7432,
  title: 'skipping: --runxfail breaks pytest.mark.skip location reporting',
  body: 'With --runxfail the skip location points at skipping.py.',
  state: 'closed',
  labels: ['type: bug'],
  author: 'someone',
  createdAt: '2020-06-28T15:02:07Z',
  updatedAt: '2020-07-01T10:00:00Z',
  url: 'https://github.com/pytest-dev/pytest/issues/7432',
  isPullRequest: false,
  comments: [
    {
      id: 650000001,
      author: 'maintainer',
      createdAt: '2020-06-29T09:00:00Z',
      body: 'The bug is in the pytest_runtest_makereport hook.',
      url: 'https://github.com/pytest-dev/pytest/issues/7432#issuecomment-650000001',
    },
  ],
};

function issueCommentChunk(): Chunk {
  const comment = issue.comments[0]!;
  const citation: Citation = { path: `#${issue.number}`, startLine: 1, endLine: 1, issue: issue.number, commentId: comment.id, url: comment.url };
  const text = issueChunkText(commentHeader(issue, comment), comment.body);
  return { id: chunkId('issues', citation, text), collection: 'issues', text, title: `#${issue.number} comment ${comment.id}`, citation, tokens: 0 };
}

const scores = (chunk: Chunk, via: BlockScores['via'] = 'search'): BlockScores => ({
  collection: chunk.collection,
  fused: 1,
  bm25: null,
  dense: null,
  via,
});
const candidates = (...chunks: Chunk[]): ContextCandidate[] => chunks.map((chunk) => ({ chunk, scores: scores(chunk) }));

const skipIntro = docChunk(DOC, ['How to use skip and xfail'], 4, [
  'A **skip** means that you expect your test to pass only if some conditions are met,',
  'otherwise pytest should skip running the test altogether.',
  '',
  'An **xfail** means that you expect a test to fail for some reason.',
]);
const skipFunctions = docChunk(DOC, ['How to use skip and xfail', 'Skipping test functions'], 12, [
  'The simplest way to skip a test function is to mark it with the ``skip`` decorator',
  'which may be passed an optional ``reason``:',
  '',
  '.. code-block:: python',
  '',
  '    @pytest.mark.skip(reason="no way of currently testing this")',
  '    def test_the_unknown(): ...',
]);
const evaluate = codeChunk(
  CODE,
  12,
  [
    'def evaluate_skip_marks(item: Item) -> Skip | None:',
    '    """Evaluate skip and skipif marks on item, returning Skip if triggered."""',
    '    for mark in item.iter_markers(name="skip"):',
    '        return Skip(mark.kwargs.get("reason", "unconditional skip"))',
    '    return None',
  ],
  [],
  'evaluate_skip_marks',
);
const budget = { chunks: 5, chars: 2400 };

describe('buildContext: budget and dedupe', () => {
  it('keeps candidates in rank order, at most budget.chunks, numbered 1..n', () => {
    const ctx = buildContext('q', 'en', candidates(evaluate, skipIntro, skipFunctions, issueCommentChunk()), { chunks: 3, chars: 2400 });
    expect(ctx.blocks.map((b) => [b.marker, b.citation.path, b.citation.startLine])).toEqual([
      [1, CODE, 12],
      [2, DOC, 4],
      [3, DOC, 12],
    ]);
    expect(ctx.chars).toBe(evaluate.text.length + skipIntro.text.length + skipFunctions.text.length);
    expect(ctx.budget).toEqual({ chunks: 3, chars: 2400 });
  });

  it('skips a chunk already taken (same id), without using up a slot', () => {
    const ctx = buildContext('q', 'en', candidates(skipIntro, skipIntro, skipFunctions), { chunks: 2, chars: 2400 });
    expect(ctx.blocks.map((b) => b.chunk.id)).toEqual([skipIntro.id, skipFunctions.id]);
  });

  // One line per case: [what, taken, candidate, kept].
  const inner = docChunk(DOC, ['How to use skip and xfail', 'Skipping test functions'], 12, [
    'The simplest way to skip a test function is to mark it with the ``skip`` decorator',
    'which may be passed an optional ``reason``:',
  ]);
  const otherFile = { ...inner, id: 'other-file', citation: { ...inner.citation, path: 'doc/en/reference.rst' } };
  const issueBody: Chunk = { ...issueCommentChunk(), id: 'issue-body', citation: { ...issueCommentChunk().citation, commentId: undefined } };
  const linePart = (fragment: string): Chunk => {
    const citation: Citation = { path: 'src/_pytest/_data.py', startLine: 2, endLine: 2 };
    const text = `# src/_pytest/_data.py\n# (line 2, part 2)\n${fragment}`;
    return { id: chunkId('code', citation, text), collection: 'code', text, title: 'data', citation, tokens: 0 };
  };
  it.each([
    ['lines inside a taken block of the same file', skipFunctions, inner, false],
    ['another piece of the same over-long line', linePart('alpha beta'), linePart('gamma delta'), true],
    ['the same lines in another file', skipFunctions, otherFile, true],
    ['a wider range than the taken block', inner, skipFunctions, true],
    ["an issue's body and a comment with the same line numbers", issueCommentChunk(), issueBody, true],
  ] as const)('%s: kept=%s', (_what, taken, candidate, kept) => {
    const ctx = buildContext('q', 'en', candidates(taken, candidate), budget);
    expect(ctx.blocks.length).toBe(kept ? 2 : 1);
  });

  it('compares containment with the lines a cut block shows, not the whole chunk', () => {
    // The first block is cut after its first body line, so lines 13-18 are not shown by it.
    const cutAt = skipFunctions.text.indexOf('\n', skipFunctions.text.indexOf('The simplest'));
    const tail = docChunk(DOC, ['How to use skip and xfail', 'Skipping test functions'], 13, ['which may be passed an optional ``reason``:']);
    const ctx = buildContext('q', 'en', candidates(skipFunctions, tail), { chunks: 5, chars: cutAt + 5 });
    expect(ctx.blocks.map((b) => [b.citation.startLine, b.citation.endLine])).toEqual([
      [12, 12],
      [13, 13],
    ]);
  });

  it.each([
    [{ chunks: 0, chars: 100 }, 'context budget: chunks must be a positive integer, got 0'],
    [{ chunks: 2, chars: 1.5 }, 'context budget: chars must be a positive integer, got 1.5'],
  ])('rejects budget %j', (b, message) => {
    expect(() => buildContext('q', 'en', [], b)).toThrow(message);
  });
});

describe('buildContext: character budget per block', () => {
  it('cuts at the last line end that fits and moves the citation end up to the lines shown', () => {
    // Room for the header, the blank line and the first two body lines, plus a few characters.
    const twoLines = skipFunctions.text.indexOf('\n\n.. code-block');
    const ctx = buildContext('q', 'en', candidates(skipFunctions), { chunks: 5, chars: twoLines + 10 });
    const [block] = ctx.blocks;
    expect(block!.text).toBe(skipFunctions.text.slice(0, twoLines));
    expect(block!.text.endsWith('optional ``reason``:')).toBe(true);
    expect(block!.cut).toBe('lines');
    expect(block!.citation).toMatchObject({ path: DOC, startLine: 12, endLine: 13 });
    // The chunk keeps its own, whole citation.
    expect(block!.chunk.citation.endLine).toBe(18);
  });

  it('drops blank lines left at the end of a cut', () => {
    const ctx = buildContext('q', 'en', candidates(skipIntro), { chunks: 5, chars: skipIntro.text.indexOf('An **xfail**') });
    expect(ctx.blocks[0]!.text.endsWith('altogether.')).toBe(true);
    expect(ctx.blocks[0]!.citation.endLine).toBe(5);
  });

  it('cuts a single line longer than the budget at a word boundary, marked with " …"', () => {
    const long = docChunk(DOC, ['Long'], 30, [`${'word '.repeat(80)}end.`, 'second line']);
    const ctx = buildContext('q', 'en', candidates(long), { chunks: 5, chars: 60 });
    const block = ctx.blocks[0]!;
    expect(block.text.length).toBeLessThanOrEqual(60);
    expect(block.text.endsWith(`word${CUT_MARK}`)).toBe(true);
    expect(block.cut).toBe('words');
    expect(block.citation).toMatchObject({ startLine: 30, endLine: 30 });
  });

  it('keeps a block whole when it fits', () => {
    const ctx = buildContext('q', 'en', candidates(evaluate), budget);
    expect(ctx.blocks[0]!.text).toBe(evaluate.text);
    expect(ctx.blocks[0]!.cut).toBeUndefined();
  });

  it.each([
    ['fits', 'ab\ncd', 10, 0, 'ab\ncd', undefined],
    ['at a line end', 'ab\ncd\nef', 6, 0, 'ab\ncd', 'lines'],
    ['never inside the header: the first body line must fit whole, else words', 'header\n\nbody one two three', 15, 8, 'header\n\nbody …', 'words'],
    ['a word longer than the budget is cut anyway', 'abcdefghijklmnop', 8, 0, `abcdef${CUT_MARK}`, 'words'],
  ] as const)('cutText %s', (_what, text, chars, bodyStart, expected, cut) => {
    const out = cutText(text, chars, bodyStart);
    expect(out).toEqual(cut ? { text: expected, cut } : { text: expected });
    expect(out.text.length).toBeLessThanOrEqual(chars);
  });
});

describe('buildContext: immutable', () => {
  it('freezes the context deeply: writes throw (ES modules are strict)', () => {
    const ctx = buildContext('q', 'en', candidates(evaluate, skipIntro), budget);
    const loose = ctx as unknown as Record<string, any>;
    expect(() => {
      loose.question = 'other';
    }).toThrow(TypeError);
    expect(() => loose.blocks.push(loose.blocks[0])).toThrow(TypeError);
    expect(() => {
      loose.blocks[0].text = 'edited';
    }).toThrow(TypeError);
    expect(() => {
      loose.blocks[0].citation.endLine = 999;
    }).toThrow(TypeError);
    expect(() => {
      loose.blocks[0].chunk.citation.path = 'elsewhere.py';
    }).toThrow(TypeError);
    expect(() => {
      loose.blocks[0].scores.fused = 0;
    }).toThrow(TypeError);
    expect(() => {
      loose.budget.chars = 1e9;
    }).toThrow(TypeError);
  });

  it("copies the caller's chunks instead of freezing them, and leaves vectors out", () => {
    const stored: StoredChunk = { ...skipIntro, citation: { ...skipIntro.citation }, vector: new Float32Array([0.5, 0.5]) };
    const ctx = buildContext('q', 'en', [{ chunk: stored, scores: scores(stored, 'lookup') }], budget);
    expect(Object.isFrozen(stored)).toBe(false);
    expect(Object.isFrozen(stored.citation)).toBe(false);
    expect('vector' in ctx.blocks[0]!.chunk).toBe(false);
    expect(ctx.blocks[0]!.scores.via).toBe('lookup');
  });
});

describe('splitBlockText: header and body by chunk format', () => {
  it.each([
    ['docs: header line, blank line, body', skipIntro, docHeader(DOC, ['How to use skip and xfail']), 'A **skip** means'],
    ['code: `# path` and scope lines, then the cited lines', codeChunk(CODE, 20, ['    def evaluate(self):', '        return 1'], ['class Skip:']), `# ${CODE}\nclass Skip:`, '    def evaluate'],
    ['issues: title and comment lines, blank line, body', issueCommentChunk(), commentHeader(issue, issue.comments[0]!), 'The bug is in'],
  ])('%s', (_what, chunk, header, bodyStart) => {
    const { header: h, body } = splitBlockText(chunk);
    expect(h).toBe(header);
    expect(body.startsWith(bodyStart)).toBe(true);
  });
});

describe('renderContext', () => {
  it('writes each block as [n] and its citation line, then its text', () => {
    const ctx = buildContext('q', 'en', candidates(skipIntro, evaluate, issueCommentChunk()), budget);
    const text = renderContext(ctx);
    expect(text.split('\n\n[').length).toBe(3);
    expect(text.startsWith(`[1] ${DOC}:4-7 › How to use skip and xfail\n${skipIntro.text}\n\n[2] `)).toBe(true);
    expect(text).toContain(`[2] ${CODE}:12-16 | evaluate_skip_marks\n${evaluate.text}\n\n`);
    expect(text).toContain(`[3] Issue #7432 comment 650000001, lines 1-1\n${issueCommentChunk().text}`);
    expect(text.endsWith(issueCommentChunk().text)).toBe(true);
  });
});
