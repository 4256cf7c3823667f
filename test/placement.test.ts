import { describe, expect, it } from 'vitest';
import { docsAfterCode, docsAfterCodeMoves, docsFirst, docsFirstMove, pastedSpreadMoves, isSupportCode, libraryFirst, lookupsPlace, placeContext, placementOf, rankCandidates, spreadFiles, supportMoves, type Candidates, type Placement } from '../pipeline/answer/ranking.ts';
import { loadConfig } from '../pipeline/config/load.ts';
import type { Collection, SearchHit } from '../pipeline/types.ts';
import { root } from './support/paths.ts';

/**
 * `fusion.perFile`: a file's hits past the first m wait until every other file of the collection has
 * had a place, so a file that matches everywhere cannot fill a collection's slots.
 */

/** A hit of `path`, its id `<path>#<n>`, with a score falling down the list. */
const hit = (collection: Collection, path: string, n: number, score: number): SearchHit => ({
  chunk: { id: `${path}#${n}`, collection, text: path, title: path, citation: { path, startLine: n, endLine: n }, tokens: 1 },
  score,
  bm25: score,
  dense: 0.8 + score / 10,
  bm25Norm: score,
  denseNorm: score,
});

/** Docs: the changelog matches first, four times over, then the page that answers. */
const DOCS = [
  hit('docs', 'changelog.rst', 1, 1),
  hit('docs', 'changelog.rst', 2, 0.95),
  hit('docs', 'changelog.rst', 3, 0.9),
  hit('docs', 'changelog.rst', 4, 0.85),
  hit('docs', 'how-to/skipping.rst', 1, 0.8),
  hit('docs', 'how-to/skipping.rst', 2, 0.7),
  hit('docs', 'reference.rst', 1, 0.6),
];
const CODE = [hit('code', 'src/skipping.py', 1, 1), hit('code', 'src/skipping.py', 2, 0.5), hit('code', 'src/main.py', 1, 0.4)];
const ids = (hits: readonly { chunk: { id: string } }[]) => hits.map((h) => h.chunk.id);

/** A hit with its own dense similarity and BM25 score (the fit's two parts); `score` falls down the list. */
const scored = (collection: Collection, path: string, n: number, dense: number, bm25: number): SearchHit => ({
  ...hit(collection, path, n, 1 - n / 10),
  dense,
  bm25,
});

/** The pytest instance's config, with overrides. */
const config = (...overrides: string[]) => loadConfig('pytest', { root, overrides }).config;

/** A placement's ranked files (10 chunks deep), and the chunk ids of its context at budget 4. */
const rank = (c: Candidates, p: Placement) => rankCandidates(c, 10, p).files;
const context = (c: Candidates, p: Placement) => placeContext(c, 4, p).ordered.map((x) => x.chunk.id);

describe('spreadFiles', () => {
  it("moves a file's hits past the first m after every other file's, each part in its order", () => {
    expect(ids(spreadFiles(DOCS, 1))).toEqual([
      'changelog.rst#1',
      'how-to/skipping.rst#1',
      'reference.rst#1',
      'changelog.rst#2',
      'changelog.rst#3',
      'changelog.rst#4',
      'how-to/skipping.rst#2',
    ]);
    expect(ids(spreadFiles(DOCS, 2))).toEqual([
      'changelog.rst#1',
      'changelog.rst#2',
      'how-to/skipping.rst#1',
      'how-to/skipping.rst#2',
      'reference.rst#1',
      'changelog.rst#3',
      'changelog.rst#4',
    ]);
  });

  it('keeps a list whose files are within the limit as it is, and loses no hit', () => {
    expect(spreadFiles(DOCS, 4)).toEqual(DOCS);
    expect(spreadFiles([], 1)).toEqual([]);
    expect(new Set(ids(spreadFiles(DOCS, 1)))).toEqual(new Set(ids(DOCS)));
  });
});

