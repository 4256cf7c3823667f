import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadDataset, loadDatasets, type EvalQuestion } from '../datasets/questions.ts';
import { UserError } from '../pipeline/errors.ts';
import { buildContext } from '../pipeline/answer/context.ts';
import type { Context, VerifiedAnswer } from '../pipeline/answer/types.ts';
import type { Chunk } from '../pipeline/types.ts';
import { aggregate, groupsOf } from '../eval/aggregate.ts';
import { checkReplayable, settingsOf } from '../eval/calibrate-extractive.ts';
import { compareRuns } from '../eval/compare.ts';
import { contextFingerprint } from '../eval/judge/fingerprint.ts';
import { LlmJudge, parseVerdicts } from '../eval/judge/llm.ts';
import { OfflineSupportJudge, supportShare } from '../eval/judge/offline.ts';
import { nightlyReport } from '../eval/nightly.ts';
import type { MetricInfo, QuestionResult, Report } from '../eval/report/types.ts';
import { languageGap } from '../eval/languageGap.ts';
import { holmAdjust } from '../eval/stats/index.ts';
import { answerMetrics } from '../eval/suites/answer.ts';
import { citationMetrics } from '../eval/suites/citations.ts';
import { fusionMetrics, isEvenQuota } from '../eval/suites/fusion.ts';
import { retrievalMetrics } from '../eval/suites/retrieval.ts';
import { truncationRow } from '../eval/suites/truncation.ts';
import { sharedDatasets } from './support/paths.ts';

/** The harness's per-question suites, judges and aggregation, on hand-made inputs with hand-computed answers. */

function chunk(id: string, collection: Chunk['collection'], p: string, text: string, issue?: number): Chunk {
  return { id, collection, text, title: p, citation: { path: p, startLine: 1, endLine: text.split('\n').length, ...(issue ? { issue } : {}) }, tokens: 10 };
}

function ctx(chunks: Chunk[]): Context {
  return buildContext('q', 'en', chunks.map((c) => ({ chunk: c, scores: { collection: c.collection, fused: 1, bm25: null, dense: null, via: 'search' as const } })), { chunks: 12, chars: 2400 });
}

const q = (gold: Partial<EvalQuestion['gold']>, extra: Partial<EvalQuestion> = {}): EvalQuestion => ({
  id: 'q1',
  lang: 'en',
  kind: 'k',
  question: 'q',
  dataset: 'd',
  ...extra,
  gold: { files: [], symbols: [], issues: [], source: 'code', answerable: true, ...gold },
});

describe('retrieval suite', () => {
  // The ranking goes deeper than the context: src/c.py is ranked third but did not fit in the context.
  const context = ctx([chunk('a', 'code', 'src/a.py', 'def a(): pass'), chunk('i', 'issues', 'issues/7', 'issue text', 7), chunk('b', 'docs', 'doc/b.rst', 'B')]);
  const ranking = { depth: 50, chunks: ['a', 'i', 'b', 'a2', 'c'], files: ['src/a.py', 'doc/b.rst', 'src/c.py'] };
  it('scores the ranking at k, and the context apart as context.recall', () => {
    // ranked files: src/a.py, doc/b.rst, src/c.py; gold {src/c.py, doc/b.rst}
    const m = retrievalMetrics(q({ files: ['src/c.py', 'doc/b.rst'], issues: [7, 8] }), { context, ranking });
    expect(m['file.acc@1']).toBe(0);
    expect(m['file.mrr']).toBeCloseTo(1 / 2, 12); // first gold at rank 2
    expect(m['file.recall@5']).toBe(1);
    // DCG = 1/log2(3) + 1/log2(4); IDCG = 1 + 1/log2(3)
    expect(m['file.ndcg@10']).toBeCloseTo((1 / Math.log2(3) + 0.5) / (1 + 1 / Math.log2(3)), 12);
    expect(m['doc.recall@10']).toBe(1);
    expect(m['context.recall']).toBe(0.5); // doc/b.rst in the context, src/c.py only in the ranking
    expect(m['issue.recall']).toBe(0.5); // #7 in context, #8 not
  });
  it('is null where there is no gold of that kind', () => {
    const m = retrievalMetrics(q({ issues: [7] }), { context, ranking });
    expect(m['file.recall@5']).toBeNull();
    expect(m['doc.recall@10']).toBeNull();
    expect(m['context.recall']).toBeNull();
    expect(m['issue.recall']).toBe(1);
  });
});

