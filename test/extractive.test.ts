import { describe, expect, it } from 'vitest';
import { answerSentences, parseMarkers, quotedSpans, quoteOf } from '../pipeline/answer/citations.ts';
import { buildContext, normaliseText } from '../pipeline/answer/context.ts';
import { answerShape, EXTRACTIVE_DEFAULTS, ExtractiveGenerator, extractiveAnswer, isCodeQuestion, mentionedNames, quoteCandidates, unknownNames, type ExtractiveOptions, type Meaning } from '../pipeline/answer/generators/extractive.ts';
import { createGenerator, extractiveOptions } from '../pipeline/answer/generators/index.ts';
import { HashingEmbedder } from '../pipeline/embedding/hashing.ts';
import { configSchema } from '../pipeline/config/schema.ts';
import { contentTerms } from '../pipeline/text/analysis.ts';
import type { Context, Language } from '../pipeline/answer/types.ts';
import { docChunkText, docHeader } from '../pipeline/chunking/docChunker.ts';
import { chunkId } from '../pipeline/chunking/ids.ts';
import { issueChunkText, issueHeader } from '../pipeline/chunking/issueChunker.ts';
import type { Issue } from '../pipeline/sources/issues/types.ts';
import type { Chunk, Citation } from '../pipeline/types.ts';
import { recordingEmbedder } from './support/recordingEmbedder.ts';

// Hand-made chunks in the chunkers' own formats (header helpers imported from them).

const DOC = 'doc/en/how-to/skipping.rst';
const CODE = 'src/_pytest/skipping.py';

/** A doc chunk of a page, titled by its headings, as the doc chunker writes one. */
function pageChunk(path: string, headings: string[], startLine: number, bodyLines: string[]): Chunk {
  const citation: Citation = { path, startLine, endLine: startLine + bodyLines.length - 1, headings };
  const text = docChunkText(docHeader(path, headings), bodyLines.join('\n'));
  return { id: chunkId('docs', citation, text), collection: 'docs', text, title: headings.join(' > '), citation, tokens: 0 };
}

const docChunk = (headings: string[], startLine: number, bodyLines: string[]): Chunk => pageChunk(DOC, headings, startLine, bodyLines);

function codeChunk(startLine: number, bodyLines: string[], symbol: string): Chunk {
  const citation: Citation = { path: CODE, startLine, endLine: startLine + bodyLines.length - 1, symbol };
  const text = [`# ${CODE}`, ...bodyLines].join('\n');
  return { id: chunkId('code', citation, text), collection: 'code', text, title: `${CODE}:${symbol}`, citation, tokens: 0 };
}

const issue: Issue = {
  number: 7432,
  title: 'skipping: --runxfail breaks pytest.mark.skip location reporting',
  body: 'With `--runxfail` the location reported for a skipped test points at skipping.py instead of the test.\n\nThe bug is in the pytest_runtest_makereport hook of src/_pytest/skipping.py.',
  state: 'closed',
  labels: ['type: bug'],
  author: 'someone',
  createdAt: '2020-06-28T15:02:07Z',
  updatedAt: '2020-07-01T10:00:00Z',
  url: 'https://github.com/pytest-dev/pytest/issues/7432',
  isPullRequest: false,
  comments: [],
};

function issueChunk(): Chunk {
  const citation: Citation = { path: '#7432', startLine: 1, endLine: 3, issue: 7432, url: issue.url };
  const text = issueChunkText(issueHeader(issue), issue.body);
  return { id: chunkId('issues', citation, text), collection: 'issues', text, title: `#7432: ${issue.title}`, citation, tokens: 0 };
}

const skipFunctions = docChunk(['How to use skip and xfail', 'Skipping test functions'], 44, [
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
]);
const intro = docChunk(['How to use skip and xfail'], 6, [
  'A **skip** means that you expect your test to pass only if some conditions are met,',
  'otherwise pytest should skip running the test altogether. Common examples are skipping',
  'windows-only tests on non-windows platforms.',
  '',
  'An **xfail** means that you expect a test to fail for some reason.',
]);
const evaluate = codeChunk(
  168,
  [
    'def evaluate_skip_marks(item: Item) -> Skip | None:',
    '    """Evaluate skip and skipif marks on item, returning Skip if triggered."""',
    '    for mark in item.iter_markers(name="skip"):',
    '        return Skip(mark.kwargs.get("reason", "unconditional skip"))',
    '    return None',
  ],
  'evaluate_skip_marks',
);

function context(question: string, language: Language, ...chunks: Chunk[]): Context {
  return buildContext(
    question,
    language,
    chunks.map((chunk) => ({ chunk, scores: { collection: chunk.collection, fused: 1, bm25: null, dense: null, via: 'search' } })),
    { chunks: 5, chars: 2400 },
  );
}

/** A context whose first block was looked up (an issue named in the question), as ask() orders them. */
function lookedUpContext(question: string, language: Language, first: Chunk, ...rest: Chunk[]): Context {
  return buildContext(
    question,
    language,
    [first, ...rest].map((chunk, i) => ({ chunk, scores: { collection: chunk.collection, fused: 1, bm25: null, dense: null, via: i === 0 ? 'lookup' : 'search' } })),
    { chunks: 5, chars: 2400 },
  );
}

/** Every quoted or backticked span of a non-verbatim answer is in the block its line cites. */
function expectSpansHeld(text: string, ctx: Context): void {
  for (const sentence of answerSentences(text).filter((s) => parseMarkers(s).length > 0)) {
    const [marker] = parseMarkers(sentence);
    const block = normaliseText(ctx.blocks[marker! - 1]!.text);
    for (const span of quotedSpans(sentence)) expect(block, sentence).toContain(span);
  }
}

/** Each quoted sentence is in its cited block (whitespace aside), and whole when it is one line of it. */
function expectVerbatim(text: string, ctx: Context): void {
  for (const sentence of answerSentences(text).filter((s) => parseMarkers(s).length > 0)) {
    const [marker] = parseMarkers(sentence);
    const block = ctx.blocks[marker! - 1]!;
    expect(normaliseText(block.text), sentence).toContain(quoteOf(sentence));
  }
}