describe('placement with fusion.perFile', () => {
  const candidates: Candidates = {
    lists: { docs: DOCS.slice(0, 4), code: CODE.slice(0, 4) },
    deep: { docs: DOCS, code: CODE },
    lookedUp: [],
    named: [],
    weights: { docs: 1, code: 0.5, issues: 0 },
    pasted: false,
  };
  const base: Placement = { method: 'proportional', options: {}, lookupsAfter: 0, rankingFit: 'candidates' };

  it('reaches more pages in a context of the same size, taking the spread list from the deeper one', () => {
    const files = (p: Placement) => new Set(placeContext(candidates, 4, p).ordered.map((x) => x.chunk.citation.path));
    expect(files(base)).not.toContain('how-to/skipping.rst');
    // The context's own list holds only the changelog; the page behind it comes from the deeper list.
    expect(files({ ...base, perFile: 1 })).toContain('how-to/skipping.rst');
  });

  it('ranks the page behind a crowding file higher, and without a limit ranks as before', () => {
    // Code as close as the docs: its second and third files enter while the docs' slots go to the changelog.
    const even: Candidates = {
      ...candidates,
      deep: { docs: DOCS, code: [CODE[0]!, hit('code', 'src/main.py', 1, 0.9), hit('code', 'src/util.py', 1, 0.8)] },
      weights: { docs: 1, code: 1, issues: 0 },
    };
    const rank = (p: Placement) => rankCandidates(even, 10, p).files;
    expect(rank(base).indexOf('how-to/skipping.rst')).toBeGreaterThan(rank({ ...base, perFile: 1 }).indexOf('how-to/skipping.rst'));
    expect(rank({ ...base, perFile: 50 })).toEqual(rank(base));
  });

  it('is read from the config, unset by default', () => {
    expect(placementOf(config()).perFile).toBeUndefined();
    expect(placementOf(config('fusion.perFile=2')).perFile).toBe(2);
    expect(() => config('fusion.perFile=0')).toThrow(/perFile/);
  });
});

describe('fusion.rankingFit', () => {
  // A pasted issue routed to code: code's candidates fit it well, the changelog's first chunk best of all.
  const candidates: Candidates = {
    lists: {},
    deep: {
      docs: [scored('docs', 'changelog.rst', 1, 0.86, 10), scored('docs', 'changelog.rst', 2, 0.8, 2), scored('docs', 'how-to/a.rst', 1, 0.79, 1)],
      code: [scored('code', 'src/paths.py', 1, 0.84, 2), scored('code', 'src/paths.py', 2, 0.83, 2), scored('code', 'src/main.py', 1, 0.83, 2), scored('code', 'src/x.py', 1, 0.78, 1)],
    },
    lookedUp: [],
    named: [],
    weights: { docs: 0.13, code: 1, issues: 0 },
    pasted: false,
  };
  const placement = (rankingFit: Placement['rankingFit']): Placement => ({ method: 'proportional', options: {}, lookupsAfter: 0, rankingFit });

  it('measures fit once, on each collection\'s first hits (the route\'s evidence), so the collection the route and the fit favour opens the ranking', () => {
    const files = rankCandidates(candidates, 10, placement('candidates')).files;
    expect(files[0]).toBe('src/paths.py');
    expect(files).toContain('changelog.rst');
  });

  it("with `cut`, judges each collection at k = 1 by its first hit: code's is the lowest of two, so the changelog opens", () => {
    expect(rankCandidates(candidates, 10, placement('cut')).files[0]).toBe('changelog.rst');
  });

  it('is read from the config, `candidates` by default', () => {
    expect(placementOf(config()).rankingFit).toBe('candidates');
    expect(placementOf(config('fusion.rankingFit=cut')).rankingFit).toBe('cut');
    expect(() => config('fusion.rankingFit=first')).toThrow(/rankingFit/);
  });
});