describe('fusion suite', () => {
  it.each([
    [{ docs: 4, code: 4, issues: 4 }, true],
    [{ docs: 0, code: 6, issues: 6 }, true],
    [{ docs: 0, code: 12, issues: 0 }, false], // one collection is not a quota
    [{ docs: 3, code: 8, issues: 1 }, false],
  ])('even quota of %j is %s', (slots, even) => {
    expect(isEvenQuota(slots)).toBe(even);
  });
  it('counts slots spent on collections without gold', () => {
    // gold in code only: docs 3 + issues 1 of 12 slots are wasted
    expect(fusionMetrics(q({ files: ['src/a.py'] }), { docs: 3, code: 8, issues: 1 })['fusion.wastedSlots']).toBeCloseTo(4 / 12, 12);
    // gold issue and a doc file: only code is wasted
    expect(fusionMetrics(q({ files: ['doc/x.md'], issues: [1] }), { docs: 3, code: 8, issues: 1 })['fusion.wastedSlots']).toBeCloseTo(8 / 12, 12);
  });
});

const answer = (text: string, extra: Partial<VerifiedAnswer> = {}): VerifiedAnswer => ({
  text,
  language: 'en',
  generator: 'test',
  citations: [],
  invalid: [],
  unsupported: [],
  ...extra,
});
const cite = (marker: number) => ({ marker, collection: 'code' as const, path: 'p', startLine: 1, endLine: 1, snippet: '', verified: true });

describe('citation suite', () => {
  it('shares of resolved markers and of sentence-marker pairs that hold the text', () => {
    const a = answer('Alpha is one [1]. Beta is two [2]. Gamma is three [1][3].', {
      citations: [cite(1), cite(2)],
      invalid: [
        { marker: 3, problem: 'no block 3' },
        { marker: 2, problem: 'quote not in block', sentence: 'Beta is two [2].' },
      ],
    });
    const m = citationMetrics(a);
    expect(m['citations.resolved']).toBeCloseTo(2 / 3, 12); // markers {1,2,3}, valid {1,2}
    // pairs: (1,Alpha) ok, (2,Beta) fails its quote, (1,Gamma) ok, (3,Gamma) bad marker → 2/4
    expect(m['citations.holdText']).toBeCloseTo(2 / 4, 12);
    expect(m['answer.answered']).toBe(1);
  });
  it('a no-answer has no markers to score', () => {
    const m = citationMetrics(answer('I could not find the answer in the indexed sources.', { noAnswer: true }));
    expect(m).toEqual({ 'answer.answered': 0, 'citations.resolved': null, 'citations.holdText': null });
  });
});

describe('offline judge', () => {
  it('support share is the share of the claim words found in the cited blocks', () => {
    // words: use, skipif, to, skip, on, windows → 5 of 6 in the evidence ("windows" is not)
    expect(supportShare('Use skipif to skip on Windows [1].', ['use skipif to skip a test on some platforms'])).toBeCloseTo(5 / 6, 12);
    expect(supportShare('anything [1]', [])).toBe(0);
  });
  it('judges each sentence by the blocks it cites, and fingerprints the context it got', async () => {
    const context = ctx([chunk('a', 'docs', 'a.md', 'Use skipif to skip a test on Windows.'), chunk('b', 'docs', 'b.md', 'Install with pip.')]);
    const j = await new OfflineSupportJudge().judge('q', context, answer('Use skipif to skip a test on Windows [1]. Install with pip [1]. Nothing cited here.'));
    expect(j.sentences.map((s) => s.supported)).toEqual([true, false, false]); // the second cites the wrong block
    expect(j.sentences[2]!.reason).toBe('cites no block');
    expect(j.contextFingerprint).toBe(contextFingerprint(context));
  });
  it('the fingerprint changes when a block is dropped or one character is cut', () => {
    const chunks = [chunk('a', 'docs', 'a.md', 'Use skipif.'), chunk('b', 'docs', 'b.md', 'Install with pip.')];
    const full = contextFingerprint(ctx(chunks));
    expect(contextFingerprint(ctx(chunks))).toBe(full);
    expect(contextFingerprint(ctx(chunks.slice(0, 1)))).not.toBe(full);
    expect(contextFingerprint(ctx([chunks[0]!, { ...chunks[1]!, text: 'Install with pip' }]))).not.toBe(full);
  });
});

