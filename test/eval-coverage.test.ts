import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadDataset } from '../datasets/questions.ts';
import type { VerifiedAnswer } from '../pipeline/answer/types.ts';
import type { Chunk, Embedder } from '../pipeline/types.ts';
import { compareRuns } from '../eval/compare.ts';
import { referenceQuoted } from '../eval/metrics/referenceQuoted.ts';
import { referenceTermRecall, referenceTerms } from '../eval/metrics/referenceTerms.ts';
import { memoizeQueries } from '../eval/queryMemo.ts';
import { comparisonTable } from '../eval/report/format.ts';
import type { QuestionResult, Report } from '../eval/report/types.ts';
import { unpairedPermutationTest } from '../eval/stats/unpaired.ts';
import { answerMetrics } from '../eval/suites/answer.ts';
import { METRICS } from '../eval/suites/catalogue.ts';
import { coverageMetrics, coverageRows, goldReachability, indexedPaths, queryTokens } from '../eval/suites/coverage.ts';
import { sharedDatasets } from './support/paths.ts';

/**
 * Honest coverage (#13 item 3: gold the index cannot hold, queries over the model window) and answer
 * metrics for both sides of an A/B (#13 item 4: reference answers kept, faithfulness over each side's
 * own answers), on hand-made inputs with hand-computed figures.
 */

function result(id: string, lang: 'en' | 'es', metrics: Record<string, number | null>, extra: Partial<QuestionResult> = {}): QuestionResult {
  return {
    id,
    dataset: 'd',
    lang,
    kind: 'k',
    expectedSource: 'code',
    question: id,
    gold: { files: [], issues: [] },
    metrics,
    route: { top: 'code', weights: { docs: 0, code: 1, issues: 0 } },
    slots: { docs: 0, code: 1, issues: 0 },
    ranked: [],
    latency: {},
    ...extra,
  };
}

describe('gold reachability', () => {
  const chunk = (id: string, p: string, collection: Chunk['collection'] = 'code'): Chunk => ({ id, collection, text: '', title: p, citation: { path: p, startLine: 1, endLine: 1 }, tokens: 1 });
  const chunks = [chunk('1', 'src/_pytest/main.py'), chunk('2', 'src/_pytest/main.py'), chunk('3', 'doc/en/index.rst', 'docs'), chunk('4', '#7', 'issues')];
  // A store reduced to what indexedPaths reads: ids per collection, chunks by id (in pages).
  const store = {
    ids: async (c?: Chunk['collection']) => chunks.filter((x) => !c || x.collection === c).map((x) => x.id),
    get: async (ids: string[]) => chunks.filter((x) => ids.includes(x.id)),
  };

  it('reads the indexed file paths once, issues left out, and splits a gold list by them', async () => {
    const indexed = await indexedPaths(store);
    expect([...indexed].sort()).toEqual(['doc/en/index.rst', 'src/_pytest/main.py']);
    expect(goldReachability(['testing/test_main.py', 'src/_pytest/main.py'], indexed)).toEqual({ reachable: ['src/_pytest/main.py'], unreachable: ['testing/test_main.py'] });
    expect(coverageMetrics(['testing/test_main.py', 'src/_pytest/main.py'], ['src/_pytest/main.py'], 600, 512)).toEqual({ 'gold.reachable': 0.5, 'query.overWindow': 1 });
    expect(coverageMetrics([], [], 512, 512)).toEqual({ 'gold.reachable': null, 'query.overWindow': 0 }); // the window itself fits
  });

  it('counts unreachable questions apart and reports the recall ceiling and queries over the window, per dataset and language', () => {
    const q = (id: string, lang: 'en' | 'es', files: string[], reachable: string[], tokens: number) =>
      result(id, lang, {}, { dataset: 'code-qa', gold: { files, issues: [], reachable }, query: { tokens, window: 512 } });
    const rows = coverageRows([
      q('a', 'en', ['src/a.py'], ['src/a.py'], 40),
      q('b', 'en', ['testing/t.py'], [], 700), // nothing indexed: unreachable
      q('c', 'es', ['src/a.py', 'testing/t.py'], ['src/a.py'], 513),
      q('d', 'es', ['testing/t.py', 'testing/u.py'], [], 30),
      result('old', 'en', {}), // a report from before coverage was recorded: left out, not guessed
    ]);
    expect(rows[0]).toEqual({ questions: 4, withGoldFiles: 4, unreachable: 2, partlyReachable: 1, recallCeiling: (1 + 0 + 0.5 + 0) / 4, overWindow: 2, maxQueryTokens: 700, window: 512 });
    expect(rows.map((r) => [r.dataset ?? 'all', r.lang ?? 'all', r.unreachable, r.overWindow])).toEqual([
      ['all', 'all', 2, 2],
      ['code-qa', 'all', 2, 2],
      ['code-qa', 'en', 1, 1],
      ['code-qa', 'es', 1, 1],
    ]);
    expect(rows.find((r) => r.lang === 'es')!.recallCeiling).toBe(0.25);
  });

  it('counts a question as a query, with the query prefix, also through the eval query memo', () => {
    // A passage is counted with `passage: `, a query with `query: `: the memo must not fall back to the passage count.
    const model = { id: 'm', dims: 2, window: 512, countTokens: (t: string) => t.length + 100, countQueryTokens: (t: string) => t.length + 1 } as unknown as Embedder;
    expect(queryTokens(model, 'abc')).toBe(4);
    expect(queryTokens(memoizeQueries(model), 'abc')).toBe(4);
    const noQueryCount = { ...model, countQueryTokens: undefined } as unknown as Embedder;
    expect(queryTokens(memoizeQueries(noQueryCount), 'abc')).toBe(103); // where the model has no query count, the passage count stands in
  });
});