describe('ExtractiveGenerator', () => {
  it('quotes the most relevant sentences with their markers, in English', async () => {
    const q = 'How do I skip a test function?';
    const ctx = context(q, 'en', skipFunctions, intro, evaluate);
    const answer = await new ExtractiveGenerator().generate(q, ctx);
    expect(answer).toMatchObject({ language: 'en', generator: 'extractive', verbatim: true });
    expect(answer.noAnswer).toBeUndefined();
    expect(answer.text).toBe(
      [
        'According to the documentation:',
        '',
        '- The simplest way to skip a test function is to mark it with the ``skip`` decorator which may be passed an optional ``reason``: [1]',
        // A how-to answer shows the code that follows its best quote, verbatim.
        '- `@pytest.mark.skip(reason="no way of currently testing this")` [1]',
        '- Alternatively, it is also possible to skip imperatively during test execution or setup by calling the ``pytest.skip(reason)`` function. [1]',
        '- A **skip** means that you expect your test to pass only if some conditions are met, otherwise pytest should skip running the test altogether. [2]',
        '- Common examples are skipping windows-only tests on non-windows platforms. [2]',
      ].join('\n'),
    );
    expectVerbatim(answer.text, ctx);
  });

  it('answers a Spanish question with a Spanish lead-in, quoting the sources as written', async () => {
    const q = '¿Cómo puedo saltar una función de test con skip?';
    const ctx = context(q, 'es', skipFunctions, intro);
    const answer = await new ExtractiveGenerator().generate(q, ctx);
    expect(answer.language).toBe('es');
    expect(answer.text.startsWith('Según la documentación:\n\n- ')).toBe(true);
    expect(new Set(parseMarkers(answer.text))).toEqual(new Set([1, 2]));
    expectVerbatim(answer.text, ctx);
  });

  it.each([
    ['en', 'How do I bake sourdough bread?', 'I could not find the answer in the indexed sources.'],
    ['es', '¿Cómo horneo pan de masa madre?', 'No encuentro la respuesta en las fuentes indexadas.'],
    ['en', 'What is it?', 'I could not find the answer in the indexed sources: the question has no word to look for.'],
  ] as const)('says plainly when the context holds no answer (%s: %s)', async (language, q, text) => {
    const answer = await new ExtractiveGenerator().generate(q, context(q, language, skipFunctions, intro, evaluate));
    expect(answer).toMatchObject({ text, language, noAnswer: true });
    expect(parseMarkers(answer.text)).toEqual([]);
  });

  it('quotes the signature of a code block when the question is about code, and its docstring', () => {
    const q = 'What does evaluate_skip_marks return?';
    const ctx = context(q, 'en', evaluate, intro);
    const answer = extractiveAnswer(q, ctx);
    expect(answer.text).toContain('- `def evaluate_skip_marks(item: Item) -> Skip | None:` [1]');
    expect(answer.text).toContain('- Evaluate skip and skipif marks on item, returning Skip if triggered. [1]');
    expectVerbatim(answer.text, ctx);
  });

  it('never quotes code lines for a question that is not about code', () => {
    const q = 'Which marks are evaluated on the item for skip?';
    const answer = extractiveAnswer(q, context(q, 'en', evaluate));
    expect(answer.text).toBe('According to the code:\n\n- Evaluate skip and skipif marks on item, returning Skip if triggered. [1]');
    expect(answer.text).not.toContain('def evaluate_skip_marks');
    expect(answer.text).not.toContain('iter_markers');
  });

  it('names the issue when every quote comes from one issue', () => {
    const q = 'Where is the bug of --runxfail with the skip location?';
    const ctx = context(q, 'en', issueChunk());
    const answer = extractiveAnswer(q, ctx);
    expect(answer.text.startsWith('According to issue #7432:\n\n- ')).toBe(true);
    expect(answer.text).not.toContain('state: closed');
    expectVerbatim(answer.text, ctx);
  });

  it('spread: blocks draws on two blocks when two qualify, within the sentence and character limits', () => {
    const q = 'How do I skip a test?';
    const ctx = context(q, 'en', skipFunctions, intro);
    const three = extractiveAnswer(q, ctx, { maxSentences: 2, spread: 'blocks' });
    // Two quotes, one per block, and the code line that follows the best one (block 1).
    expect(parseMarkers(three.text)).toEqual([1, 1, 2]);
    expect(three.text).toContain('- `@pytest.mark.skip(reason="no way of currently testing this")` [1]');
    const short = extractiveAnswer(q, ctx, { maxChars: 200 });
    const quoted = answerSentences(short.text).filter((s) => parseMarkers(s).length > 0);
    expect(quoted.reduce((n, s) => n + quoteOf(s).length, 0)).toBeLessThanOrEqual(200);
  });

  it('is deterministic', () => {
    const q = 'How do I skip a test function?';
    const ctx = context(q, 'en', skipFunctions, intro, evaluate);
    expect(extractiveAnswer(q, ctx)).toEqual(extractiveAnswer(q, ctx));
  });
});