describe('LLM judge', () => {
  it('parses one verdict per claim, in English or Spanish; missing ones stay null', () => {
    expect(parseVerdicts('1: yes\n2: no\n3: sí', 4)).toEqual([true, false, true, null]);
    expect(parseVerdicts('Claim 2: NO\nclaim 1: Yes\n1: no', 2)).toEqual([true, false]); // first verdict per claim wins
  });
  it('sends only cited claims, with the exact text of the blocks they cite', async () => {
    const context = ctx([chunk('a', 'docs', 'a.md', 'Use skipif to skip on Windows.'), chunk('b', 'docs', 'b.md', 'Install with pip.')]);
    const sent: string[] = [];
    // A scripted model: this tests the judge's prompt and bookkeeping, not a model's judgement.
    const judge = new LlmJudge({ id: 'scripted', complete: (m) => (sent.push(m.map((x) => x.content).join('\n')), Promise.resolve('1: yes\n2: no')) });
    const j = await judge.judge('q', context, answer('Skip on Windows with skipif [1]. Install it [2]. Uncited claim.'));
    expect(j.judge).toBe('llm:scripted');
    expect(j.sentences.map((s) => s.supported)).toEqual([true, false, false]);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toContain('Use skipif to skip on Windows.');
    expect(sent[0]).toContain('Install with pip.');
    expect(sent[0]).not.toContain('Uncited claim');
  });
});

describe('truncation suite', () => {
  it('buckets token counts by window/8 and counts chunks over the window', () => {
    const row = truncationRow('code', [0, 63, 64, 511, 512, 513, 700], 512);
    expect(row.histogram.slice(0, 8).map((b) => b.count)).toEqual([2, 1, 0, 0, 0, 0, 0, 2]);
    expect(row.overWindow).toBe(2);
    expect(row.maxTokens).toBe(700);
    expect(row.histogram.at(-1)).toMatchObject({ from: 513, count: 2 });
  });
});

function result(id: string, lang: 'en' | 'es', metrics: Record<string, number | null>): QuestionResult {
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
  };
}

