import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { answerSentences, parseMarkers, permalinkFor, verifyAnswer, type IndexedTree } from '../pipeline/answer/citations.ts';
import { buildContext } from '../pipeline/answer/context.ts';
import { ExtractiveGenerator } from '../pipeline/answer/generators/extractive.ts';
import type { Context, GeneratedAnswer, Generator, Language } from '../pipeline/answer/types.ts';
import { chunkCode } from '../pipeline/chunking/codeChunker.ts';
import { chunkDoc, docChunkText, docHeader } from '../pipeline/chunking/docChunker.ts';
import { chunkId } from '../pipeline/chunking/ids.ts';
import { chunkIssue, commentHeader, issueChunkText } from '../pipeline/chunking/issueChunker.ts';
import { HashingEmbedder } from '../pipeline/embedding/hashing.ts';
import type { Issue } from '../pipeline/sources/issues/types.ts';
import type { Chunk, Citation } from '../pipeline/types.ts';
import { pytestCorpus } from './support/paths.ts';

// A small indexed tree in memory, and chunks cut from it in the chunkers' own formats.

const DOC = 'doc/en/how-to/skipping.rst';
const CODE = 'src/_pytest/skipping.py';
const FILES: Record<string, string> = {
  [DOC]: [
    'How to use skip and xfail',
    '=========================',
    '',
    'A **skip** means that you expect your test to pass only if some conditions are met,',
    'otherwise pytest should skip running the test altogether.',
    '',
    'An **xfail** means that you expect a test to fail for some reason.',
    '',
    'Skipping test functions',
    '-----------------------',
    '',
    'The simplest way to skip a test function is to mark it with the ``skip`` decorator',
    'which may be passed an optional ``reason``:',
    '',
    '.. code-block:: python',
    '',
    '    @pytest.mark.skip(reason="no way of currently testing this")',
    '    def test_the_unknown(): ...',
    '',
    'Alternatively, it is also possible to skip imperatively during test execution or setup',
    'by calling the ``pytest.skip(reason)`` function.',
    '',
  ].join('\n'),
  [CODE]: [
    '"""Support for skip/xfail functions and markers."""',
    '',
    'from __future__ import annotations',
    '',
    '',
    'class Skip:',
    '    """The result of evaluate_skip_marks()."""',
    '',
    '    reason: str = "unconditional skip"',
    '',
    '',
    'def evaluate_skip_marks(item: Item) -> Skip | None:',
    '    """Evaluate skip and skipif marks on item, returning Skip if triggered."""',
    '    for mark in item.iter_markers(name="skip"):',
    '        return Skip(mark.kwargs.get("reason", "unconditional skip"))',
    '    return None',
    '',
  ].join('\r\n'),
};

const lines = (file: string, start: number, end: number) => FILES[file]!.split(/\r?\n/).slice(start - 1, end);

function docChunk(headings: string[], start: number, end: number, citation: Partial<Citation> = {}): Chunk {
  const text = docChunkText(docHeader(DOC, headings), lines(DOC, start, end).join('\n'));
  const cite: Citation = { path: DOC, startLine: start, endLine: end, headings, ...citation };
  return { id: chunkId('docs', cite, text), collection: 'docs', text, title: headings.join(' > '), citation: cite, tokens: 0 };
}

/** `# path`, the scope lines, then the cited lines verbatim: the code chunker's format. */
function codeChunk(start: number, end: number, symbol: string, citation: Partial<Citation> = {}): Chunk {
  const text = [`# ${CODE}`, ...lines(CODE, start, end)].join('\n');
  const cite: Citation = { path: CODE, startLine: start, endLine: end, symbol, ...citation };
  return { id: chunkId('code', cite, text), collection: 'code', text, title: `${CODE}:${symbol}`, citation: cite, tokens: 0 };
}