describe('answer shapes', () => {
  it('answers a where-question over code with the file, symbol and the line that makes it relevant', () => {
    const q = 'Where are the skip marks evaluated?';
    const ctx = context(q, 'en', evaluate, intro);
    expect(answerShape(q, ctx)).toBe('where');
    const answer = extractiveAnswer(q, ctx);
    expect(answer.verbatim).toBe(false);
    expect(answer.text).toBe(
      'Where to look:\n\n- `src/_pytest/skipping.py` (evaluate_skip_marks): `def evaluate_skip_marks(item: Item) -> Skip | None:` [1]',
    );
    expectSpansHeld(answer.text, ctx);
    // A comment that is a URL alone matches the question's words and says nothing: never the line shown.
    const bootstrap = 'Where does the import bootstrap load a module by its path?';
    const spec = codeChunk(
      575,
      [
        'def _import_module_using_spec(module_name, module_path, module_location):',
        '    # https://github.com/python/cpython/blob/main/Lib/importlib/_bootstrap.py#L1308-import-bootstrap-load-module-path',
        '    spec = importlib.util.spec_from_file_location(module_name, str(module_path))',
      ],
      '_import_module_using_spec',
    );
    expect(extractiveAnswer(bootstrap, context(bootstrap, 'en', spec, intro)).text).not.toContain('https://');
  });

  it('lists at most whereFiles files (5 by default, answer.generator.whereFiles)', () => {
    const q = 'Where are the skip marks evaluated?';
    const file = (n: number): Chunk => {
      const c = codeChunk(10 * n, [`def evaluate_skip_marks_${n}(item):`, '    """Evaluate skip marks."""'], `evaluate_skip_marks_${n}`);
      return { ...c, id: `skip${n}`, citation: { ...c.citation, path: `src/skip${n}.py` } };
    };
    const ctx = context(q, 'en', file(1), file(2), file(3), file(4), file(5));
    const listed = (opts: ExtractiveOptions) => extractiveAnswer(q, ctx, opts).text.split('\n').filter((l) => l.startsWith('- ')).length;
    expect(listed({})).toBe(5);
    expect(listed({ whereFiles: 3 })).toBe(3);
    expect(extractiveOptions(configSchema.shape.answer.shape.generator.parse({ kind: 'extractive', whereFiles: 3 }))).toMatchObject({ whereFiles: 3 });
  });

  it('answers a pasted issue with where to look when search finds it among the issues too', () => {
    // The pasted report matches its own filed issue best; the files after it are code.
    const pasted = `The skip location is wrong with --runxfail\n\n\`\`\`\nSKIPPED [1] src/_pytest/skipping.py:239: unconditional skip\n\`\`\`\n`;
    const ctx = context(pasted, 'en', issueChunk(), evaluate, intro, codeChunk(230, ['def pytest_runtest_makereport(item, call):', '    rep.longrepr = str(filename), line + 1, reason'], 'pytest_runtest_makereport'));
    expect(answerShape(pasted, ctx)).toBe('where');
    expect(extractiveAnswer(pasted, ctx).text.startsWith('Where to look:\n\n- `src/_pytest/skipping.py` (evaluate_skip_marks)')).toBe(true);
    // Issues alone: nothing to point at.
    expect(answerShape(pasted, context(pasted, 'en', issueChunk()))).toBe('quote');
  });

  it('answers "where is the bug from #N" with the issue in its own words, then the code', () => {
    const q = '¿Dónde está el bug del issue #7432?';
    const ctx = lookedUpContext(q, 'es', issueChunk(), evaluate);
    expect(answerShape(q, ctx)).toBe('issue');
    const answer = extractiveAnswer(q, ctx);
    const [issuePart, wherePart] = answer.text.split('\n\nDónde mirar:\n\n');
    expect(issuePart!.startsWith('Según el issue #7432:\n\n- “')).toBe(true);
    expect(wherePart).toMatch(/^- `src\/_pytest\/skipping\.py` \(evaluate_skip_marks\): `.+` \[2\]$/);
    expectSpansHeld(answer.text, ctx);
  });

  it.each([
    ['#7432', 'en', 'According to issue #7432:'],
    ['What does issue #7432 say?', 'en', 'According to issue #7432:'],
    ['¿De qué trata la incidencia 7432?', 'es', 'Según el issue #7432:'],
  ] as const)('answers a question that asks for the issue and nothing else (%j) with the issue in its own words', (q, lang, lead) => {
    const ctx = lookedUpContext(q, lang, issueChunk(), evaluate);
    expect(answerShape(q, ctx)).toBe('issue');
    const answer = extractiveAnswer(q, ctx);
    expect(answer.text.startsWith(`${lead}\n\n- “`)).toBe(true);
    expectSpansHeld(answer.text, ctx);
    // Alone, with no code found: the issue's words and no empty list of places.
    const alone = extractiveAnswer(q, lookedUpContext(q, lang, issueChunk()));
    expect(alone.text.startsWith(`${lead}\n\n- “`)).toBe(true);
    expect(alone.text).not.toMatch(/Where to look|Dónde mirar/);
  });

  it.each([
    ['#99999', 'en', 'I could not find the answer in the indexed sources: #99999 is not among the indexed issues.'],
    ['What does issue #99999 say?', 'en', 'I could not find the answer in the indexed sources: #99999 is not among the indexed issues.'],
    ['¿De qué trata la incidencia 99999?', 'es', 'No encuentro la respuesta en las fuentes indexadas: #99999 no está entre los issues indexados.'],
    ['Where is the bug from issue #99999 fixed?', 'en', 'I could not find the answer in the indexed sources: #99999 is not among the indexed issues.'],
    ['¿Dónde está el bug del issue #99999?', 'es', 'No encuentro la respuesta en las fuentes indexadas: #99999 no está entre los issues indexados.'],
  ] as const)('says that an issue asked for and nothing else (%j) is not indexed, whatever else comes close', (q, lang, text) => {
    // Another issue, code and the docs found by search: a looked-up issue would open the context.
    const answer = extractiveAnswer(q, context(q, lang, evaluate, issueChunk(), skipFunctions), {}, () => 0.99);
    expect(answer).toMatchObject({ text, noAnswer: true });
  });

  it('answers a question that names an issue beside what it asks as any other, found or not', () => {
    const q = 'How do I skip a test, as issue #99999 asks?';
    const answer = extractiveAnswer(q, context(q, 'en', skipFunctions, intro), {}, () => 0.99);
    expect(answer.noAnswer).toBeUndefined();
    expect(answer.text).not.toContain('#99999');
    const where = 'Where is the bug from issue #99999 in the skip marks?';
    expect(extractiveAnswer(where, context(where, 'en', evaluate, intro), {}, () => 0.99).text).toMatch(/^Where to look:\n\n- `src\/_pytest\/skipping\.py`/);
  });

  it('a question about something in an issue is answered by quotes, as any other', () => {
    const q = 'What does issue #7432 say about the reported location?';
    expect(answerShape(q, lookedUpContext(q, 'en', issueChunk(), evaluate))).toBe('quote');
  });

  it('quotes the issue\'s title when its body is only a template, a log and code', () => {
    const bare: Issue = { ...issue, body: '<!--\nThanks for submitting an issue!\n-->\n- [x] a minimal example\n```\nTraceback (most recent call last):\n  File "x.py", line 1, in <module>\nTypeError: boom\n```' };
    const citation: Citation = { path: '#7432', startLine: 1, endLine: 8, issue: 7432, url: issue.url };
    const text = issueChunkText(issueHeader(bare), bare.body);
    const chunk: Chunk = { id: chunkId('issues', citation, text), collection: 'issues', text, title: `#7432: ${issue.title}`, citation, tokens: 0 };
    const q = 'Where is the bug from issue #7432 fixed?';
    const ctx = lookedUpContext(q, 'en', chunk, evaluate);
    const answer = extractiveAnswer(q, ctx);
    expect(answer.text.startsWith(`According to issue #7432:\n\n- “${issue.title}” [1]\n\nWhere to look:`)).toBe(true);
    expect(answer.text).not.toContain('Thanks for submitting');
    expectSpansHeld(answer.text, ctx);
  });

  it('never quotes an issue template: HTML comments, checklists, or a line two issues share', () => {
    const template = (n: number, body: string): Chunk => {
      const it: Issue = { ...issue, number: n, url: `https://github.com/pytest-dev/pytest/issues/${n}` };
      const citation: Citation = { path: `#${n}`, startLine: 1, endLine: body.split('\n').length, issue: n, url: it.url };
      const text = issueChunkText(issueHeader(it), body);
      return { id: chunkId('issues', citation, text), collection: 'issues', text, title: `#${n}`, citation, tokens: 0 };
    };
    const boiler = 'If this change fixes an issue, please add a changelog entry for the skip location.';
    const a = template(1, `<!--\nThanks for submitting an issue about the skip location!\n-->\n- [ ] closes the skip location issue\n\n${boiler}\n\nThe skip location is wrong with runxfail.`);
    const b = template(2, `${boiler}\n\nUnrelated text about fixtures.`);
    const q = 'Why is the skip location wrong?';
    const answer = extractiveAnswer(q, context(q, 'en', a, b));
    expect(answer.text).toContain('The skip location is wrong with runxfail. [1]');
    expect(answer.text).not.toContain('Thanks for submitting');
    expect(answer.text).not.toContain('closes the skip location');
    expect(answer.text).not.toContain('changelog entry');
  });
});