describe('answer metrics', () => {
  const answer = (noAnswer: boolean, paths: string[], invalid = 0): VerifiedAnswer => ({
    text: noAnswer ? 'No encuentro la respuesta en las fuentes indexadas.' : 'x [1]',
    language: 'es',
    generator: 'extractive',
    ...(noAnswer ? { noAnswer: true } : {}),
    citations: paths.map((p, i) => ({ marker: i + 1, collection: 'docs', path: p, startLine: 1, endLine: 2, snippet: '', verified: true })),
    invalid: Array.from({ length: invalid }, (_, i) => ({ marker: 9 + i, problem: 'no such block' })),
    unsupported: [],
  });
  const gold = { files: ['doc/a.rst'], symbols: [], issues: [], source: 'docs' as const, answerable: true };
  it('is right when a verified citation is a gold page; abstaining is right only where the sources hold no answer', () => {
    expect(answerMetrics({ gold }, answer(false, ['doc/b.rst', 'doc/a.rst']))).toEqual({ 'answer.right': 1, 'answer.firstFile': 0, 'answer.citedGold': 0.5, 'answer.goldSymbol': null, 'answer.abstained': null, 'answer.referenceTerms': null, 'answer.referenceQuoted': null, 'citations.invalid': 0 });
    expect(answerMetrics({ gold }, answer(false, ['doc/b.rst'], 1))).toEqual({ 'answer.right': 0, 'answer.firstFile': 0, 'answer.citedGold': 0, 'answer.goldSymbol': null, 'answer.abstained': null, 'answer.referenceTerms': null, 'answer.referenceQuoted': null, 'citations.invalid': 1 });
    expect(answerMetrics({ gold }, answer(true, []))).toEqual({ 'answer.right': 0, 'answer.firstFile': 0, 'answer.citedGold': null, 'answer.goldSymbol': null, 'answer.abstained': null, 'answer.referenceTerms': null, 'answer.referenceQuoted': null, 'citations.invalid': null });
    const none = { ...gold, files: [], answerable: false };
    expect(answerMetrics({ gold: none }, answer(true, []))).toEqual({ 'answer.right': null, 'answer.firstFile': null, 'answer.citedGold': null, 'answer.goldSymbol': null, 'answer.abstained': 1, 'answer.referenceTerms': null, 'answer.referenceQuoted': null, 'citations.invalid': null });
    expect(answerMetrics({ gold: none }, answer(false, ['doc/a.rst']))).toEqual({ 'answer.right': null, 'answer.firstFile': null, 'answer.citedGold': null, 'answer.goldSymbol': null, 'answer.abstained': 0, 'answer.referenceTerms': null, 'answer.referenceQuoted': null, 'citations.invalid': 0 });
  });
  it('judges the first file the answer cites, skipping issue citations', () => {
    expect(answerMetrics({ gold }, answer(false, ['doc/a.rst', 'doc/b.rst']))['answer.firstFile']).toBe(1);
    const issueFirst = answer(false, ['doc/a.rst']);
    issueFirst.citations.unshift({ marker: 7, collection: 'issues', path: 'issues/12', issue: 12, startLine: 1, endLine: 1, snippet: '', verified: true });
    expect(answerMetrics({ gold }, issueFirst)['answer.firstFile']).toBe(1);
    expect(answerMetrics({ gold: { ...gold, files: [], issues: [12] } }, issueFirst)['answer.firstFile']).toBeNull();
  });
  it("counts an answer that cites a gold symbol in a gold file, by the symbol's last name", () => {
    const code = { files: ['src/tmpdir.py'], symbols: ['TempPathFactory.getbasetemp'], issues: [], source: 'code' as const, answerable: true };
    const citing = (...cites: [string, string | undefined][]): VerifiedAnswer => ({
      ...answer(false, []),
      citations: cites.map(([path, symbol], i) => ({ marker: i + 1, collection: 'code', path, ...(symbol ? { symbol } : {}), startLine: 1, endLine: 2, snippet: '', verified: true })),
    });
    expect(answerMetrics({ gold: code }, citing(['src/pathlib.py', 'make_numbered_dir'], ['src/tmpdir.py', 'TempPathFactory.getbasetemp']))['answer.goldSymbol']).toBe(1);
    expect(answerMetrics({ gold: code }, citing(['src/tmpdir.py', 'getbasetemp']))['answer.goldSymbol']).toBe(1);
    // The right file with another symbol, the right name in another file, or no symbol: not cited.
    expect(answerMetrics({ gold: code }, citing(['src/tmpdir.py', 'TempPathFactory.mktemp']))['answer.goldSymbol']).toBe(0);
    expect(answerMetrics({ gold: code }, citing(['src/legacypath.py', 'getbasetemp']))['answer.goldSymbol']).toBe(0);
    expect(answerMetrics({ gold: code }, citing(['src/tmpdir.py', undefined]))['answer.goldSymbol']).toBe(0);
    expect(answerMetrics({ gold: code }, answer(true, []))['answer.goldSymbol']).toBe(0);
    expect(answerMetrics({ gold: { ...code, symbols: [] } }, citing(['src/tmpdir.py', 'getbasetemp']))['answer.goldSymbol']).toBeNull();
  });
  it('counts the share of distinct cited files that are gold, issues aside', () => {
    expect(answerMetrics({ gold }, answer(false, ['doc/a.rst', 'doc/b.rst', 'doc/a.rst', 'doc/c.rst']))['answer.citedGold']).toBeCloseTo(1 / 3);
    const withIssue = answer(false, ['doc/a.rst']);
    withIssue.citations.push({ marker: 7, collection: 'issues', path: 'issues/12', issue: 12, startLine: 1, endLine: 1, snippet: '', verified: true });
    expect(answerMetrics({ gold }, withIssue)['answer.citedGold']).toBe(1);
  });
});

