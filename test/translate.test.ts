import type { ChildProcess } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { denseVector, searchPlan } from '../pipeline/retrieval/crossLingual.ts';
import { meanVector } from '../pipeline/vectors.ts';
import { ApertiumPipe } from '../pipeline/text/apertiumPipe.ts';
import { ApertiumTranslator, parseBilingual, protectCode, restoreCode } from '../pipeline/text/translate.ts';
import { apertiumTest } from './support/apertium.ts';

/** Query translation (Apertium): code passes through untouched, prose is translated. */

const itApertium = apertiumTest('spa-eng');

const TEXTS = [
  '¿Cómo omito un test en Windows?',
  'Uso `pytest.mark.skip` y test_foo_bar() con --runxfail en src/_pytest/skipping.py [1] 50% a@b {x} ^y$ *z* \\w',
  'Falla así:\n\n```python\ndef test_x(tmp_path):\n    assert foo.bar(1) == 2\n```\nTraceback (most recent call last):\n  File "x.py", line 3\nE   AssertionError\n\nY luego nada.',
  '    indentado = código\n>>> import pytest\n¿Por qué el fixture `tmp_path` no se limpia? Ver #5103 y https://docs.pytest.org/en/stable/how-to/tmp_path.html.',
];

/** Placeholders written with a visible mark, to compare streams. */
const shown = (stream: string) => stream.replace(/\uE000/g, '§');

describe('protectCode / restoreCode', () => {
  it.each(TEXTS)('round-trips untranslated text exactly: %j', (text) => {
    const { stream, spans } = protectCode(text);
    expect(restoreCode(stream, spans)).toBe(text);
  });

  it('holds identifiers, options, paths, code spans, code blocks and tracebacks out of the prose', () => {
    const { stream, spans } = protectCode(TEXTS[1]!);
    expect(spans).toEqual(['`pytest.mark.skip`', 'test_foo_bar()', '--runxfail', 'src/_pytest/skipping.py', '[1]', '50%', 'a@b', '{x}', '^y$', '*z*', '\\w']);
    expect(shown(stream)).toBe('Uso [§0§] y [§1§] con [§2§] en [§3§] [§4§] [§5§] [§6§] [§7§] [§8§] [§9§] [§10§]');
    const block = protectCode(TEXTS[2]!);
    expect(block.spans[0]).toBe('```python\ndef test_x(tmp_path):\n    assert foo.bar(1) == 2\n```');
    expect(block.spans).toContain('Traceback (most recent call last):');
    expect(block.spans).toContain('E   AssertionError');
    expect(block.stream).toContain('Y luego nada.');
  });

  it('leaves no character that Apertium reserves in the prose it translates', () => {
    const { stream, spans } = protectCode('una ruta a/b y un [corchete] con ^ y $ y «comillas» (paréntesis).');
    expect(spans).toEqual(['a/b', '[corchete]', '^', '$']);
    expect(shown(stream)).toBe('una ruta [§0§] y un [§1§] con [§2§] y [§3§] y «comillas» (paréntesis).');
    expect(stream.replace(/\[\uE000\d+\uE000\]/g, '')).not.toMatch(/(?<!\\)[[\]^$/<>@{}*]/);
  });

  it('holds RST double-backtick literals as single spans, translating the prose between two of them', () => {
    // Before #15 item 2 the single-backtick pattern took ``a`` prose ``b`` as `a`, then ` prose `:
    // the prose between two literals was held out, so a glossed docs chunk kept it in English.
    const { stream, spans } = protectCode('Use ``--lf`` to rerun only the failures, or ``--ff`` to run them first.');
    expect(spans).toEqual(['``--lf``', '``--ff``']);
    expect(shown(stream)).toBe('Use [§0§] to rerun only the failures, or [§1§] to run them first.');
  });

  it('holds the words of `keep` as written, and only those', () => {
    const { stream, spans } = protectCode('Black formats black text. (Black)', new Set(['Black']));
    expect(spans).toEqual(['Black', 'Black']);
    expect(shown(stream)).toBe('[§0§] formats black text. ([§1§])');
  });

  it('cannot be fooled by a user who writes a placeholder', () => {
    const text = 'mira [§0§] y `x_y` [§1§]';
    const { stream, spans } = protectCode(text);
    expect(restoreCode(stream, spans)).toBe(text);
    expect(restoreCode(stream.replace('mira', 'look at'), spans)).toBe('look at [§0§] y `x_y` [§1§]');
  });
});