describe('retrieval.lookupsAfterDocsLed', () => {
  // A question that names `skip`: its definition was looked up; search found the docs' page and the code.
  const definition = { chunk: hit('code', 'src/outcomes.py', 1, 1).chunk, scores: { collection: 'code' as const, fused: 1, bm25: null, dense: null, via: 'lookup' as const } };
  const lists = { docs: [DOCS[4]!, DOCS[6]!], code: [CODE[0]!, CODE[2]!] };
  const asked = (weights: Candidates['weights'], pasted = false): Candidates => ({ lists, deep: lists, lookedUp: [], named: [definition], weights, pasted });
  const docsLed = asked({ docs: 1, code: 0.2, issues: 0 });
  const codeLed = asked({ docs: 0.2, code: 1, issues: 0 });
  const base: Placement = { method: 'proportional', options: {}, lookupsAfter: 0, rankingFit: 'candidates' };
  const first = (c: Candidates, p: Placement) => rankCandidates(c, 10, p).files[0];

  it("puts a docs-led question's definitions after the files search finds first, a code-led one's where lookupsAfter says", () => {
    const p = { ...base, lookupsAfterDocsLed: 1 };
    expect(first(docsLed, p)).toBe('how-to/skipping.rst');
    expect(rankCandidates(docsLed, 10, p).files[1]).toBe('src/outcomes.py');
    expect(first(codeLed, p)).toBe('src/outcomes.py');
    // The context is placed the same way as the ranking.
    expect(placeContext(docsLed, 4, p).ordered[0]!.chunk.citation.path).toBe('how-to/skipping.rst');
    expect(placeContext(codeLed, 4, p).ordered[0]!.chunk.citation.path).toBe('src/outcomes.py');
  });

  it('unset, places every route by lookupsAfter; pasted text keeps its names after three files either way', () => {
    expect(first(docsLed, base)).toBe('src/outcomes.py');
    expect(lookupsPlace(docsLed, base)).toBe(0);
    expect(lookupsPlace(docsLed, { ...base, lookupsAfterDocsLed: 2 })).toBe(2);
    expect(lookupsPlace({ ...docsLed, weights: { docs: 1, code: 1, issues: 0 } }, { ...base, lookupsAfterDocsLed: 2 })).toBe(2);
    expect(lookupsPlace(asked({ docs: 1, code: 0.2, issues: 0 }, true), { ...base, lookupsAfterDocsLed: 1 })).toBe(3);
  });

  it('is read from the config, 1 by default', () => {
    expect(placementOf(config()).lookupsAfterDocsLed).toBe(1);
    expect(placementOf(config('retrieval.lookupsAfterDocsLed=0')).lookupsAfterDocsLed).toBe(0);
    expect(() => config('retrieval.lookupsAfterDocsLed=-1')).toThrow(/lookupsAfterDocsLed/);
  });
});

describe('retrieval.docsLedFirst', () => {
  // A docs question whose words a docstring says too: the route leans to the docs, the code fits it better.
  const lists = {
    docs: [scored('docs', 'how-to/timeouts.rst', 1, 0.82, 3), scored('docs', 'faq.rst', 1, 0.8, 2), scored('docs', 'faq.rst', 2, 0.79, 1)],
    code: [scored('code', 'src/closespider.py', 1, 0.88, 9), scored('code', 'src/settings.py', 1, 0.87, 8), scored('code', 'src/main.py', 1, 0.86, 7)],
  };
  const asked = (weights: Candidates['weights'], pasted = false, lookedUp: Candidates['lookedUp'] = []): Candidates => ({ lists, deep: lists, lookedUp, named: [], weights, pasted });
  const docsLed = asked({ docs: 1, code: 0.9, issues: 0 });
  const fused: Placement = { method: 'proportional', options: {}, lookupsAfter: 0, rankingFit: 'candidates', docsLedFirst: 'fused' };
  const docs: Placement = { ...fused, docsLedFirst: 'docs' };

  it("opens a docs-led route's ranking and context with the docs' best hit, and moves nothing else", () => {
    expect(rank(docsLed, fused)[0]).toBe('src/closespider.py');
    expect(rank(docsLed, docs)).toEqual(['how-to/timeouts.rst', ...rank(docsLed, fused).filter((f) => f !== 'how-to/timeouts.rst')]);
    const before = context(docsLed, fused);
    expect(before[0]).toBe('src/closespider.py#1');
    expect(context(docsLed, docs)).toEqual(['how-to/timeouts.rst#1', ...before.filter((id) => id !== 'how-to/timeouts.rst#1')]);
    expect(docsFirstMove(placeContext(docsLed, 4, fused).fusion.ranked, docsLed, docs)).toBeGreaterThan(0);
  });

  it('leaves code-led routes, pasted text, a docs hit already first and looked-up issues as they are', () => {
    const codeLed = asked({ docs: 0.9, code: 1, issues: 0 });
    expect(rank(codeLed, docs)).toEqual(rank(codeLed, fused));
    expect(rank(asked({ docs: 1, code: 0.9, issues: 0 }, true), docs)).toEqual(rank(asked({ docs: 1, code: 0.9, issues: 0 }, true), fused));
    const issue = { chunk: hit('issues', 'issue-1', 1, 1).chunk, scores: { collection: 'issues' as const, fused: 1, bm25: null, dense: null, via: 'lookup' as const } };
    const withIssue = asked({ docs: 1, code: 0.9, issues: 1 }, false, [issue]);
    expect(context(withIssue, docs).slice(0, 2)).toEqual(['issue-1#1', 'how-to/timeouts.rst#1']);
    const docsAhead = [{ chunk: lists.docs[0]!.chunk }, { chunk: lists.code[0]!.chunk }];
    expect(docsFirst(docsAhead, docsLed, docs)).toEqual(docsAhead);
    expect(docsFirstMove(docsAhead, docsLed, docs)).toBeUndefined();
  });

  it('is read from the config, `docs` by default', () => {
    expect(placementOf(config()).docsLedFirst).toBe('docs');
    expect(placementOf(config('retrieval.docsLedFirst=fused')).docsLedFirst).toBe('fused');
    expect(() => config('retrieval.docsLedFirst=code')).toThrow(/docsLedFirst/);
  });
});