describe('Holm correction and the language gap', () => {
  it('adjusts p-values step-down, monotone, capped at 1, in input order', () => {
    // Sorted: 0.005×4 = 0.02, 0.01×3 = 0.03, 0.03×2 = 0.06, 0.04×1 = 0.04 → max(0.06, 0.04) = 0.06.
    expect(holmAdjust([0.01, 0.04, 0.03, 0.005]).map((p) => +p.toFixed(6))).toEqual([0.03, 0.06, 0.06, 0.02]);
    expect(holmAdjust([0.5, Number.NaN, 0.6])).toEqual([1, Number.NaN, 1]);
    expect(holmAdjust([])).toEqual([]);
  });

  it('tests Spanish against English on the paired questions only, with Holm over the table', () => {
    const stats = { seed: 's', bootstrap: 500, permutations: 2000 };
    const rs: QuestionResult[] = [];
    for (let i = 0; i < 12; i++) {
      rs.push({ ...result(`q${i}-en`, 'en', { 'file.acc@1': 1, 'answer.right': 1 }), pair: `q${i}` });
      rs.push({ ...result(`q${i}-es`, 'es', { 'file.acc@1': 0, 'answer.right': i % 2 }), pair: `q${i}` });
    }
    rs.push(result('lonely-es', 'es', { 'file.acc@1': 0 })); // no pair: left out
    const rows = languageGap(rs, stats, ['file.acc@1', 'answer.right']);
    const acc = rows.find((r) => r.metric === 'file.acc@1')!;
    expect(acc).toMatchObject({ dataset: 'd', n: 12, meanEn: 1, meanEs: 0, diff: -1, verdict: 'gap' });
    // 12 differences of −1: exact p = 2 / 2^12; Holm doubles the smallest of the two.
    expect(acc.p).toBeCloseTo(2 / 4096, 10);
    expect(acc.pHolm).toBeCloseTo(4 / 4096, 10);
    const right = rows.find((r) => r.metric === 'answer.right')!;
    expect(right).toMatchObject({ n: 12, meanEs: 0.5, diff: -0.5 });
    expect(right.pHolm).toBeGreaterThanOrEqual(right.p);
  });
});

describe('aggregation and paired comparison', () => {
  const stats = { seed: 's', bootstrap: 500, permutations: 2000 };
  it('aggregates per group over the questions where a metric applies', () => {
    const rs = [result('a', 'en', { m: 1 }), result('b', 'en', { m: 0 }), result('c', 'es', { m: null })];
    expect(groupsOf(rs).slice(0, 3)).toEqual([{}, { lang: 'en' }, { lang: 'es' }]);
    const aggs = aggregate(rs, ['m'], stats);
    expect(aggs.find((a) => Object.keys(a.group).length === 0)).toMatchObject({ n: 2, mean: 0.5 });
    expect(aggs.some((a) => a.group.lang === 'es' && Object.keys(a.group).length === 1)).toBe(false); // n = 0: no aggregate
  });
  it('marks a significant change better or worse by the metric direction', () => {
    const metrics: MetricInfo[] = [
      { name: 'r', label: 'r', direction: 'higher', unit: 'share', description: '' },
      { name: 't', label: 't', direction: 'lower', unit: 'ms', description: '' },
    ];
    const ids = ['1', '2', '3', '4', '5', '6'];
    const a = ids.map((id) => result(id, 'en', { r: 1, t: 100 }));
    const b = ids.map((id) => result(id, 'en', { r: 0, t: 50 }));
    const all = compareRuns(a, b, metrics, stats).filter((c) => Object.keys(c.group).length === 0);
    // 6 differences of one sign: exact p = 2 / 2^6 = 0.03125
    expect(all.find((c) => c.metric === 'r')).toMatchObject({ n: 6, diff: -1, verdict: 'worse' });
    expect(all.find((c) => c.metric === 'r')!.p).toBeCloseTo(0.03125, 12);
    expect(all.find((c) => c.metric === 't')).toMatchObject({ diff: -50, verdict: 'better' });
    // 4 questions are not enough: p = 2/16 = 0.125
    const few = compareRuns(a.slice(0, 4), b.slice(0, 4), metrics, stats).find((c) => c.metric === 'r' && Object.keys(c.group).length === 0);
    expect(few).toMatchObject({ verdict: 'same' });
    expect(few!.p).toBeCloseTo(0.125, 12);
  });
});