describe('parseBilingual', () => {
  it('reads every target of each lexical unit, tags and multiword marks removed, unknown words none', () => {
    const out = '^salida<n><f><sg>/start<n><sg>/exit<n><sg>/output<n><sg>$ ^saltar<vblex><inf>/jump<vblex><inf>/jump# over<vblex><inf>$ ^*pytest/*pytest$ [§0§] ^,<cm>/,<cm>$';
    expect(parseBilingual(out)).toEqual([['start', 'exit', 'output'], ['jump', 'jump over'], [], []]);
  });
});

describe('ApertiumTranslator', () => {
  itApertium('lists the dictionary\'s translations of each word, not only the one the translation picks', async () => {
    const alts = await new ApertiumTranslator().alternatives('código de salida en `pytest.exit`', 'es', 'en');
    expect(alts).toEqual(expect.arrayContaining(['code', 'exit', 'output']));
    expect(alts.join(' ')).not.toContain('pytest');
  });

  itApertium('translates Spanish prose to English and leaves code as written', async () => {
    const t = new ApertiumTranslator();
    const out = await t.translate('¿Cómo omito un test en Windows cuando uso `pytest.mark.skipif` y test_foo_bar()?', 'es', 'en');
    expect(out).toMatch(/\bWindows\b/);
    expect(out).toMatch(/\bwhen\b/i);
    expect(out).toContain('`pytest.mark.skipif`');
    expect(out).toContain('test_foo_bar()');
    expect(out).not.toMatch(/[*§]/);
    expect(await t.translate('same text', 'en', 'en')).toBe('same text');
  });

  itApertium("holds the words it is asked to keep (a project's own name) out of the translation, each text cached with them", async () => {
    const t = new ApertiumTranslator();
    try {
      expect(await t.translate('Black reformats your code.', 'en', 'es')).toMatch(/^Negro\b/);
      const kept = await t.translate('Black reformats your code.', 'en', 'es', ['Black']);
      expect(kept).toMatch(/^Black\b/);
      expect(kept).toMatch(/\bcódigo\b/);
    } finally {
      await t.close();
    }
  });

  itApertium('takes the dictionary translations it is told to choose, agreeing with them, by a running pipeline as by one process per text', async () => {
    const choices = { 'file<n>': 'archivo', 'argument<n>': 'argumento' };
    const text = 'Black ignores the file. Pass the files as arguments to `black`.';
    const piped = new ApertiumTranslator();
    const oneShot = new ApertiumTranslator({ command: '/usr/bin/apertium' });
    try {
      const plain = await piped.translate(text, 'en', 'es', ['Black']);
      expect(plain).toMatch(/\blima\b/);
      expect(plain).toMatch(/\briñas\b/);
      const chosen = await piped.translate(text, 'en', 'es', ['Black'], choices);
      expect(chosen).toMatch(/\bel archivo\b/);
      expect(chosen).toMatch(/\blos archivos\b/);
      expect(chosen).toMatch(/\bargumentos\b/);
      expect(chosen).toContain('`black`');
      expect(await oneShot.translate(text, 'en', 'es', ['Black'], choices)).toBe(chosen);
      // The cache tells the two apart.
      expect(await piped.translate(text, 'en', 'es', ['Black'])).toBe(plain);
      const looked = await piped.lookup!(['file<n><sg>', 'file<vblex><inf>'], 'en', 'es');
      expect(looked).toContain('^file<n><sg>/lima<n><f><sg>/archivo<n><m><sg>$');
    } finally {
      await piped.close();
    }
  });

  itApertium('keeps a pasted code block and traceback byte for byte', async () => {
    const out = await new ApertiumTranslator().translate(TEXTS[2]!, 'es', 'en');
    expect(out).toContain('```python\ndef test_x(tmp_path):\n    assert foo.bar(1) == 2\n```');
    expect(out).toContain('Traceback (most recent call last):\n  File "x.py", line 3\nE   AssertionError');
    expect(out).toMatch(/^It fails/);
  });

  itApertium('translates through one running pipeline exactly as one apertium per text does', async () => {
    const piped = new ApertiumTranslator();
    const oneShot = new ApertiumTranslator({ command: '/usr/bin/apertium' });
    try {
      for (const text of TEXTS.slice(0, 2)) expect(await piped.translate(text, 'es', 'en')).toBe(await oneShot.translate(text, 'es', 'en'));
    } finally {
      await piped.close();
    }
  });

  itApertium('a running pipeline answers texts in order, and a new one starts after it dies', async () => {
    const pipe = (await ApertiumPipe.open('/usr/share/apertium/modes', 'spa-eng', 10_000))!;
    expect(pipe).toBeDefined();
    try {
      const [a, b] = await Promise.all([pipe.translate('Hola mundo.'), pipe.translate('Quiero omitir un test.')]);
      expect([a.trim(), b.trim()]).toEqual(['Hello World.', 'I want to omit a test.']);
      const proc = (pipe as unknown as { proc: ChildProcess }).proc;
      const pid = proc.pid!;
      const exited = new Promise((r) => proc.once('exit', r));
      process.kill(-pid, 'SIGKILL');
      await exited;
      expect((await pipe.translate('Hola mundo.')).trim()).toBe('Hello World.');
      expect((pipe as unknown as { proc: ChildProcess }).proc.pid).not.toBe(pid);
    } finally {
      pipe.close();
    }
  });

  it('says how to install the translator when the command is missing', async () => {
    const t = new ApertiumTranslator({ command: 'apertium-not-installed-here' });
    await expect(t.translate('hola mundo', 'es', 'en')).rejects.toThrow(/apertium-not-installed-here not found: install the Debian packages apertium and apertium-en-es/);
  });
});