const issue: Issue = {
  number: 7432,
  title: 'skipping: --runxfail breaks pytest.mark.skip location reporting',
  body: 'With --runxfail the location of a skipped test points at skipping.py.',
  state: 'closed',
  labels: [],
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

function commentChunk(commentId = 650000001): Chunk {
  const comment = issue.comments[0]!;
  const citation: Citation = { path: '#7432', startLine: 1, endLine: 1, issue: 7432, commentId, url: comment.url };
  const text = issueChunkText(commentHeader(issue, comment), comment.body);
  return { id: chunkId('issues', citation, text), collection: 'issues', text, title: `#7432 comment ${commentId}`, citation, tokens: 0 };
}

const intro = docChunk(['How to use skip and xfail'], 4, 7);
const skipFunctions = docChunk(['How to use skip and xfail', 'Skipping test functions'], 12, 21);
const evaluate = codeChunk(12, 16, 'evaluate_skip_marks');

const tree: IndexedTree = {
  readFile: (p) => FILES[p] ?? null,
  issueExists: (n, commentId) => n === 7432 && (commentId === undefined || commentId === 650000001),
  permalink: (p, start, end) => permalinkFor('pytest-dev/pytest', '8.4.2', p, start, end)!,
};

function context(chunks: Chunk[], language: Language = 'en', chars = 2400): Context {
  return buildContext(
    'q',
    language,
    chunks.map((chunk) => ({ chunk, scores: { collection: chunk.collection, fused: 1, bm25: null, dense: null, via: 'search' } })),
    { chunks: 5, chars },
  );
}

/** A generator that says what it is told, to feed verification wrong answers on purpose. */
class StubGenerator implements Generator {
  readonly id = 'stub';
  constructor(
    private readonly text: string,
    private readonly extra: Partial<GeneratedAnswer> = {},
  ) {}

  generate(_question: string, ctx: Context): Promise<GeneratedAnswer> {
    return Promise.resolve({ text: this.text, language: ctx.language, generator: this.id, ...this.extra });
  }
}

async function verifyStub(text: string, ctx: Context, extra: Partial<GeneratedAnswer> = {}) {
  return verifyAnswer(await new StubGenerator(text, extra).generate('q', ctx), ctx, tree);
}

describe('verifyAnswer: extractive answers over a hand-made context', () => {
  it.each([
    ['How do I skip a test function?', 'en'],
    ['¿Cómo salto una función de test con skip?', 'es'],
    ['What does evaluate_skip_marks return?', 'en'],
    ['Where is the --runxfail bug of the skip location?', 'en'],
  ] as const)('%s: every marker resolves, every sentence is supported', async (q, language) => {
    const ctx = context([intro, skipFunctions, evaluate, commentChunk()], language);
    const answer = await new ExtractiveGenerator().generate(q, ctx);
    const verified = verifyAnswer(answer, ctx, tree);
    expect(verified.noAnswer).toBeUndefined();
    expect(verified.invalid).toEqual([]);
    expect(verified.unsupported).toEqual([]);
    expect(verified.citations.map((c) => c.marker)).toEqual([...new Set(parseMarkers(answer.text))]);
    expect(verified.citations.length).toBeGreaterThan(0);
  });

  it('resolves citations with their lines, permalink or issue URL, and a snippet of the body', async () => {
    const ctx = context([skipFunctions, evaluate, commentChunk()]);
    const verified = await verifyStub('Skips are marks [1]. Skip marks are evaluated here [2]. The bug is in a hook [3].', ctx);
    expect(verified.citations).toEqual([
      {
        marker: 1,
        collection: 'docs',
        path: DOC,
        startLine: 12,
        endLine: 21,
        headings: ['How to use skip and xfail', 'Skipping test functions'],
        url: `https://github.com/pytest-dev/pytest/blob/8.4.2/${DOC}#L12-L21`,
        snippet: expect.stringMatching(/^The simplest way to skip a test function .{100,} …$/s),
        verified: true,
      },
      {
        marker: 2,
        collection: 'code',
        path: CODE,
        startLine: 12,
        endLine: 16,
        symbol: 'evaluate_skip_marks',
        url: `https://github.com/pytest-dev/pytest/blob/8.4.2/${CODE}#L12-L16`,
        snippet: expect.stringMatching(/^def evaluate_skip_marks\(item: Item\) -> Skip \| None:\n/),
        verified: true,
      },
      {
        marker: 3,
        collection: 'issues',
        path: '#7432',
        startLine: 1,
        endLine: 1,
        issue: 7432,
        commentId: 650000001,
        url: issue.comments[0]!.url,
        snippet: 'The bug is in the pytest_runtest_makereport hook.',
        verified: true,
      },
    ]);
    expect(verified.citations[0]!.snippet.length).toBeLessThanOrEqual(202);
    expect(verified).toMatchObject({ invalid: [], unsupported: [] });
  });

  it('verifies blocks the budget cut at a line end, and inside an over-long line', async () => {
    const cutAtLine = context([skipFunctions], 'en', skipFunctions.text.indexOf('\n\n.. code-block') + 3);
    expect(cutAtLine.blocks[0]).toMatchObject({ cut: 'lines', citation: { startLine: 12, endLine: 13 } });
    const cutInLine = context([skipFunctions], 'en', skipFunctions.text.indexOf('decorator'));
    expect(cutInLine.blocks[0]).toMatchObject({ cut: 'words', citation: { startLine: 12, endLine: 12 } });
    for (const ctx of [cutAtLine, cutInLine]) {
      const verified = await verifyStub('The simplest way to skip is a mark [1].', ctx);
      expect(verified.invalid).toEqual([]);
      expect(verified.citations.map((c) => [c.startLine, c.endLine])).toEqual([[12, ctx.blocks[0]!.citation.endLine]]);
    }
  });
});

describe('verifyAnswer: wrong citations are caught', () => {
  const wrongPath = codeChunk(12, 16, 'evaluate_skip_marks', { path: 'src/_pytest/skiping.py' });
  const beyond = docChunk(['How to use skip and xfail'], 4, 7, { startLine: 40, endLine: 43 });
  const shifted = codeChunk(12, 16, 'evaluate_skip_marks', { startLine: 11, endLine: 15 });
  const unknownComment = commentChunk(123);

  // One line per case: [what, context, answer, problem of the bad marker].
  it.each([
    ['an invented marker', [intro, skipFunctions, evaluate], 'Pytest can skip a test [9].', 9, 'marker [9] refers to no block (the context has 3)'],
    ['marker zero', [intro], 'Pytest can skip a test [0].', 0, 'marker [0] refers to no block (the context has 1)'],
    ['a path not in the tree', [intro, wrongPath], 'Skip marks are evaluated here [2].', 2, 'src/_pytest/skiping.py is not in the indexed tree'],
    ['lines beyond the end of the file', [beyond], 'A skip needs conditions [1].', 1, `lines 40-43 are beyond the end of ${DOC} (21 lines)`],
    ['lines that exist but do not hold the text', [intro, shifted], 'Skip marks are evaluated here [2].', 2, `lines 11-15 of ${CODE} do not hold the block's text`],
    ['a comment that is not indexed', [unknownComment], 'The bug is in a hook [1].', 1, 'comment 123 of issue #7432 is not in the index'],
  ] as const)('%s', async (_what, chunks, text, marker, problem) => {
    const verified = await verifyStub(text, context([...chunks]));
    expect(verified.invalid).toEqual([{ marker, problem }]);
    expect(verified.citations).toEqual([]);
    expect(verified.unsupported).toEqual([text]);
  });

  it('checks a piece of an over-long line (`# (line N, part k)` header) within that line', async () => {
    const file = 'src/_pytest/_data.py';
    const long = `DATA = "${'alpha beta gamma '.repeat(20)}"`;
    const treeWithData: IndexedTree = { ...tree, readFile: (p) => (p === file ? `x = 1\n${long}\n` : tree.readFile(p)) };
    const part = (fragment: string): Chunk => {
      const citation: Citation = { path: file, startLine: 2, endLine: 2 };
      const text = `# ${file}\n# (line 2, part 2)\n${fragment}`;
      return { id: chunkId('code', citation, text), collection: 'code', text, title: `${file} (lines 2-2)`, citation, tokens: 0 };
    };
    const ctx = context([part(long.slice(100, 180)), part('delta epsilon')]);
    const verified = verifyAnswer(await new StubGenerator('The data holds Greek letters [1]. And more [2].').generate('q', ctx), ctx, treeWithData);
    expect(verified.citations.map((c) => c.marker)).toEqual([1]);
    expect(verified.invalid).toEqual([{ marker: 2, problem: `lines 2-2 of ${file} do not hold the block's text` }]);
  });

  it('keeps a sentence that also has a valid marker supported, and never lists the bad marker as a citation', async () => {
    const ctx = context([intro, skipFunctions]);
    const verified = await verifyStub('A skip needs conditions [1][7]. Skips take a reason [2, 8].', ctx);
    expect(verified.citations.map((c) => c.marker)).toEqual([1, 2]);
    expect(verified.invalid.map((i) => i.marker)).toEqual([7, 8]);
    expect(verified.unsupported).toEqual([]);
  });

  it('checks the same bad marker once, in order of first use', async () => {
    const ctx = context([intro]);
    const verified = await verifyStub('One claim [4]. Another claim [4]. A third [1].', ctx);
    expect(verified.invalid).toEqual([{ marker: 4, problem: 'marker [4] refers to no block (the context has 1)' }]);
    expect(verified.unsupported).toEqual(['One claim [4].', 'Another claim [4].']);
    expect(verified.citations.map((c) => c.marker)).toEqual([1]);
  });
});

describe('verifyAnswer: quoted text', () => {
  const ctx = context([intro, skipFunctions]);

  it('checks every marked sentence of a verbatim answer against its block', async () => {
    const text = 'According to the sources:\n\n- An **xfail** means that you expect a test to fail for some reason. [1]\n- An **xfail** means that the test is broken. [1]';
    const verified = await verifyStub(text, ctx, { verbatim: true });
    expect(verified.unsupported).toEqual(['- An **xfail** means that the test is broken. [1]']);
    expect(verified.invalid).toEqual([
      {
        marker: 1,
        problem: 'block [1] does not hold the quoted text "An **xfail** means that the test is broken."',
        sentence: '- An **xfail** means that the test is broken. [1]',
      },
    ]);
    // Marker 1 is still a citation: the first sentence quotes it faithfully.
    expect(verified.citations.map((c) => c.marker)).toEqual([1]);
  });

  it.each([
    ['a paraphrase', 'Pytest skips tests whose conditions are not met [1].', true],
    ['a quotation found in the block', 'The docs say a skip runs only "if some conditions are met" [1].', true],
    ['a code span found in the block', 'Use `pytest.skip(reason)` to skip imperatively [2].', true],
    ['a quotation the block does not hold', 'The docs say "skip is deprecated" [1].', false],
    ['a code span the block does not hold', 'Use `pytest.mark.omit` to skip [2].', false],
  ])('paraphrasing answers: only quoted spans are checked (%s)', async (_what, text, supported) => {
    const verified = await verifyStub(text, ctx);
    expect(verified.unsupported).toEqual(supported ? [] : [text]);
    expect(verified.citations.length).toBe(supported ? 1 : 0);
  });
});

describe('verifyAnswer: sentences', () => {
  const ctx = context([intro]);

  it('reports claims without a marker, but not lead-ins or a no-answer statement', async () => {
    const verified = await verifyStub('According to the sources:\n\n- A skip needs conditions. [1]\n- Pytest is fast.', ctx);
    expect(verified.unsupported).toEqual(['- Pytest is fast.']);
    const none = await verifyStub('I could not find the answer in the indexed sources.', ctx, { noAnswer: true });
    expect(none).toMatchObject({ citations: [], invalid: [], unsupported: [] });
    const claim = await verifyStub('I could not find the answer in the indexed sources.', ctx);
    expect(claim.unsupported).toEqual(['I could not find the answer in the indexed sources.']);
  });

  it.each([
    ['Skips [1]. Xfails [2][3].', [1, 2, 3]],
    ['Both [1, 2] and [ 3 ].', [1, 2]],
    ['Code spans are not markers: `items[1]` [4].', [4]],
    ['Nothing here.', []],
  ])('parseMarkers(%j)', (text, markers) => {
    expect(parseMarkers(text)).toEqual(markers);
  });

  it('gives markers that open a segment to the sentence before them', () => {
    expect(answerSentences('- First sentence. [1]\n- Second one. [2][3] Third [4].')).toEqual([
      '- First sentence. [1]',
      '- Second one. [2][3]',
      'Third [4].',
    ]);
  });

  it('never ends a sentence inside a code span', () => {
    const where = '- `src/_pytest/junitxml.py` (pytest_sessionfinish): `logfile.write(\'<?xml version="1.0"?>\')` [1]\n- `a.py` (f): `"Mark a fixture. Or not."` [2]';
    expect(answerSentences(where)).toEqual([
      '- `src/_pytest/junitxml.py` (pytest_sessionfinish): `logfile.write(\'<?xml version="1.0"?>\')` [1]',
      '- `a.py` (f): `"Mark a fixture. Or not."` [2]',
    ]);
  });
});

describe('permalinkFor', () => {
  it.each([
    ['pytest-dev/pytest', '8.4.2', 'src/_pytest/skipping.py', 1, 5, 'https://github.com/pytest-dev/pytest/blob/8.4.2/src/_pytest/skipping.py#L1-L5'],
    ['https://github.com/pytest-dev/pytest.git', 'main', 'doc/a b.md', 3, 3, 'https://github.com/pytest-dev/pytest/blob/main/doc/a%20b.md#L3-L3'],
    ['https://github.com/o/r/', 'release/8.x', 'x.py', 2, 9, 'https://github.com/o/r/blob/release/8.x/x.py#L2-L9'],
    [undefined, 'main', 'x.py', 1, 1, undefined],
  ])('permalinkFor(%j, %j, %j, %d, %d)', (github, ref, file, start, end, url) => {
    expect(permalinkFor(github, ref, file, start, end)).toBe(url);
  });
});

const hasCorpus = fs.existsSync(path.join(pytestCorpus, 'src/_pytest/skipping.py'));
const corpusNote = hasCorpus ? '' : ` (SKIPPED: ${pytestCorpus} is missing; \`npm run setup\` fetches the pytest corpus)`;

describe('verifyAnswer: real chunks of the pytest corpus', () => {
  it.runIf(hasCorpus)(`extractive answers over chunks of the real chunkers verify against the real files${corpusNote}`, async () => {
    // The hashing embedder only counts tokens here: its counts are approximate, the chunk formats are the real ones.
    const counter = new HashingEmbedder();
    const options = { maxTokens: 512, lineWindow: 60 };
    const read = (p: string) => {
      const abs = path.join(pytestCorpus, p);
      return fs.existsSync(abs) ? fs.readFileSync(abs, 'utf8') : null;
    };
    const doc = chunkDoc({ collection: 'docs', path: 'doc/en/how-to/skipping.rst', text: read('doc/en/how-to/skipping.rst')!, format: 'rst' }, counter, options);
    const code = await chunkCode({ collection: 'code', path: CODE, text: read(CODE)!, format: 'python' }, counter, options);
    const issueChunks = chunkIssue(issue, counter, options);
    const picks = [
      doc.find((c) => c.text.includes('The simplest way to skip a test function'))!,
      code.find((c) => c.citation.symbol === 'evaluate_skip_marks')!,
      doc.find((c) => c.text.includes('An **xfail** means'))!,
      issueChunks[1]!,
    ];
    expect(picks.every(Boolean)).toBe(true);
    const realTree: IndexedTree = {
      readFile: read,
      issueExists: (n, commentId) => issueChunks.some((c) => c.citation.issue === n && c.citation.commentId === commentId),
    };
    for (const [q, language, chars] of [
      ['How do I skip a test function?', 'en', 2400],
      ['What does evaluate_skip_marks do?', 'en', 2400],
      ['¿Qué significa xfail en un test?', 'es', 1000],
    ] as const) {
      const ctx = buildContext(
        q,
        language,
        picks.map((chunk) => ({ chunk, scores: { collection: chunk.collection, fused: 1, bm25: null, dense: null, via: 'search' } })),
        { chunks: 4, chars },
      );
      // The smaller budget cuts blocks: the shortened citations must verify too.
      if (chars < 2400) expect(ctx.blocks.some((b) => b.cut === 'lines')).toBe(true);
      const verified = verifyAnswer(await new ExtractiveGenerator().generate(q, ctx), ctx, realTree);
      expect(verified.noAnswer, q).toBeUndefined();
      expect(verified.invalid, q).toEqual([]);
      expect(verified.unsupported, q).toEqual([]);
      expect(verified.citations.length, q).toBeGreaterThan(0);
    }
  });
});