describe('what is quotable', () => {
  it('never quotes console output or code, even where a chunk starts inside a literal block', () => {
    const cut = docChunk(['Demo of failure reports'], 400, [
      '    E       AssertionError: assert 1 == 2',
      '    E        +  where 1 = <failure_demo.test_attribute_multiple.<locals>.Foo object at 0xdeadbeef001b>.b',
      '',
      '    failure_demo.py:158: AssertionError',
      '    __________________________ TestRaises.test_raises __________________________',
      '',
      'Use the showlocals option to show the local variables of each frame in a failure traceback.',
      '',
      'E + where <failure_demo.test_attribute_multiple.<locals>.Bar object at 0xdeadbeef001c>.b E + where = 2',
    ]);
    const q = 'How do I show local variables in the traceback of a failure?';
    const ctx = context(q, 'en', cut);
    // The output lines would win by meaning: only not being quotable keeps them out.
    const answer = extractiveAnswer(q, ctx, {}, (c) => (c.quote.includes('failure_demo') || c.quote.includes('____') ? 0.95 : 0.9));
    expect(answer.text).toBe('According to the documentation:\n\n- Use the showlocals option to show the local variables of each frame in a failure traceback. [1]');
  });

  it('never quotes a line of output that opens with a place in a file, quoted in an issue as prose', () => {
    // pytest #5413 quotes what its code printed, `> <console>:3: LookupError: A`, as a Markdown block quote.
    const printed: Issue = { ...issue, number: 5413, body: 'The context variable prints differently:\n\n> <console>:3: LookupError: A\n\nThe message of the exception is cut after its first line.' };
    const citation: Citation = { path: '#5413', startLine: 1, endLine: 5, issue: 5413, url: printed.url };
    const text = issueChunkText(issueHeader(printed), printed.body);
    const chunk: Chunk = { id: chunkId('issues', citation, text), collection: 'issues', text, title: '#5413', citation, tokens: 0 };
    const q = 'Why is the LookupError message cut?';
    const ctx = context(q, 'en', chunk);
    const quotes = quoteCandidates(ctx, false).map((c) => c.quote);
    expect(quotes).toContain('The message of the exception is cut after its first line.');
    expect(quotes.some((c) => c.includes('<console>'))).toBe(false);
  });
});

describe('a question with nothing to look for', () => {
  it.each([
    ['como', 'es', 'As'],
    ['¿?', 'es', '?'],
    ['how', 'en', undefined],
  ] as const)('%j is not answered, whatever comes closest by meaning', (q, lang, translation) => {
    const ctx = { ...context(q, lang, skipFunctions, intro), ...(translation ? { translation } : {}) };
    const answer = extractiveAnswer(q, ctx, {}, () => 0.99);
    expect(answer.noAnswer).toBe(true);
    expect(answer.text).toMatch(lang === 'es' ? /no tiene ninguna palabra que buscar/ : /has no word to look for/);
  });

  it('a question of one word that is a term is answered', () => {
    expect(extractiveAnswer('skip', context('skip', 'en', skipFunctions, intro), {}, () => 0.99).noAnswer).toBeUndefined();
  });
});

describe('rst bodies and inline literals (rstBodies, literals)', () => {
  const page = (path: string, bodyLines: string[]) => pageChunk(path, ['Reference'], 1, bodyLines);
  const quotable = (chunk: Chunk, options = {}) =>
    quoteCandidates(context('q', 'en', chunk), false, EXTRACTIVE_DEFAULTS.maxChars, { ...EXTRACTIVE_DEFAULTS, ...options }).map((c) => c.quote);
  // Adapted from pytest's reference.rst (required_plugins) and flask's server.rst: the answer is in a directive's indented body.
  const reference = page('doc/en/reference/reference.rst', [
    '.. confval:: required_plugins',
    '',
    '    A space separated list of plugins that must be present for pytest to run.',
    '    If any one of the plugins is not found, emit an error.',
    '',
    '.. warning::',
    '',
    '    Do not use the development server when deploying to production.',
    '',
    'Some other paragraph that is not indented at all.',
  ]);

  it('rstBodies: prose (the default) quotes the indented bodies of an rst page; code does not', () => {
    expect(quotable(reference, { rstBodies: 'code' })).toEqual(['Some other paragraph that is not indented at all.']);
    expect(quotable(reference)).toEqual([
      'A space separated list of plugins that must be present for pytest to run.',
      'If any one of the plugins is not found, emit an error.',
      'Do not use the development server when deploying to production.',
      'Some other paragraph that is not indented at all.',
    ]);
    expect(extractiveOptions(configSchema.shape.answer.shape.generator.parse({ kind: 'extractive', rstBodies: 'prose', literals: 'words' }))).toMatchObject({ rstBodies: 'prose', literals: 'words' });
  });

  it('keeps as code the indented lines that open a chunk (cut inside a literal block), literal blocks, and Markdown indented blocks', () => {
    const cut = page('doc/en/how-to/usage.rst', ['    pytest --collect only and some more words here', '', '    another indented line of the same literal block', '', 'Run it like this::', '', '    pytest runs the tests in this folder', '', 'That is all there is to say.']);
    expect(quotable(cut, { rstBodies: 'prose' })).toEqual(['That is all there is to say.']);
    // A directive that holds code under its own name: its body, a docstring that reads like a sentence included.
    const example = page('docs/commands.rst', ['.. click:example::', '', '    @click.group()', '    def cli():', '        """A simple command line tool for you."""', '', '    if __name__ == "__main__":', '        cli()', '', 'That is all there is to say.']);
    expect(quotable(example, { rstBodies: 'prose', literals: 'words' })).toEqual(['That is all there is to say.']);
    const markdown = page('docs/usage.md', ['Install it first.', '', '    pip install black and then some words', '', 'That is all there is to say.']);
    expect(quotable(markdown, { rstBodies: 'prose' })).toEqual(['Install it first.', 'That is all there is to say.']);
  });

  it('literals: words (the default) reads an option list item as a sentence; code does not', () => {
    const options = page('doc/en/how-to/cache.rst', ['The plugin provides two command line options:', '', '* ``--lf``, ``--last-failed`` - to only re-run the failures.']);
    expect(quotable(options, { literals: 'code' })).toEqual(['The plugin provides two command line options:']);
    expect(quotable(options)).toEqual(['The plugin provides two command line options:', '``--lf``, ``--last-failed`` - to only re-run the failures.']);
  });
});