describe('datasets', () => {
  it('maps the shared pytest datasets onto eval records with the expected source', () => {
    const loc = loadDataset({ name: 'loc', path: path.join(sharedDatasets, 'pytest/issue-localization.jsonl'), format: 'localization' }, '/');
    expect(loc.questions).toHaveLength(68);
    expect(loc.sha256).toMatch(/^[0-9a-f]{64}$/);
    const ref = loc.questions.find((r) => r.kind === 'issue-ref')!;
    expect(ref.gold.source).toBe('issues');
    expect(ref.gold.issues).toHaveLength(1);
    expect(loc.questions.find((r) => r.kind === 'issue-text')!.gold).toMatchObject({ source: 'code', issues: [] });
    const qa = loadDataset({ name: 'qa', path: path.join(sharedDatasets, 'pytest/code-qa.jsonl'), format: 'code-qa' }, '/');
    expect(qa.questions.filter((r) => r.lang === 'es')).toHaveLength(30);
  });
  it('reports a bad record by file, line and field, and duplicate ids across datasets', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cita-ds-'));
    const good = { id: 'x', lang: 'en', kind: 'k', question: 'q?', gold: { files: ['a.py'], source: 'code' } };
    fs.writeFileSync(path.join(dir, 'a.jsonl'), `${JSON.stringify(good)}\n${JSON.stringify({ ...good, id: 'y', gold: { files: [], source: 'code' } })}\n`);
    expect(() => loadDataset({ name: 'a', path: 'a.jsonl', format: 'cita' }, dir)).toThrow(/a\.jsonl:2: gold: gold needs at least one file or issue/);
    fs.writeFileSync(path.join(dir, 'b.jsonl'), `${JSON.stringify({ ...good, lang: 'fr' })}\n`);
    expect(() => loadDataset({ name: 'b', path: 'b.jsonl', format: 'cita' }, dir)).toThrow(/b\.jsonl:1: lang/);
    fs.writeFileSync(path.join(dir, 'c.jsonl'), `${JSON.stringify(good)}\n`);
    fs.writeFileSync(path.join(dir, 'd.jsonl'), `${JSON.stringify(good)}\n`);
    expect(() => loadDatasets([{ name: 'c', path: 'c.jsonl', format: 'cita' }, { name: 'd', path: 'd.jsonl', format: 'cita' }], dir)).toThrow(/"x" is in both c and d/);
    expect(() => loadDatasets([], dir)).toThrow(/eval\.datasets/);
    // A user's mistake, printed as one line (no stack under CITA_DEBUG): found by bench/fuzz.ts.
    expect(() => loadDatasets([], dir)).toThrow(UserError);
    // An unanswerable question has no gold, and says so; a gold file on one is a contradiction.
    const none = { id: 'u', lang: 'es', kind: 'unanswerable', question: '¿?', pair: 'u', split: 'test', gold: { files: [], source: 'docs', answerable: false } };
    fs.writeFileSync(path.join(dir, 'e.jsonl'), `${JSON.stringify(none)}\n`);
    expect(loadDataset({ name: 'e', path: 'e.jsonl', format: 'cita' }, dir).questions[0]).toMatchObject({ pair: 'u', split: 'test', gold: { answerable: false } });
    fs.writeFileSync(path.join(dir, 'f.jsonl'), `${JSON.stringify({ ...none, gold: { ...none.gold, files: ['a.md'] } })}\n`);
    expect(() => loadDataset({ name: 'f', path: 'f.jsonl', format: 'cita' }, dir)).toThrow(/f\.jsonl:1: gold: an unanswerable question has no gold files or issues/);
    fs.rmSync(dir, { recursive: true });
  });

  it.each([
    { name: 'pytest-docs', checkout: 'corpus/pytest-8.4.2', unanswerable: 10, spanish: 40 },
    { name: 'black-docs', checkout: 'corpus/black-24.10.0', unanswerable: 10, spanish: 20 },
    { name: 'flask-docs', checkout: 'corpus/flask-3.1.2', unanswerable: 8, spanish: 20 },
    { name: 'click-docs', checkout: 'corpus/click-8.1.8', unanswerable: 8, spanish: 30 },
  ])('loads cita\'s own $name dataset: pairs in both languages, both splits, unanswerable ones, gold pages that exist', ({ name, checkout, unanswerable, spanish }) => {
    const root = path.resolve(import.meta.dirname, '..');
    const d = loadDataset({ name, path: `datasets/${name}.jsonl`, format: 'cita' }, root);
    const pairs = new Map<string, Set<string>>();
    for (const q of d.questions) pairs.set(q.pair!, (pairs.get(q.pair!) ?? new Set()).add(q.lang));
    expect([...pairs.values()].every((langs) => langs.size === 2)).toBe(true);
    expect(new Set(d.questions.map((q) => q.split))).toEqual(new Set(['dev', 'test']));
    expect(d.questions.filter((q) => q.gold.answerable === false).length).toBeGreaterThanOrEqual(unanswerable);
    expect(d.questions.filter((q) => q.lang === 'es' && q.gold.answerable !== false).length).toBeGreaterThanOrEqual(spanish);
    // A mistyped gold path would make its question unanswerable without a word (`npm run setup` fetches the checkouts).
    if (!fs.existsSync(path.join(root, checkout))) return void console.warn(`${checkout} missing: run \`npm run setup\``);
    const missing = [...new Set(d.questions.flatMap((q) => q.gold.files))].filter((f) => !fs.existsSync(path.join(root, checkout, f)));
    expect(missing).toEqual([]);
  });
  it('pairs the shared datasets\' translated questions by id', () => {
    const loc = loadDataset({ name: 'loc', path: path.join(sharedDatasets, 'pytest/issue-localization.jsonl'), format: 'localization' }, '/');
    expect(loc.questions.find((q) => q.id === 'pytest-5103-issue-ref-es')?.pair).toBe('pytest-5103-issue-ref');
  });
  it('splits the shared datasets by the number of each pair, both languages in the same half', () => {
    const loc = loadDataset({ name: 'loc', path: path.join(sharedDatasets, 'pytest/issue-localization.jsonl'), format: 'localization' }, '/');
    const cqa = loadDataset({ name: 'cqa', path: path.join(sharedDatasets, 'pytest/code-qa.jsonl'), format: 'code-qa' }, '/');
    expect(loc.questions.find((q) => q.id === 'pytest-5103-issue-ref-es')?.split).toBe('dev');
    expect(cqa.questions.find((q) => q.id === 'pytest-cqa-002-en')?.split).toBe('test');
    for (const d of [loc, cqa]) {
      expect(new Set(d.questions.map((q) => q.split))).toEqual(new Set(['dev', 'test']));
      const byPair = new Map<string, Set<string | undefined>>();
      for (const q of d.questions) byPair.set(q.pair!, (byPair.get(q.pair!) ?? new Set()).add(q.split));
      expect([...byPair.values()].every((s) => s.size === 1)).toBe(true);
    }
  });
});