describe('reference answers', () => {
  const qa = loadDataset({ name: 'qa', path: path.join(sharedDatasets, 'pytest/code-qa.jsonl'), format: 'code-qa' }, '/');

  it('keeps the code-qa answer as the reference, without the stray end marker', () => {
    expect(qa.questions.every((q) => typeof q.reference === 'string' && q.reference.length > 0)).toBe(true);
    expect(qa.questions[0]!.reference).toMatch(/^The `runpytest_subprocess\(\)` method/);
    expect(qa.questions.some((q) => q.reference!.includes('</start_of_answer>'))).toBe(false);
    // A benchmark's answer, not a line of the sources; cita's datasets quote their gold pages.
    expect(qa.questions.every((q) => q.referenceKind === 'answer')).toBe(true);
    const docs = loadDataset({ name: 'docs', path: 'datasets/click-docs.jsonl', format: 'cita' }, path.resolve(import.meta.dirname, '..'));
    expect(docs.questions.filter((q) => q.reference).every((q) => q.referenceKind === 'quote')).toBe(true);
    expect(docs.questions.filter((q) => !q.reference).every((q) => q.referenceKind === undefined)).toBe(true);
    // The Spanish question has the English record's answer as its reference.
    expect(qa.questions.find((q) => q.id === 'pytest-cqa-001-es')!.reference).toBe(qa.questions[0]!.reference);
  });

  it('takes the key identifiers of a reference: code spans and identifier-shaped words, no paths, labels, messages or generic words', () => {
    const ref =
      'The `runpytest_subprocess()` method (in `src/_pytest/pytester.py`) returns a `RunResult`; see :ref:`usage label`. ' +
      'It raises `ValueError("applied more than once")` and compares `result.ret == ExitCode.OK`; the helper from_item_and_call is called by pytest.';
    expect(referenceTerms(ref)).toEqual(['runpytest_subprocess', 'RunResult', 'ValueError', 'result', 'ret', 'ExitCode', 'from_item_and_call']);
    expect(referenceTermRecall('Call `runpytest_subprocess` and check RunResult.ret against ExitCode.', ref)).toBe(4 / 7);
    expect(referenceTermRecall('anything', 'A reference in plain words.')).toBeNull();
    // Whole words, case-sensitive: `ExitCodes` or `exitcode` is not `ExitCode`.
    expect(referenceTermRecall('exitcode ExitCodes', 'uses `ExitCode`')).toBe(0);
  });

  it('scores answer.referenceTerms on answerable questions with a reference; an abstention scores 0', () => {
    const gold = { files: ['src/a.py'], symbols: [], issues: [], source: 'code' as const, answerable: true };
    const answer = (text: string, noAnswer = false): VerifiedAnswer => ({ text, language: 'en', generator: 'x', ...(noAnswer ? { noAnswer: true } : {}), citations: [], invalid: [], unsupported: [] });
    const reference = 'Use `RunResult` and `ExitCode`.';
    expect(answerMetrics({ gold, reference }, answer('RunResult holds it [1].'))['answer.referenceTerms']).toBe(0.5);
    expect(answerMetrics({ gold, reference }, answer('RunResult and ExitCode are not found', true))['answer.referenceTerms']).toBe(0);
    expect(answerMetrics({ gold }, answer('RunResult'))['answer.referenceTerms']).toBeNull();
    expect(answerMetrics({ gold: { ...gold, files: [], answerable: false }, reference }, answer('RunResult'))['answer.referenceTerms']).toBeNull();
  });

  it('finds the reference line quoted when the answer holds six of its words in a row (all of a shorter one), markup and case aside', () => {
    const line = 'Then, you can stop the spider safely at any time (by pressing Ctrl-C or sending';
    expect(referenceQuoted('- then you can STOP the ``spider`` safely, whatever [1]', line)).toBe(1);
    // Five in a row, then another word: not the line.
    expect(referenceQuoted('you can stop the spider quickly at any time', line)).toBe(0);
    // Words of the line, not in its order.
    expect(referenceQuoted('the spider can stop you at any time safely then', line)).toBe(0);
    expect(referenceQuoted('Use `Session.run`. [2]', 'Session.run')).toBe(1);
    expect(referenceQuoted('anything at all', '')).toBe(0);
  });

  it('scores answer.referenceQuoted only where the reference is a verbatim quote; an abstention scores 0', () => {
    const gold = { files: ['doc/a.rst'], symbols: [], issues: [], source: 'docs' as const, answerable: true };
    const answer = (text: string, noAnswer = false): VerifiedAnswer => ({ text, language: 'es', generator: 'x', ...(noAnswer ? { noAnswer: true } : {}), citations: [], invalid: [], unsupported: [] });
    const reference = 'Register them in the markers ini option so pytest stops warning.';
    const said = 'Según la documentación:\n\n- You can register them in the markers ini option so pytest stops warning. [1]';
    expect(answerMetrics({ gold, reference, referenceKind: 'quote' }, answer(said))['answer.referenceQuoted']).toBe(1);
    expect(answerMetrics({ gold, reference, referenceKind: 'quote' }, answer('- Markers are registered in the ini file. [1]'))['answer.referenceQuoted']).toBe(0);
    expect(answerMetrics({ gold, reference, referenceKind: 'quote' }, answer(said, true))['answer.referenceQuoted']).toBe(0);
    // A benchmark's answer is not a line of the sources: no score.
    expect(answerMetrics({ gold, reference, referenceKind: 'answer' }, answer(said))['answer.referenceQuoted']).toBeNull();
    expect(answerMetrics({ gold: { ...gold, files: [], answerable: false }, reference, referenceKind: 'quote' }, answer(said))['answer.referenceQuoted']).toBeNull();
  });
});