describe('the command a how-to answer shows (command)', () => {
  // click's docs/options.rst, "Counting": the example under a directive of the Pallets Sphinx theme, which splitUnits does not know.
  const counting = pageChunk('docs/options.rst', ['Options', 'Counting'], 200, [
    'In some very rare circumstances, it is interesting to use the repetition',
    'of options to count an integer up.  This can be used for verbosity flags,',
    'for instance:',
    '',
    '.. click:example::',
    '',
    '    @click.command()',
    "    @click.option('-v', '--verbose', count=True)",
    '    def log(verbose):',
    '        click.echo(f"Verbosity: {verbose}")',
    '',
    'And on the command line the option is simply given several times over.',
  ]);
  const q = 'How do I let users pass -v several times to increase the verbosity?';
  const ctx = context(q, 'en', counting);
  const meaning: Meaning = (c) => (c.quote.startsWith('of options to count') || c.quote.startsWith('In some very rare') ? 0.95 : 0.9);

  it("asked (the default): the line of the example that holds the question's terms, the block read as its quotes are", () => {
    const answer = extractiveAnswer(q, ctx, {}, meaning);
    expect(answer.text).toContain("- `@click.option('-v', '--verbose', count=True)` [1]");
    expect(answer.text).not.toContain('@click.command()');
    expectSpansHeld(answer.text, ctx);
  });

  it('named, the earlier rule, finds no code block after an unknown directive', () => {
    expect(extractiveAnswer(q, ctx, { command: 'named' }, meaning).text).not.toContain('@click');
  });

  describe('after each quote that introduces a code block (commands: introduced)', () => {
    // pytest's doc/en/how-to/bash-completion.rst: each way is a sentence ending in a colon over its command.
    const completion = pageChunk('doc/en/how-to/bash-completion.rst', ['How to set up bash completion'], 7, [
      'When using bash as your shell, ``pytest`` can use argcomplete for auto-completion.',
      '',
      'Install argcomplete using:',
      '',
      '.. code-block:: bash',
      '',
      "    sudo pip install 'argcomplete>=0.5.7'",
      '',
      'For permanent (but not global) ``pytest`` activation, use:',
      '',
      '.. code-block:: bash',
      '',
      '    register-python-argcomplete pytest >> ~/.bashrc',
      '',
      'For one-time activation of argcomplete for ``pytest`` only, use:',
      '',
      'A note between says the code below is not this sentence\'s.',
      '',
      '.. code-block:: bash',
      '',
      '    eval "$(register-python-argcomplete pytest)"',
    ]);
    const asked = 'How do I get tab completion of pytest options in bash permanently?';
    const c = context(asked, 'en', completion);
    const meaning: Meaning = (x) => (x.quote.startsWith('When using') ? 1 : x.quote.startsWith('For permanent') ? 0.98 : x.quote.startsWith('For one-time') ? 0.97 : 0.5);

    it("introduced: the command follows each quote that introduces one, in place; never one prose stands between", () => {
      const answer = extractiveAnswer(asked, c, { commands: 'introduced' }, meaning);
      expect(answer.text).toContain(
        [
          '- When using bash as your shell, ``pytest`` can use argcomplete for auto-completion. [1]',
          "- `sudo pip install 'argcomplete>=0.5.7'` [1]",
          '- For permanent (but not global) ``pytest`` activation, use: [1]',
          '- `register-python-argcomplete pytest >> ~/.bashrc` [1]',
          '- For one-time activation of argcomplete for ``pytest`` only, use: [1]',
        ].join('\n'),
      );
      expect(answer.text).not.toContain('eval "$(');
      expectSpansHeld(answer.text, c);
    });

    it('introduced: no line that holds nothing asked or named, nor a rule of console output', () => {
      const ini = pageChunk('doc/en/example/markers.rst', ['Working with custom markers'], 30, [
        'You can register custom marks in your configuration file like this:',
        '',
        '.. code-block:: ini',
        '',
        '    [tool]',
        '    markers =',
        '        slow: for slow tests',
        '',
        'The durations are then reported at the end of the session:',
        '',
        '.. code-block:: text',
        '',
        '    ============ slowest durations of custom marks ============',
        '    3.01s call     test_some_are_slow.py::test_funcslow2',
      ]);
      const q2 = 'Where do I declare custom marks?';
      const c2 = context(q2, 'en', ini);
      const answer = extractiveAnswer(q2, c2, { commands: 'introduced' }, (x) => (x.quote.startsWith('You can') || x.quote.startsWith('The durations') ? 0.95 : 0.5));
      expect(answer.text).toContain('- You can register custom marks in your configuration file like this: [1]');
      expect(answer.text).not.toContain('[tool]');
      expect(answer.text).not.toContain('====');
      expect(answer.text).not.toContain('3.01s');
      expectSpansHeld(answer.text, c2);
    });

    it("introduced: where some lines of the block open with a prompt, one of those, not what a command printed", () => {
      const session = pageChunk('doc/en/how-to/cache.rst', ['Rerunning only failures'], 40, [
        'To run only the failures of the last run again, use ``--lf``:',
        '',
        '.. code-block:: pytest',
        '',
        '    test_50.py FF..............                                [100%]',
        '    $ pytest --lf',
        '    run-last-failure: rerun previous 2 failures',
      ]);
      // Not a how-to question: no best quote's command, the line is `introduced`'s.
      const q3 = 'Can I run the failures of the last run again?';
      const c3 = context(q3, 'en', session);
      const answer = extractiveAnswer(q3, c3, { commands: 'introduced' }, () => 0.95);
      expect(answer.text).toContain('- To run only the failures of the last run again, use ``--lf``: [1]\n- `$ pytest --lf` [1]');
      expect(answer.text).not.toContain('test_50.py');
      expect(answer.text).not.toContain('rerun previous');
    });

    it('best: after the best quote alone', () => {
      const answer = extractiveAnswer(asked, c, { commands: 'best' }, meaning);
      expect(answer.text).toContain("- `sudo pip install 'argcomplete>=0.5.7'` [1]");
      expect(answer.text).not.toContain('register-python-argcomplete pytest >>');
    });
  });

  it('never shows a comment as the command (pytest\'s examples open with `# content of <file>`)', () => {
    const example = pageChunk('doc/en/example/simple.rst', ['Basic patterns', 'Counting calls'], 10, [
      'Here is a test module that uses the fixture to count the calls of the service::',
      '',
      '    # content of test_count.py',
      '    def test_count(counter):',
      '        assert counter.calls == 1',
      '',
      'The fixture is set up again for every test that asks for it.',
    ]);
    const asked = 'How do I count the calls of the service in a test?';
    const c = context(asked, 'en', example);
    const answer = extractiveAnswer(asked, c, {}, (x) => (x.quote.startsWith('Here is') ? 0.95 : 0.9));
    expect(answer.text).toContain('- `def test_count(counter):` [1]');
    expect(answer.text).not.toContain('# content of');
    expectSpansHeld(answer.text, c);
  });
});

