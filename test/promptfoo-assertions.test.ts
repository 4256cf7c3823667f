import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
// @ts-expect-error plain ESM of the promptfoo suite, without type declarations
import * as assertions from '../eval/promptfoo/assertions.mjs';
// @ts-expect-error plain ESM of the promptfoo suite, without type declarations
import { citationsVerified, goldFileCited, goldFileInContext, sentencesSupported } from '../eval/promptfoo/assertions.mjs';
// @ts-expect-error plain ESM of the promptfoo suite, without type declarations
import generateTests from '../eval/promptfoo/tests.mjs';

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

describe('promptfoo fails a provider that always abstains', () => {
  type Test = { metadata: Record<string, unknown>; assert?: { type: string; value: string }[] };
  const abstaining = { markers: [], citations: [], invalid: [], unsupported: [], noAnswer: true, citedPaths: [], contextPaths: ['src/c.py'] };
  /** The offline assertions every test gets (defaultTest of promptfooconfig.yaml), as functions of assertions.mjs. */
  const suite = () => {
    const config = YAML.parse(fs.readFileSync(new URL('../eval/promptfoo/promptfooconfig.yaml', import.meta.url), 'utf8')) as { defaultTest: { assert: { type: string; value: string }[] } };
    return config.defaultTest.assert.map((a) => {
      const name = /^file:\/\/assertions\.mjs:(\w+)$/.exec(a.value)?.[1];
      const fn = name ? (assertions as Record<string, Assertion>)[name] : undefined;
      if (!fn) throw new Error(`promptfooconfig.yaml names ${a.value}, which assertions.mjs does not export`);
      return fn;
    });
  };
  const passes = (test: Test, metadata: typeof base | typeof abstaining) => suite().every((fn) => fn('', { metadata, test }).pass);

  it('an abstention fails a question with gold and passes one without', () => {
    const answered = assertions.answersWhereGoldExists as Assertion;
    expect(answered('', ctx({ noAnswer: true, markers: [], citations: [] }))).toMatchObject({ pass: false, score: 0 });
    expect(answered('', ctx({ noAnswer: true, markers: [], citations: [] })).reason).toContain('src/c.py');
    expect(answered('', { metadata: abstaining, test: { metadata: { issue: 7432, goldFiles: [] } } })).toMatchObject({ pass: false });
    expect(answered('', { metadata: abstaining, test: { metadata: { goldFiles: [], answerable: false } } })).toMatchObject({ pass: true });
    expect(answered('', ctx({}))).toMatchObject({ pass: true, score: 1 });
  });

  it("every question of the pytest datasets fails the suite's offline assertions when the provider always abstains", async () => {
    const prev = process.env.CITA_PROMPTFOO_SAMPLE;
    process.env.CITA_PROMPTFOO_SAMPLE = 'all';
    let tests: Test[];
    try {
      tests = (await generateTests({ instance: 'pytest' })) as Test[];
    } finally {
      if (prev === undefined) delete process.env.CITA_PROMPTFOO_SAMPLE;
      else process.env.CITA_PROMPTFOO_SAMPLE = prev;
    }
    expect(tests.length).toBe(144); // 68 issue-localization + 76 code-qa, every one with gold files
    expect(tests.filter((t) => passes(t, abstaining)).map((t) => t.metadata.id)).toEqual([]);
    // The same suite passes a verified, supported answer: the new assertion fails abstentions, not answers.
    expect(tests.filter((t) => !passes(t, base)).map((t) => t.metadata.id)).toEqual([]);
  });
});