describe('retrieval.supportCode', () => {
  // An issue about assertion messages: a docs demo of failing assertions repeats its words best, then a test of it.
  const code = [
    scored('code', 'doc/en/example/assertion/failure_demo.py', 1, 0.9, 9),
    scored('code', 'src/_pytest/assertion/util.py', 1, 0.88, 8),
    scored('code', 'doc/en/example/assertion/failure_demo.py', 2, 0.87, 7),
    scored('code', 'testing/test_assertion.py', 1, 0.865, 6.5),
    scored('code', 'src/_pytest/assertion/rewrite.py', 1, 0.86, 6),
  ];
  const docs = [scored('docs', 'how-to/assert.rst', 1, 0.8, 2)];
  const asked = (weights: Candidates['weights'], cut = 4): Candidates => ({ lists: { code: code.slice(0, cut), docs }, deep: { code, docs }, lookedUp: [], named: [], weights, pasted: true });
  const codeLed = asked({ docs: 0.2, code: 1, issues: 0 });
  const asFound: Placement = { method: 'proportional', options: {}, lookupsAfter: 0, rankingFit: 'candidates', supportCode: 'as-found' };
  const after: Placement = { ...asFound, supportCode: 'after-library' };

  it('tells support code by its folders and test files by their names', () => {
    const support = ['doc/en/example/x.py', 'docs/conf.py', 'examples/app.py', 'bench/manyparam.py', 'benchmarks/b.py', 'demo/x.ts', 'samples/s.go'];
    const tests = ['testing/python/fixtures.py', 'tests/test_app.py', 'src/test/java/a/B.java', 'web/__tests__/x.js', 'lib/test_utils.py', 'pkg/server_test.go', 'src/a.test.ts', 'src/b.spec.js', 'src/main/java/FooTest.java'];
    for (const p of [...support, ...tests]) expect(isSupportCode(p), p).toBe(true);
    const library = ['src/_pytest/python.py', 'src/docstrings.py', 'src/examples.py', 'lib/benchmarker.py', 'src/_pytest/pytester.py', 'src/testing_utils.py', 'src/contest.py', 'src/latest.go', undefined];
    for (const p of library) expect(isSupportCode(p), p).toBe(false);
  });

  it("puts a code list's support code after the library's, each part in its order", () => {
    expect(ids(libraryFirst(code))).toEqual([
      'src/_pytest/assertion/util.py#1',
      'src/_pytest/assertion/rewrite.py#1',
      'doc/en/example/assertion/failure_demo.py#1',
      'doc/en/example/assertion/failure_demo.py#2',
      'testing/test_assertion.py#1',
    ]);
  });

  it("opens a code-led route's ranking and context with the library's code, and says so", () => {
    expect(rank(codeLed, asFound)[0]).toBe('doc/en/example/assertion/failure_demo.py');
    expect(rank(codeLed, after)[0]).toBe('src/_pytest/assertion/util.py');
    expect(rank(codeLed, after).indexOf('doc/en/example/assertion/failure_demo.py')).toBeGreaterThan(rank(codeLed, after).indexOf('src/_pytest/assertion/rewrite.py'));
    expect(rank(codeLed, after).indexOf('testing/test_assertion.py')).toBeGreaterThan(rank(codeLed, after).indexOf('src/_pytest/assertion/rewrite.py'));
    expect(context(codeLed, asFound)[0]).toBe('doc/en/example/assertion/failure_demo.py#1');
    expect(context(codeLed, after)[0]).toBe('src/_pytest/assertion/util.py#1');
    expect(supportMoves(codeLed, after)).toBe(true);
    expect(supportMoves(codeLed, asFound)).toBe(false);
  });

  it('takes the library hits a cut list lacks from the deeper list', () => {
    // The context's list holds only the demo; the library's modules come from the deeper search.
    const cut = asked({ docs: 0.2, code: 1, issues: 0 }, 1);
    expect(supportMoves(cut, after)).toBe(true);
    expect(context(cut, after)).toContain('src/_pytest/assertion/util.py#1');
    expect(context(cut, after)).not.toContain('doc/en/example/assertion/failure_demo.py#1');
  });

  it('leaves docs-led routes and lists without support code as they are', () => {
    const docsLed = asked({ docs: 1, code: 0.9, issues: 0 });
    expect(rank(docsLed, after)).toEqual(rank(docsLed, asFound));
    expect(supportMoves(docsLed, after)).toBe(false);
    const library = { ...codeLed, lists: { code: code.filter((h) => !isSupportCode(h.chunk.citation.path)), docs }, deep: { code: code.filter((h) => !isSupportCode(h.chunk.citation.path)), docs } };
    expect(rank(library, after)).toEqual(rank(library, asFound));
    expect(supportMoves(library, after)).toBe(false);
  });

  it('is read from the config, `after-library` by default', () => {
    expect(placementOf(config()).supportCode).toBe('after-library');
    expect(placementOf(config('retrieval.supportCode=as-found')).supportCode).toBe('as-found');
    expect(() => config('retrieval.supportCode=first')).toThrow(/supportCode/);
  });
});