describe('commented lines of a docs code block (commentedLines)', () => {
  // pytest's doc/en/how-to/output.rst: the options are listed in a code block, each with a comment, and no sentence says them.
  const printing = pageChunk('doc/en/how-to/output.rst', ["Managing pytest's output", 'Modifying Python traceback printing'], 11, [
    'Examples for modifying traceback printing:',
    '',
    '.. code-block:: bash',
    '',
    '    pytest --showlocals     # show local variables in tracebacks',
    '    pytest -l               # show local variables (shortcut)',
    '    pytest --capture=no  # don\'t capture',
    '    pip install -e .  # Environment dependent alternatives include',
    "                      # 'python setup.py develop' and 'conda develop'",
    '    # a comment alone says what follows',
    '    ...  # nothing to split on - line too long',
    '',
    'The ``--full-trace`` causes very long traces to be printed on error. In a program::',
    '',
    '    pytest.main(["-l"])  # the same from Python code',
    '    $ pytest -l  # after a prompt, a command',
    '',
  ]);
  const q = 'How do I see the local variables in a traceback?';
  const c = context(q, 'en', printing);
  const quotes = (options: Pick<ExtractiveOptions, 'commentedLines'>) => quoteCandidates(c, false, 700, { ...EXTRACTIVE_DEFAULTS, ...options }).map((x) => x.display);

  it("quote: a shell block's command with a comment of three words or more is quoted whole, as code, and so is a line after a prompt; a comment alone, a shorter one, one that goes on under the line, one after no code or a program's is not", () => {
    expect(quotes({ commentedLines: 'quote' })).toEqual([
      'Examples for modifying traceback printing:',
      '`pytest --showlocals # show local variables in tracebacks`',
      '`pytest -l # show local variables (shortcut)`',
      'The ``--full-trace`` causes very long traces to be printed on error.',
      '`$ pytest -l # after a prompt, a command`',
    ]);
  });

  it('skip: the code blocks are not quoted', () => {
    expect(quotes({ commentedLines: 'skip' })).toEqual(['Examples for modifying traceback printing:', 'The ``--full-trace`` causes very long traces to be printed on error.']);
  });

  it('is quote by default, and the config sets both it and commands', () => {
    expect(EXTRACTIVE_DEFAULTS).toMatchObject({ commentedLines: 'quote', commands: 'introduced' });
    expect(extractiveOptions(configSchema.shape.answer.shape.generator.parse({ kind: 'extractive', commentedLines: 'skip', commands: 'best' }))).toMatchObject({ commentedLines: 'skip', commands: 'best' });
  });

  it('answers with the line, verbatim, and the command is not shown twice', () => {
    // The label over the block scores best: the command shown after it would be the line already quoted.
    const answer = extractiveAnswer(q, c, { commentedLines: 'quote' }, (x) => (x.quote.startsWith('Examples') ? 1.1 : x.quote.includes('show local variables in') ? 1.05 : 0.9));
    expect(answer.text).toContain('- `pytest --showlocals # show local variables in tracebacks` [1]');
    expect(answer.text.match(/--showlocals/g)).toHaveLength(1);
    expectSpansHeld(answer.text, c);
    expectVerbatim(answer.text, c);
  });

  it('an issue\'s code is the reporter\'s, not quoted so', () => {
    const body = 'Running this fails:\n\n    run_it()  # this call fails with an error\n';
    const citation: Citation = { path: '#7432', startLine: 1, endLine: 3, issue: 7432, url: issue.url };
    const text = issueChunkText(issueHeader({ ...issue, body }), body);
    const chunk: Chunk = { id: chunkId('issues', citation, text), collection: 'issues', text, title: `#7432: ${issue.title}`, citation, tokens: 0 };
    const reported = lookedUpContext('Why does it fail?', 'en', chunk);
    expect(quoteCandidates(reported, false, 700, { ...EXTRACTIVE_DEFAULTS, commentedLines: 'quote' }).map((x) => x.quote)).not.toContain('run_it() # this call fails with an error');
  });
});

describe('names the sources must mention', () => {
  it.each([
    ['How do I set up Black to format the current file in Notepad++?', ['Black', 'Notepad++']],
    ['¿Cómo configuro Notepad++ para formatear con Black el fichero?', ['Notepad++', 'Black']],
    ['On what date is pytest 9.0 going to be released?', ['9.0']],
    ['Why does Black turn my single-quoted strings into double-quoted ones?', ['Black']],
    // Sentence openers and all-capitals words are not names; code spans are looked up as symbols instead.
    ['How do I skip a test? Windows is my OS. Uso `pytest.mark.Skip` en Linux.', ['Linux']],
    ['¿Cómo omito un test?', []],
    // A possessive is its name.
    ["What versioning scheme do Black's release numbers follow?", ['Black']],
  ])('mentionedNames(%j)', (q, names) => {
    expect(mentionedNames(q)).toEqual(names);
  });

  it('abstains, naming it, when a docs question names something no passage mentions', () => {
    const q = 'How do I skip a test function in Hypothesis?';
    const ctx = context(q, 'en', skipFunctions, intro);
    const answer = extractiveAnswer(q, ctx, {}, () => 0.95);
    expect(answer).toMatchObject({ noAnswer: true, text: 'I could not find the answer in the indexed sources: none of the passages found mentions “Hypothesis”.' });
    expect(extractiveAnswer(q, ctx, { unknownNames: 'ignore' }, () => 0.95).noAnswer).toBeUndefined();
    // A code-led context is left alone: code questions name classes the passages need not spell out.
    expect(extractiveAnswer(q, context(q, 'en', evaluate, intro), {}, () => 0.95).text).not.toContain('Hypothesis');
  });
});

describe('names the quoted passages must mention (unknownNames: abstain-unquoted, the default)', () => {
  const q = 'How do I skip a test function in Hypothesis?';
  // The name is in the context, but only in a block the quotes do not come from.
  const plugins = docChunk(['Plugins'], 90, ['Hypothesis is a property-based testing library that runs as a pytest plugin.']);
  const ctx = context(q, 'en', skipFunctions, intro, plugins);
  const meaning: Meaning = (c) => (c.marker === 1 ? 0.95 : 0.5);

  it('abstains, naming it, when the passages that come closest do not mention a name of the question', () => {
    // `abstain` asks only that some passage found mentions it.
    expect(extractiveAnswer(q, ctx, { unknownNames: 'abstain' }, meaning).noAnswer).toBeUndefined();
    expect(extractiveAnswer(q, ctx, {}, meaning)).toMatchObject({
      noAnswer: true,
      text: 'I could not find the answer in the indexed sources: none of the passages that come closest mentions “Hypothesis”.',
    });
  });

  it('answers when a quoted passage mentions it', () => {
    const closest: Meaning = (c) => (c.marker === 3 ? 0.95 : 0.5);
    expect(extractiveAnswer(q, ctx, {}, closest).noAnswer).toBeUndefined();
  });
});

