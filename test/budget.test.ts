import { describe, expect, it } from 'vitest';
import { chunkDocument } from '../pipeline/chunking/index.ts';
import { chunkIssue } from '../pipeline/chunking/issueChunker.ts';
import { cutAtCharacters, packToBudget, sumSearch } from '../pipeline/chunking/budget.ts';
import type { Issue } from '../pipeline/sources/issues/types.ts';
import type { TokenCounter } from '../pipeline/types.ts';

/** Two tokens a count, plus one a word. */
const words: TokenCounter = { window: 512, countTokens: (t) => 2 + (t.match(/\S+/g)?.length ?? 0) };
/** Two tokens a count, plus one a character that is not a space. */
const chars: TokenCounter = { window: 512, countTokens: (t) => 2 + t.replace(/\s/g, '').length };

describe('packToBudget (one packer for docs, code and issues)', () => {
  // Atoms are words of these sizes; a piece costs 1 + its atoms' sizes.
  const pack = (sizes: number[], budget: number, breakCost?: (j: number) => number) => {
    const runs: Array<[number, number, number]> = [];
    const resorted: number[] = [];
    const measure = (i: number, j: number) => 1 + sizes.slice(i, j).reduce((a, b) => a + b, 0);
    packToBudget({
      budget,
      size: () => sizes.length,
      search: sumSearch({ budget, size: () => sizes.length, base: () => 1, cost: (k) => sizes[k]!, measure, breakCost, countLone: false, grow: false }),
      refine: () => false,
      lastResort: (i) => {
        resorted.push(i);
        return 1;
      },
      emit: (i, run) => runs.push([i, run.end, run.tokens]),
    });
    return { runs, resorted };
  };

  it('puts every atom in exactly one piece that fits, in order; an atom too big alone goes to the last resort', () => {
    const { runs, resorted } = pack([2, 3, 4, 20, 1, 1, 5], 8);
    expect(runs).toEqual([
      [0, 2, 6],
      [2, 3, 5],
      [4, 7, 8],
    ]);
    expect(resorted).toEqual([3]);
  });

  it('ends a piece at the cheapest break within the budget, the furthest among equals', () => {
    // Breaking before atom 2 is free, every other break costs 1.
    const { runs } = pack([1, 1, 1, 1, 1, 1], 6, (j) => (j === 2 ? 0 : 1));
    expect(runs.map(([i, j]) => [i, j])).toEqual([
      [0, 2],
      [2, 6],
    ]);
  });
});

describe('cutAtCharacters (the one last-resort cut)', () => {
  it('cuts into the longest prefixes that fit, keeping every character, after a space when asked', () => {
    const text = 'abcdefghij klmnopqrstuvwxyz';
    const parts = cutAtCharacters(text, { budget: 12, count: (_, s, e) => chars.countTokens(text.slice(s, e)), rate: 1 });
    expect(parts.map((p) => text.slice(p.start, p.end)).join('')).toBe(text);
    expect(parts.map((p) => p.tokens)).toEqual([12, 12, 8]);
    expect(parts.every((p) => p.fits)).toBe(true);
    const atSpace = cutAtCharacters(text, { budget: 12, count: (_, s, e) => chars.countTokens(text.slice(s, e)), rate: 1, atSpace: true });
    expect(text.slice(atSpace[0]!.start, atSpace[0]!.end)).toBe('abcdefghij ');
  });

  it('returns the rest as one part that does not fit when not even a character fits', () => {
    const parts = cutAtCharacters('abc', { budget: 2, count: (_, s, e) => chars.countTokens('abc'.slice(s, e)), rate: 1 });
    expect(parts).toEqual([{ start: 0, end: 3, tokens: 3, fits: false }]);
  });
});

describe('a cut below the line is reported the same way by the doc, code and issue chunkers', () => {
  const word = 'x'.repeat(200);
  const options = { maxTokens: 64, lineWindow: 40 };

  it('docs', async () => {
    const warnings: string[] = [];
    await chunkDocument({ collection: 'docs', path: 'a.md', format: 'markdown', text: `# A\n\n${word}\n` }, chars, options, (m) => warnings.push(m));
    expect(warnings).toEqual(['a.md:3-3: a line longer than 64 tokens was cut between words', 'a.md:3-3: a word longer than 64 tokens was cut between characters']);
  });

  it('code (which cut long lines silently)', async () => {
    const warnings: string[] = [];
    const chunks = await chunkDocument({ collection: 'code', path: 'a.js', format: 'javascript', text: `const a = "${word}";\n` }, chars, options, (m) =>
      warnings.push(m),
    );
    expect(chunks.length).toBeGreaterThan(1);
    expect(warnings).toEqual(['a.js:1-1: a word longer than 64 tokens was cut between characters']);
    const spaced = Array.from({ length: 80 }, (_, i) => `w${i}`).join(' ');
    warnings.length = 0;
    await chunkDocument({ collection: 'code', path: 'b.js', format: 'javascript', text: `const b = "${spaced}";\n` }, words, { maxTokens: 24, lineWindow: 40 }, (m) =>
      warnings.push(m),
    );
    expect(warnings).toEqual(['b.js:1-1: a line longer than 24 tokens was cut between words']);
  });

  it('issues', () => {
    const warnings: string[] = [];
    const issue: Issue = {
      number: 3,
      title: 'T',
      body: word,
      state: 'open',
      labels: [],
      author: 'a',
      createdAt: '2024-01-01T00:00:00Z',
      updatedAt: '2024-01-01T00:00:00Z',
      url: 'https://example.test/3',
      isPullRequest: false,
      comments: [],
    };
    chunkIssue(issue, chars, options, (m) => warnings.push(m));
    expect(warnings).toEqual(['#3: a line longer than 64 tokens was cut between words', '#3: a word longer than 64 tokens was cut between characters']);
  });
});