describe('A/B answer metrics over each side’s own answers', () => {
  const stats = { seed: 's', bootstrap: 500, permutations: 2000 };
  const ids = ['1', '2', '3', '4', '5', '6', '7', '8'];
  // A answers 2 of 8, both fully faithful; B answers all 8, none faithful.
  const a = ids.map((id, i) => result(id, 'en', i < 2 ? { 'answer.answered': 1, faithfulness: 1, 'citations.invalid': 0 } : { 'answer.answered': 0, faithfulness: null, 'citations.invalid': null }));
  const b = ids.map((id) => result(id, 'en', { 'answer.answered': 1, faithfulness: 0, 'citations.invalid': 0 }));
  const all = compareRuns(a, b, METRICS, stats).filter((c) => Object.keys(c.group).length === 0);

  it('a generator answering 8/8 with 0% faithfulness is worse than one answering 2/8 faithfully, with both answered rates beside', () => {
    const f = all.find((c) => c.metric === 'faithfulness')!;
    expect(f).toMatchObject({ n: 10, meanA: 1, meanB: 0, diff: -1, verdict: 'worse', own: { nA: 2, nB: 8, answeredA: 0.25, answeredB: 1 } });
    // Exact two-sample test: of the C(10, 2) = 45 ways to label two of the ten scores A, only one gives |Δ| ≥ 1.
    expect(f.p).toBeCloseTo(1 / 45, 12);
    expect(all.find((c) => c.metric === 'answer.answered')).toMatchObject({ n: 8, diff: 0.75 }); // per question: paired
    expect(all.find((c) => c.metric === 'answer.answered')!.own).toBeUndefined();
    // Over own answers, a side without a value is compared as having none (no pairs to drop).
    expect(all.find((c) => c.metric === 'citations.invalid')).toMatchObject({ own: { nA: 2, nB: 8 }, diff: 0, verdict: 'same' });
  });

  it('the comparison table shows each side’s answers and answered rate', () => {
    const report = { runs: [{ label: 'A' }, { label: 'B' }], metrics: METRICS } as unknown as Report;
    const row = comparisonTable(report, [all.find((c) => c.metric === 'faithfulness')!]).rows[0]!;
    // † marks a small n (under 30).
    expect(row.cells.slice(0, 5)).toEqual(['Faithfulness (own answers)', 'all', '2† / 8†', '100.0% (answered 25.0%)', '0.0% (answered 100.0%)']);
    expect(row.mark).toBe('worse');
  });

  it('the two-sample permutation test is exact when small, and by Monte Carlo agrees with it', () => {
    const x = [0.2, 0.4, 0.9, 1, 1, 0.5];
    const y = [0, 0.1, 0.3, 0.2, 0.6, 0, 0.1];
    const exact = unpairedPermutationTest(x, y); // C(13, 6) = 1716 relabellings
    expect(exact.exact).toBe(true);
    const mc = unpairedPermutationTest(x, y, { exactUpTo: 0, iterations: 20000, seed: 't' });
    expect(mc.exact).toBe(false);
    expect(Math.abs(mc.p - exact.p)).toBeLessThan(0.01);
    expect(unpairedPermutationTest([], [1]).p).toBeNaN();
  });
});