describe('relevance by meaning', () => {
  const q = '¿Cómo hago que un test no se ejecute?';
  const ctx = context(q, 'es', skipFunctions, intro);
  // Stand-in similarities: the model's cosine for each sentence (the real model is exercised in ask.test.ts).
  const meaning =
    (scores: Record<string, number>): Meaning =>
    (c) =>
      Object.entries(scores).find(([start]) => c.quote.startsWith(start))?.[1] ?? 0.7;

  it('quotes an English sentence for a Spanish question that shares no word with it, when its meaning is close', () => {
    const answer = extractiveAnswer(q, ctx, {}, meaning({ 'The simplest way': 0.9, 'Alternatively, it is': 0.885 }));
    expect(answer.noAnswer).toBeUndefined();
    expect(answer.text.startsWith('Según la documentación:\n\n- The simplest way to skip')).toBe(true);
    expect(answer.text).toContain('- Alternatively, it is also possible to skip imperatively');
    // Sentences far below the best (more than the margin) are left out.
    expect(answer.text).not.toContain('Common examples');
    expectVerbatim(answer.text, ctx);
  });

  it('answer.generator.spread: pages (the default) takes each next quote from a page not quoted yet', () => {
    const usage: Chunk = (() => {
      const citation: Citation = { path: 'doc/en/how-to/usage.rst', startLine: 10, endLine: 10, headings: ['How to invoke pytest'] };
      const text = docChunkText(docHeader(citation.path, citation.headings!), 'You can deselect a test function on the command line with the -k option.');
      return { id: chunkId('docs', citation, text), collection: 'docs', text, title: 'How to invoke pytest', citation, tokens: 0 };
    })();
    // Two blocks of one page, then another page; the other page's sentence is the lowest that qualifies.
    const three = context(q, 'es', skipFunctions, intro, usage);
    const scores = meaning({ 'The simplest way': 0.9, 'A **skip** means': 0.895, 'You can deselect': 0.885 });
    const pages = (spread?: 'blocks' | 'pages') =>
      new Set(parseMarkers(extractiveAnswer(q, three, { maxSentences: 2, ...(spread ? { spread } : {}) }, scores).text).map((m) => three.blocks[m - 1]!.citation.path));
    expect(pages()).toEqual(new Set([DOC, 'doc/en/how-to/usage.rst']));
    expect(pages('blocks')).toEqual(new Set([DOC]));
    expect(pages('pages')).toEqual(new Set([DOC, 'doc/en/how-to/usage.rst']));
    // spreadPages: the first quotes from that many pages, then the rest by score (here the first page's next sentence).
    const spreadOver = (spreadPages: number) => extractiveAnswer(q, three, { maxSentences: 2, spreadPages }, scores).quotes!.map((c) => three.blocks[c.marker - 1]!.citation.path);
    expect(spreadOver(1)).toEqual([DOC, DOC]);
    expect(new Set(spreadOver(2))).toEqual(new Set([DOC, 'doc/en/how-to/usage.rst']));
    expect(extractiveOptions(configSchema.shape.answer.shape.generator.parse({ kind: 'extractive', maxSentences: 5, spreadPages: 2 }))).toMatchObject({ maxSentences: 5, spreadPages: 2 });
  });

  it('rankBonus: the top-ranked block’s quote wins a near-tie by that much, not a clear loss', () => {
    // Block 1 (skipping.rst's functions) and block 2 (its intro): the intro's sentence is a little closer.
    const scores = meaning({ 'The simplest way': 0.88, 'A **skip** means': 0.9 });
    const first = (rankBonus?: number) => parseMarkers(extractiveAnswer(q, ctx, { maxSentences: 1, ...(rankBonus !== undefined ? { rankBonus } : {}) }, scores).text)[0];
    expect(first(0)).toBe(2);
    // Default 0.05: block 1 gains 0.05, block 2 of 2 half of it: 0.93 against 0.925.
    expect(first()).toBe(1);
    expect(first(0.02)).toBe(2);
  });

  it('crossLingualDiscount lowers the threshold for a question in another language than the sources, and only for it', () => {
    const scores = meaning({ 'The simplest way': 0.845 });
    const cosineOnly = { lexicalWeight: 0 };
    expect(extractiveAnswer(q, ctx, cosineOnly, scores).noAnswer).toBe(true);
    expect(extractiveAnswer(q, ctx, { ...cosineOnly, crossLingualDiscount: 0.02 }, scores).noAnswer).toBeUndefined();
    expect(extractiveAnswer(q, ctx, { ...cosineOnly, crossLingualDiscount: 0.01 }, scores).noAnswer).toBe(true);
    const en = 'How do I skip a test function?';
    expect(extractiveAnswer(en, context(en, 'en', skipFunctions, intro), { ...cosineOnly, crossLingualDiscount: 0.02 }, scores).noAnswer).toBe(true);
  });

  it('answerTypes: check (the default) answers a question that asks for a date only with a quote that gives one', () => {
    const when = 'On what date is skipping going to be released?';
    const scores = meaning({ 'The simplest way': 0.9 });
    const checked = extractiveAnswer(when, context(when, 'en', skipFunctions, intro), {}, scores);
    expect(checked).toMatchObject({ noAnswer: true, text: 'I could not find the answer in the indexed sources: none of the passages that come closest gives a date.' });
    expect(extractiveAnswer(when, context(when, 'en', skipFunctions, intro), { answerTypes: 'ignore' }, scores).noAnswer).toBeUndefined();
    const cuando = '¿Para qué fecha está prevista la publicación?';
    expect(extractiveAnswer(cuando, context(cuando, 'es', skipFunctions, intro), {}, scores).text).toBe('No encuentro la respuesta en las fuentes indexadas: ninguno de los pasajes más cercanos da una fecha.');
    const dated = docChunk(['Changelog'], 1, ['pytest 9.0 is planned for release in March 2026, after the deprecation period ends.']);
    const answered = extractiveAnswer(when, context(when, 'en', dated, skipFunctions), {}, meaning({ 'pytest 9.0 is planned': 0.9 }));
    expect(answered.noAnswer).toBeUndefined();
    expect(answered.text).toContain('March 2026');
    expect(extractiveOptions(configSchema.shape.answer.shape.generator.parse({ kind: 'extractive', answerTypes: 'ignore' }))).toMatchObject({ answerTypes: 'ignore' });
  });

  it('abstains when no sentence reaches the threshold, whatever words it shares', () => {
    const answer = extractiveAnswer('How do I skip a test function?', ctx, {}, meaning({}));
    expect(answer).toMatchObject({ noAnswer: true, text: 'No encuentro la respuesta en las fuentes indexadas.' });
    const lower = extractiveAnswer('How do I skip a test function?', ctx, { minRelevance: 0.75 }, meaning({}));
    expect(lower.noAnswer).toBeUndefined();
  });
});

describe('sentences that ask, and sentences that introduce code', () => {
  // flask's docs/patterns/fileuploads.rst, "Improving Uploads", as written.
  const uploads = pageChunk('docs/patterns/fileuploads.rst', ['Uploading Files', 'Improving Uploads'], 133, [
    'So how exactly does Flask handle uploads?  Well it will store them in the',
    "webserver's memory if the files are reasonably small, otherwise in a",
    'temporary location.  But how',
    'do you specify the maximum file size after which an upload is aborted?  By',
    'default Flask will happily accept file uploads with an unlimited amount of',
    'memory, but you can limit that by setting the ``MAX_CONTENT_LENGTH``',
    'config key::',
    '',
    '    from flask import Flask, Request',
    '',
    '    app = Flask(__name__)',
    "    app.config['MAX_CONTENT_LENGTH'] = 16 * 1000 * 1000",
    '',
    'Example usage::',
    '',
    '    flask run',
  ]);
  const q = 'How do I limit the size of uploaded files?';
  const ctx = context(q, 'en', uploads);
  // The docs' own question comes closest to the user's, as it does with the real model.
  const meaning: Meaning = (c) => (c.quote.startsWith('But how do you specify') ? 0.95 : c.quote.startsWith('So how exactly') ? 0.93 : c.quote.startsWith('By default Flask') ? 0.91 : 0.8);

  it('never quotes a sentence that asks, and quotes the one that answers with the code line that uses what it names', () => {
    const answer = extractiveAnswer(q, ctx, {}, meaning);
    expect(answer.text).not.toContain('?');
    expect(answer.text).toContain('- By default Flask will happily accept file uploads with an unlimited amount of memory, but you can limit that by setting the ``MAX_CONTENT_LENGTH`` config key:: [1]');
    // The line of the block that follows which uses MAX_CONTENT_LENGTH, not the block's first line.
    expect(answer.text).toContain("- `app.config['MAX_CONTENT_LENGTH'] = 16 * 1000 * 1000` [1]");
    expect(answer.text).not.toContain('from flask import');
    expectVerbatim(answer.text.split('\n').filter((l) => !l.startsWith('- `')).join('\n'), ctx);
    expectSpansHeld(answer.text, ctx);
  });

  it('questionSentences: quote keeps the earlier rule', () => {
    const answer = extractiveAnswer(q, ctx, { questionSentences: 'quote' }, meaning);
    expect(answer.text).toContain('- But how do you specify the maximum file size after which an upload is aborted? [1]');
    expect(extractiveOptions(configSchema.shape.answer.shape.generator.parse({ kind: 'extractive', questionSentences: 'quote' }))).toMatchObject({ questionSentences: 'quote' });
  });

  it('a label over a literal block is not a sentence', () => {
    const answer = extractiveAnswer(q, ctx, {}, (c) => (c.quote.startsWith('Example usage') ? 0.99 : 0.9));
    expect(answer.text).not.toContain('Example usage');
  });
});