describe('nightly verdict', () => {
  const metrics: MetricInfo[] = [{ name: 'r', label: 'r', direction: 'higher', unit: 'share', description: '' }];
  const report = (questions: QuestionResult[]) =>
    ({ version: 1, kind: 'run', meta: { stats: { seed: 's', bootstrap: 200, permutations: 1000, primary: [{ metric: 'r' }] } }, metrics, runs: [{ label: 'x', configHash: 'h', questions }] }) as unknown as Report;
  const ids = ['1', '2', '3'];
  it('passes when nothing changed, fails on a question that errors (its metrics would drop out of the tests)', () => {
    const base = report(ids.map((id) => result(id, 'en', { r: 1 })));
    expect(nightlyReport(base, report(ids.map((id) => result(id, 'en', { r: 1 }))), 'b.json').verdict).toMatchObject({ status: 'pass', errors: [] });
    const broken = ids.map((id) => result(id, 'en', { r: id === '2' ? null : 1 }));
    broken[1]!.error = 'boom';
    expect(nightlyReport(base, report(broken), 'b.json').verdict).toMatchObject({ status: 'fail', errors: ['2'], regressions: [] });
  });
});

describe('the extractive calibration sweep (eval/calibrate-extractive.ts)', () => {
  it('runs every combination of the sweeps, numbers as numbers', () => {
    expect(settingsOf(['maxSentences=3,4', 'spread=pages,blocks'])).toEqual([
      { maxSentences: 3, spread: 'pages' },
      { maxSentences: 3, spread: 'blocks' },
      { maxSentences: 4, spread: 'pages' },
      { maxSentences: 4, spread: 'blocks' },
    ]);
    expect(settingsOf([])).toEqual([{}]);
    expect(() => settingsOf(['maxSentences'])).toThrow(/expected key=v1,v2/);
  });

  it('refuses to sweep an option that changes how sentences are scored: the replay scores them once', () => {
    expect(() => checkReplayable(settingsOf(['meaningQuery=both,translation']))).toThrow(/--sweep meaningQuery: .* --set/);
    expect(() => checkReplayable(settingsOf(['maxSentences=3,4', 'semanticBlocks=6,12']))).toThrow(/semanticBlocks/);
    expect(() => checkReplayable(settingsOf(['minRelevance=0.84,0.86', 'crossLingualDiscount=0,0.02']))).not.toThrow();
  });
});