describe('searchPlan', () => {
  const both = { bm25: 'both', dense: 'both' } as const;
  it('searches as asked without a translation, and with the hop text for the second hop', () => {
    expect(searchPlan('¿Cómo?', '', undefined, both)).toEqual({ question: { bm25: '¿Cómo?', dense: ['¿Cómo?'] } });
    expect(searchPlan('q', 'Issue #1: x', undefined, both).hop).toEqual({ bm25: 'Issue #1: x', dense: ['Issue #1: x'] });
  });

  it.each([
    [{ bm25: 'translated', dense: 'original' }, { bm25: 'How?', dense: ['¿Cómo?'] }],
    [{ bm25: 'original', dense: 'translated' }, { bm25: '¿Cómo?', dense: ['How?'] }],
    [both, { bm25: '¿Cómo?\nHow?', dense: ['¿Cómo?', 'How?'] }],
  ] as const)('follows retrieval.crossLingual %j', (mode, plan) => {
    expect(searchPlan('¿Cómo?', '', { text: 'How?' }, mode).question).toEqual(plan);
  });

  it('expands BM25 with the dictionary senses the translation did not use', () => {
    const plan = searchPlan('código de salida', '', { text: 'code of start', alternatives: ['code', 'of', 'from', 'start', 'exit', 'output', 'end up'] }, { bm25: 'expanded', dense: 'original' });
    expect(plan.question).toEqual({ bm25: 'code of start\nfrom exit output end up', dense: ['código de salida'] });
  });

  it('adds the senses the docs prefer beside the translation (disambiguated), not one it already has', () => {
    const plan = searchPlan('código de salida', '', { text: 'code of exit', alternatives: ['output', 'exit'] }, { bm25: 'disambiguated', dense: 'original' });
    expect(plan.question).toEqual({ bm25: 'code of exit\noutput', dense: ['código de salida'] });
    expect(searchPlan('código de salida', '', { text: 'code of exit' }, { bm25: 'disambiguated', dense: 'original' }).question.bm25).toBe('code of exit');
  });

  it('carries the compounds the docs use as phrases for a translated question only', () => {
    const mode = { bm25: 'disambiguated', dense: 'original' } as const;
    expect(searchPlan('código de salida', '', { text: 'code of start', phrases: ['exit code'] }, mode).question).toEqual({ bm25: 'code of start', dense: ['código de salida'], phrases: ['exit code'] });
    expect(searchPlan('código de salida', 'Issue #1: x', { phrases: ['exit code'] }, mode)).toEqual({
      question: { bm25: 'código de salida', dense: ['código de salida'] },
      hop: { bm25: 'Issue #1: x', dense: ['Issue #1: x'] },
    });
  });

  it("adds the language model's translation to the dense side (model: dense) and to BM25 (both), beside the others", () => {
    const mode = { bm25: 'disambiguated', dense: 'original' } as const;
    const q = '¿Pongo un punto de interrupción?';
    const breakpoint = { by: 'model:fake', text: 'Do I set a breakpoint?' };
    expect(searchPlan(q, '', { text: 'I put a point of interruption?', rendering: breakpoint }, { ...mode, model: 'dense' }).question).toEqual({
      bm25: 'I put a point of interruption?',
      dense: [q, 'Do I set a breakpoint?'],
    });
    expect(searchPlan(q, '', { text: 'I put a point of interruption?', alternatives: ['interrupt'], rendering: breakpoint }, { ...mode, model: 'both' }).question).toEqual({
      bm25: 'I put a point of interruption?\ninterrupt\nDo I set a breakpoint?',
      dense: [q, 'Do I set a breakpoint?'],
    });
    // Off, without a rendering, or a rendering that is the question itself: the plan is as before.
    const plain = searchPlan(q, '', { text: 'I put a point of interruption?' }, mode).question;
    expect(searchPlan(q, '', { text: 'I put a point of interruption?', rendering: breakpoint }, { ...mode, model: 'none' }).question).toEqual(plain);
    expect(searchPlan(q, '', { text: 'I put a point of interruption?' }, { ...mode, model: 'both' }).question).toEqual(plain);
    expect(searchPlan(q, '', { text: 'I put a point of interruption?', rendering: { by: 'model:fake', text: q } }, { ...mode, model: 'both' }).question).toEqual(plain);
    // Not for the second hop, which is in the corpus language already.
    expect(searchPlan(q, 'Issue #1: x', { text: 'I put a point?', rendering: breakpoint }, { ...mode, model: 'both' }).hop).toEqual({ bm25: 'Issue #1: x', dense: ['Issue #1: x'] });
  });

  it('names the question as asked for the language offset (offset: catalogs), not a translation, nor an English question', () => {
    const mode = { bm25: 'disambiguated', dense: 'original', model: 'dense' } as const;
    const q = '¿Cómo omito un test?';
    const t = { from: 'es', text: 'How I omit a test?', rendering: { by: 'model:fake', text: 'How do I skip a test?' } };
    expect(searchPlan(q, '', t, { ...mode, offset: 'catalogs' }).question).toEqual({ bm25: t.text, dense: [q, 'How do I skip a test?'], offset: { text: q, from: 'es' } });
    // A failed translation still searches the Spanish question, less its offset.
    expect(searchPlan(q, '', { from: 'es' }, { ...mode, offset: 'catalogs' }).question.offset).toEqual({ text: q, from: 'es' });
    expect(searchPlan(q, '', t, { ...mode, offset: 'none' }).question.offset).toBeUndefined();
    expect(searchPlan(q, '', t, { ...mode, dense: 'translated', offset: 'catalogs' }).question).toEqual({ bm25: t.text, dense: [t.text, 'How do I skip a test?'] });
    expect(searchPlan('How do I skip a test?', '', undefined, { ...mode, offset: 'catalogs' }).question.offset).toBeUndefined();
  });

  it('takes the offset out of the named text only, before the mean', () => {
    const plan = { dense: ['es', 'en'], offset: { text: 'es', from: 'es' as const } };
    const vectors: Record<string, Float32Array> = { es: new Float32Array([0.6, 0.8]), en: new Float32Array([1, 0]) };
    const offset = [0, 0.8];
    // es less the offset is (0.6, 0) → (1, 0): the mean is (1, 0).
    const v = denseVector(plan, (t) => vectors[t]!, offset);
    expect(v[0]).toBeCloseTo(1, 6);
    expect(v[1]).toBeCloseTo(0, 6);
    expect(Array.from(denseVector(plan, (t) => vectors[t]!))).toEqual(Array.from(meanVector([vectors.es!, vectors.en!])));
    expect(Array.from(denseVector({ dense: ['es', 'en'] }, (t) => vectors[t]!, offset))).toEqual(Array.from(meanVector([vectors.es!, vectors.en!])));
  });

  it('averages unit vectors into a unit vector', () => {
    const v = meanVector([new Float32Array([1, 0]), new Float32Array([0, 1])]);
    expect(v[0]).toBeCloseTo(Math.SQRT1_2, 6);
    expect(v[1]).toBeCloseTo(Math.SQRT1_2, 6);
    const one = new Float32Array([0.6, 0.8]);
    expect(meanVector([one])).toBe(one);
  });
});