describe('extractive settings from config', () => {
  // The hashing embedder stands in for the model: these tests are about which sentences get scored.
  const q = 'How do I skip a test function?';
  const ctx = context(q, 'en', skipFunctions, intro);
  const generate = async (settings: Record<string, unknown>) => {
    const g = await createGenerator({ ...configSchema.shape.answer.shape.generator.parse({ kind: 'extractive' }), minRelevance: 0, margin: 2, ...settings }, { modelsDir: '', log: () => {}, embedder: new HashingEmbedder() });
    return new Set(parseMarkers((await g.generate(q, ctx)).text));
  };

  it('answer.generator.crossLingualDiscount is read from config and bounded', () => {
    const generator = configSchema.shape.answer.shape.generator;
    expect(extractiveOptions(generator.parse({ kind: 'extractive', crossLingualDiscount: 0.02 }))).toMatchObject({ crossLingualDiscount: 0.02 });
    expect(extractiveOptions(generator.parse({ kind: 'extractive' }))).not.toHaveProperty('crossLingualDiscount');
    expect(generator.safeParse({ kind: 'extractive', crossLingualDiscount: -0.1 }).success).toBe(false);
  });

  it('answer.generator.semanticBlocks bounds the blocks whose sentences are scored', async () => {
    expect(await generate({})).toEqual(new Set([1, 2]));
    expect(await generate({ semanticBlocks: 1 })).toEqual(new Set([1]));
  });

  it('answer.generator.meaningQuery: a translated question is compared by its translation, or by both', async () => {
    const es = '¿Cómo omito una función de test?';
    const translated = { ...context(es, 'es', skipFunctions, intro), translation: 'How I omit a test function?' };
    const queriesFor = async (meaningQuery?: string) => {
      const embedder = recordingEmbedder();
      const config = configSchema.shape.answer.shape.generator.parse({ kind: 'extractive', ...(meaningQuery ? { meaningQuery } : {}) });
      const g = await createGenerator(config, { modelsDir: '', log: () => {}, embedder });
      await g.generate(es, translated);
      return embedder.queries;
    };
    expect(await queriesFor('translation')).toEqual([['How I omit a test function?']]);
    expect(await queriesFor('both')).toEqual([[es, 'How I omit a test function?']]);
    expect(await queriesFor()).toEqual([[es, 'How I omit a test function?']]);
  });

  it('answer.generator.margin keeps quotes near the best one', async () => {
    // With room, both blocks are quoted; with none below the best, only the best quote's block
    // (minBlocks draws on a second block only among eligible quotes).
    expect(await generate({ margin: 2 })).toEqual(new Set([1, 2]));
    expect(await generate({ margin: 0 })).toEqual(new Set([1]));
  });
});

describe('relevance terms', () => {
  it.each<[string, 'en' | 'es', string[]]>([
    ['evaluate_skip_marks', 'en', ['evalu', 'skip', 'mark']],
    ['lookupIssue HTTPServer', 'en', ['lookup', 'issu', 'http', 'server']],
    ['Skipped, skipping and skips', 'en', ['skip']],
    ['configuration configured configuring', 'en', ['configur']],
    ['¿Cómo funcionan los fixtures en Python?', 'es', ['funcion', 'fixtur', 'python']],
    // Spanish words by the Spanish algorithm: plural and accent meet, no English suffix rule.
    ['Configuración, configurar; la prueba y las pruebas', 'es', ['configur', 'prueb']],
    ['What is the issue #5103 about?', 'en', ['issu', '5103']],
  ])('contentTerms(%j, %s)', (text, language, terms) => {
    expect([...contentTerms(text, language)]).toEqual(terms);
  });

  it.each([
    ['What does evaluate_skip_marks do?', true],
    ['Where is lookupIssue defined?', true],
    ['¿Qué devuelve la función pytest.skip()?', true],
    ['How do I skip a test?', false],
    ['¿Cómo omito una prueba?', false],
  ])('isCodeQuestion(%j) = %s', (q, code) => {
    expect(isCodeQuestion(q)).toBe(code);
  });
});

describe('names of a translated question', () => {
  const constitution = docChunk(['Government'], 10, ['The Constitution of Victoria can be amended by the Parliament of Victoria.']);
  const parliament = docChunk(['Government', 'Parliament'], 20, ['The Parliament of Victoria has two houses.']);
  // Two docs blocks: the check is for docs-led contexts.
  const translatedContext = (question: string, translation?: string) =>
    buildContext(question, 'es', [constitution, parliament].map((chunk) => ({ chunk, scores: { collection: 'docs' as const, fused: 1, bm25: null, dense: null, via: 'search' as const } })), { chunks: 5, chars: 2400 }, translation, 'en');
  const q = '¿Qué dice la Constitución de Victoria sobre Notepad++?';
  const ctx = (translation?: string) => translatedContext(q, translation);

  it('counts only the names the translator left as written: a word it translated is not a name the sources must spell', () => {
    expect(unknownNames(q, ctx().blocks)).toEqual(['Constitución', 'Notepad++']);
    expect(unknownNames(q, ctx().blocks, 'What says the Constitution of Victoria on Notepad++?')).toEqual(['Notepad++']);
  });

  it('needs the name as a whole word of the translation, not inside another', () => {
    const question = '¿Dónde vive la gente del Sur?';
    const blocks = ctx().blocks;
    expect(unknownNames(question, blocks)).toEqual(['Sur']);
    expect(unknownNames(question, blocks, 'Where lives the people of the south? Surely.')).toEqual([]);
    expect(unknownNames(question, blocks, 'Where lives the people of the Sur?')).toEqual(['Sur']);
  });

  it('answers a Spanish question whose capitalised Spanish words the translation renders, and still abstains on a kept name', () => {
    const asked = '¿Quién puede enmendar la Constitución de Victoria?';
    expect(extractiveAnswer(asked, translatedContext(asked), {}, () => 0.95)).toMatchObject({ noAnswer: true });
    expect(extractiveAnswer(asked, translatedContext(asked, 'Who can amend the Constitution of Victoria?'), {}, () => 0.95).noAnswer).toBeUndefined();
    expect(extractiveAnswer(q, ctx('What says the Constitution of Victoria on Notepad++?'), {}, () => 0.95)).toMatchObject({ noAnswer: true });
  });
});