describe('retrieval.pastedDocsAfter', () => {
  // A pasted issue: the changelog names the module and fits best; the library's modules follow.
  const lists = {
    docs: [scored('docs', 'doc/changelog.rst', 1, 0.95, 12), scored('docs', 'doc/how-to/raises.rst', 1, 0.85, 5)],
    code: [
      scored('code', 'src/raises.py', 1, 0.88, 8),
      scored('code', 'src/capture.py', 1, 0.86, 7),
      scored('code', 'src/cacheprovider.py', 1, 0.85, 6),
      scored('code', 'src/_code/code.py', 1, 0.84, 5),
    ],
  };
  const asked = (weights: Candidates['weights'], lookedUp: Candidates['lookedUp'] = []): Candidates => ({ lists, deep: lists, lookedUp, named: [], weights, pasted: true });
  const codeLed = asked({ docs: 0.9, code: 1, issues: 0 });
  const fused: Placement = { method: 'proportional', options: {}, lookupsAfter: 0, rankingFit: 'candidates', pastedDocsAfter: 0 };
  const after = (n: number): Placement => ({ ...fused, pastedDocsAfter: n });
  const docsAt = (files: string[]) => files.findIndex((f) => f.startsWith('doc/'));

  it("puts a code-led route's docs after its first n code files, in the ranking and the context, code in its order", () => {
    const before = rank(codeLed, fused);
    expect(docsAt(before)).toBeLessThan(3);
    for (const n of [1, 3]) {
      const moved = rank(codeLed, after(n));
      expect(docsAt(moved)).toBe(n);
      expect(moved.filter((f) => f.startsWith('src/'))).toEqual(before.filter((f) => f.startsWith('src/')));
      expect(docsAfterCodeMoves(placeContext(codeLed, 4, fused).fusion.ranked, codeLed, after(n))).toBe(true);
    }
    // The context at budget 4 opens with the changelog; the docs wait for the first module, or for both modules it holds.
    expect(context(codeLed, fused)).toEqual(['doc/changelog.rst#1', 'doc/how-to/raises.rst#1', 'src/raises.py#1', 'src/capture.py#1']);
    expect(context(codeLed, after(1))).toEqual(['src/raises.py#1', 'doc/changelog.rst#1', 'doc/how-to/raises.rst#1', 'src/capture.py#1']);
    expect(context(codeLed, after(3))).toEqual(['src/raises.py#1', 'src/capture.py#1', 'doc/changelog.rst#1', 'doc/how-to/raises.rst#1']);
  });

  it('leaves typed questions, docs-led routes, docs already after the code, 0 and looked-up issues as they are', () => {
    const docsLed = asked({ docs: 1, code: 0.9, issues: 0 });
    expect(rank(docsLed, after(3))).toEqual(rank(docsLed, fused));
    const typed = { ...codeLed, pasted: false };
    expect(rank(typed, after(3))).toEqual(rank(typed, fused));
    expect(docsAfterCodeMoves(placeContext(typed, 4, fused).fusion.ranked, typed, after(3))).toBe(false);
    expect(rank(codeLed, after(0))).toEqual(rank(codeLed, fused));
    const codeFirst = [{ chunk: lists.code[0]!.chunk }, { chunk: lists.docs[0]!.chunk }];
    expect(docsAfterCode(codeFirst, codeLed, after(1))).toEqual(codeFirst);
    expect(docsAfterCodeMoves(codeFirst, codeLed, after(1))).toBe(false);
    const issue = { chunk: hit('issues', 'issue-1', 1, 1).chunk, scores: { collection: 'issues' as const, fused: 1, bm25: null, dense: null, via: 'lookup' as const } };
    expect(context(asked({ docs: 0.5, code: 1, issues: 1 }, [issue]), after(2))[0]).toBe('issue-1#1');
  });

  it("spreads pasted text's code one chunk per file first (retrieval.pastedPerFile), typed questions as they were", () => {
    // One module repeats the report's words in three chunks; two more modules follow.
    const code = [
      scored('code', 'src/raises.py', 1, 0.9, 9),
      scored('code', 'src/raises.py', 2, 0.89, 8),
      scored('code', 'src/raises.py', 3, 0.88, 7),
      scored('code', 'src/capture.py', 1, 0.8, 5),
      scored('code', 'src/_code/code.py', 1, 0.79, 4),
    ];
    const spreadAsked = (pasted: boolean): Candidates => ({ lists: { code: code.slice(0, 3) }, deep: { code }, lookedUp: [], named: [], weights: { docs: 0.2, code: 1, issues: 0 }, pasted });
    const files = (c: Candidates, p: Placement) => [...new Set(placeContext(c, 3, p).ordered.map((x) => x.chunk.citation.path))];
    const spread: Placement = { ...fused, pastedPerFile: 1 };
    expect(files(spreadAsked(true), fused)).toEqual(['src/raises.py']);
    expect(files(spreadAsked(true), spread)).toEqual(['src/raises.py', 'src/capture.py', 'src/_code/code.py']);
    expect(pastedSpreadMoves(spreadAsked(true), spread)).toBe(true);
    expect(files(spreadAsked(false), spread)).toEqual(['src/raises.py']);
    expect(pastedSpreadMoves(spreadAsked(false), spread)).toBe(false);
    expect(placementOf(config()).pastedPerFile).toBe(1);
    expect(placementOf(config('retrieval.pastedPerFile=2')).pastedPerFile).toBe(2);
    expect(placementOf(config('retrieval.pastedPerFile=0')).pastedPerFile).toBeUndefined();
    expect(() => config('retrieval.pastedPerFile=-1')).toThrow(/pastedPerFile/);
  });

  it('is read from the config, 5 by default', () => {
    expect(placementOf(config()).pastedDocsAfter).toBe(5);
    expect(placementOf(config('retrieval.pastedDocsAfter=0')).pastedDocsAfter).toBe(0);
    expect(() => config('retrieval.pastedDocsAfter=-1')).toThrow(/pastedDocsAfter/);
  });
});
