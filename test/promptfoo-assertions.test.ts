import { describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM of the promptfoo suite, without type declarations
import { citationsVerified, goldFileCited, goldFileInContext, sentencesSupported } from '../eval/promptfoo/assertions.mjs';

/**
 * The offline assertions of the promptfoo suite (eval/promptfoo), run here without promptfoo itself
 * (1.9 GB, not in CI): each reads the metadata the cita provider puts on its response.
 */
type Result = { pass: boolean; score: number; reason: string };
type Assertion = (output: string, context: unknown) => Result;
const check = citationsVerified as Assertion;
const faithful = sentencesSupported as Assertion;
const cited = goldFileCited as Assertion;
const inContext = goldFileInContext as Assertion;

const base = {
  markers: [1, 2],
  citations: [
    { marker: 1, verified: true, path: 'src/a.py', lines: '1-5' },
    { marker: 2, verified: true, path: 'doc/b.rst', lines: '3-4' },
  ],
  invalid: [] as { marker: number; problem: string; sentence?: string }[],
  unsupported: [] as string[],
  noAnswer: false,
  citedPaths: ['src/a.py', 'doc/b.rst'],
  contextPaths: ['src/a.py', 'doc/b.rst', 'src/c.py'],
};
const ctx = (m: Partial<typeof base>, goldFiles: string[] = ['src/c.py']) => ({ metadata: { ...base, ...m }, test: { metadata: { goldFiles } } });

describe('promptfoo assertions', () => {
  it('citations pass when every marker resolves, and name the marker that does not', () => {
    expect(check('', ctx({})).pass).toBe(true);
    const r = check('', ctx({ markers: [1, 2, 3] }));
    expect(r.pass).toBe(false);
    expect(r.reason).toContain('[3] has no verified citation');
    const q = check('', ctx({ invalid: [{ marker: 2, problem: 'lines 3-4 do not hold the quoted text', sentence: 'Use b.' }] }));
    expect(q).toMatchObject({ pass: false, score: 0 });
    expect(q.reason).toContain('lines 3-4 do not hold the quoted text');
  });
  it('faithfulness fails on an unsupported sentence and passes an explicit no-answer', () => {
    expect(faithful('', ctx({ unsupported: ['It also deletes files.'] }))).toMatchObject({ pass: false, score: 0 });
    expect(faithful('', ctx({ noAnswer: true, markers: [], citations: [] }))).toMatchObject({ pass: true, score: 1 });
    expect(faithful('', {})).toMatchObject({ pass: false }); // not a cita response
  });
  it('retrieval is reported as a score and never fails', () => {
    expect(cited('', ctx({}))).toMatchObject({ pass: true, score: 0 }); // src/c.py only in the context
    expect(inContext('', ctx({}))).toMatchObject({ pass: true, score: 1 });
    expect(cited('', ctx({}, ['doc/b.rst']))).toMatchObject({ pass: true, score: 1 });
  });
});
