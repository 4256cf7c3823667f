import { describe, expect, it } from 'vitest';
import { detectLanguage, looksLikeIdentifier, route, type RouteRule } from '../pipeline/retrieval/router.ts';
import type { Collection } from '../pipeline/types.ts';

describe('pasted text', () => {
  it('looks up the names a pasted traceback mentions after search, and says so', () => {
    const pasted = 'Traceback (most recent call last):\n  File "t.py", line 3, in test_x\n    parse_config(path)\nValueError: bad';
    const r = route(pasted);
    expect(r.pasted).toBe(true);
    expect(r.reasons.at(-1)).toBe('pasted text: "Traceback (most recent call last)" → the names it mentions are looked up after the best search results');
    expect(route('x'.repeat(601)).pasted).toBe(true);
    expect(route('what does parse_config do?').pasted).toBe(false);
  });
});

describe('route', () => {
  // question, top, language, issue lookups, symbol lookups
  it.each<[string, Collection, 'en' | 'es', number[], string[]]>([
    // issue references
    ['Where is the bug from issue #7432 fixed?', 'issues', 'en', [7432], []],
    ['¿Dónde está el bug del issue #7432?', 'issues', 'es', [7432], []],
    ['la incidencia 42 sigue abierta', 'issues', 'es', [42], []],
    ['la incidencia número 42', 'issues', 'es', [42], []],
    ['Is issue 42 related to PR 43?', 'issues', 'en', [42, 43], []],
    ['pull request 1234 left the plugin broken', 'issues', 'en', [1234], []],
    ['ticket 99 duplicates bug 100', 'issues', 'en', [99, 100], []],
    ['See gh-5103 for details', 'issues', 'en', [5103], []],
    ['https://github.com/pytest-dev/pytest/issues/5103 still fails', 'issues', 'en', [5103], []],
    ['El PR 7000 rompe la documentación', 'issues', 'es', [7000], []],
    ['#fff colour in the theme', 'docs', 'en', [], []],
    ['# Installation\n\nHow to install pytest?', 'docs', 'en', [], []],
    ['Is &#39; escaped in the report?', 'docs', 'en', [], []],
    // identifiers and code vocabulary
    ['what does parse_config do?', 'code', 'en', [], ['parse_config']],
    ['¿qué hace parse_config?', 'code', 'es', [], ['parse_config']],
    ['What is the `LogCaptureFixture` class?', 'code', 'en', [], ['LogCaptureFixture']],
    ['Where is `pytest.mark.skip` implemented?', 'code', 'en', [], ['pytest.mark.skip', 'skip']],
    ['How is _pytest.python.Function collected?', 'code', 'en', [], ['_pytest.python.Function', 'Function']],
    ['Why does parseConfig() raise?', 'code', 'en', [], ['parseConfig']],
    ['What does src/_pytest/skipping.py contain?', 'code', 'en', [], []],
    ['Where does conftest.py get loaded?', 'code', 'en', [], []],
    ['What does monkeypatch do?', 'code', 'en', [], ['monkeypatch']],
    ['Which fixture provides tmp_path?', 'code', 'en', [], ['tmp_path']],
    ['AttributeError: module has no attribute skip_if', 'code', 'en', [], ['AttributeError', 'skip_if']],
    ['¿Qué hace la función `tmp_path`?', 'code', 'es', [], ['tmp_path']],
    ['¿Dónde está definida la clase LogCaptureFixture?', 'code', 'es', [], ['LogCaptureFixture']],
    ['el método pytest.raises falla con una excepción', 'code', 'es', [], ['pytest.raises', 'raises']],
    ['Hay un fallo en el módulo de captura', 'code', 'es', [], []],
    // how-to and concepts
    ['How do I skip a test on Windows?', 'docs', 'en', [], []],
    ['¿Qué diferencia hay entre omitir un test y marcarlo como fallo esperado?', 'docs', 'es', [], []],
    ['Is there a way to rerun only the failed tests?', 'docs', 'en', [], []],
    ['¿Se puede ejecutar los tests en paralelo?', 'docs', 'es', [], []],
    ['Why does my conftest run twice?', 'docs', 'en', [], []],
    // where the code is
    ['Which files must change to fix the crash?', 'code', 'en', [], []],
    ['¿Dónde se define el marcador de omisión?', 'code', 'es', [], []],
    ['¿Cómo omito un test en Windows?', 'docs', 'es', [], []],
    ['How do I write a custom decorator for tests?', 'docs', 'en', [], []],
    ['What is the difference between a mark and a fixture?', 'docs', 'en', [], []],
    ['Show me an example of parametrize', 'docs', 'en', [], []],
    ['Explain the plugin system', 'docs', 'en', [], []],
    ['Best practices for test layout', 'docs', 'en', [], []],
    ['Where is the GitHub repository?', 'docs', 'en', [], []],
    ['Can I use pytest with APIs and IDs?', 'docs', 'en', [], []],
    ['¿Cómo configuro pytest para usar un plugin?', 'docs', 'es', [], []],
    ['¿Qué es una fixture?', 'docs', 'es', [], []],
    ['Necesito un ejemplo de uso de parametrize', 'docs', 'es', [], []],
    ['guía de instalación en Windows', 'docs', 'es', [], []],
    ['error al instalar el plugin', 'docs', 'es', [], []],
    // errors alone: issues and code tie, issues wins the tie
    ['pytest crashes with a traceback after upgrading', 'issues', 'en', [], []],
    ['Regression in 8.0: collection fails', 'issues', 'en', [], []],
  ])('%j → %s, %s, issues %j, symbols %j', (question, top, language, issues, symbols) => {
    const r = route(question);
    expect({ top: r.top, language: r.language, lookups: r.lookups }).toEqual({ top, language, lookups: { issues, symbols } });
  });

  it.each<[string, Record<Collection, number>]>([
    // issue reference ×3 and error phrasing ×1.5: issues 4.5, code 1.5, docs 1 → ÷ 4.5
    // issue reference ×3 and error phrasing ×1.5 on issues; where phrasing ×3 and error phrasing ×1.5 on code.
    ['Where is the bug from issue #7432 fixed?', { docs: 1 / 4.5, code: 1, issues: 1 }],
    // identifier ×3 and "what does X do" ×2: code 6 → ÷ 6
    ['what does parse_config do?', { docs: 1 / 6, code: 1, issues: 1 / 6 }],
    // how-to ×3
    ['How do I skip a test on Windows?', { docs: 1, code: 1 / 3, issues: 1 / 3 }],
    // identifier ×3, "class" ×2, "What is" ×3: code 6, docs 3
    ['What is the `LogCaptureFixture` class?', { docs: 3 / 6, code: 1, issues: 1 / 6 }],
    ['Hello there', { docs: 1, code: 1, issues: 1 }],
  ])('weights for %j are max-normalised products of the boosts', (question, expected) => {
    const { weights } = route(question);
    for (const c of ['docs', 'code', 'issues'] as const) expect(weights[c]).toBeCloseTo(expected[c], 12);
  });

  it('says why, one reason per rule that fired', () => {
    expect(route('#42').reasons).toEqual([
      'language en: no Spanish marks, letters or words',
      'issue reference "#42" → issues ×3, lookup #42',
    ]);
    expect(route('¿qué hace parse_config?').reasons).toEqual([
      'language es: "¿"',
      'identifier "parse_config" → code ×3, lookup parse_config',
      'code vocabulary "qué hace parse_config" → code ×2, lookup parse_config',
    ]);
    expect(route('Where is the bug from issue #7432 fixed?').reasons.slice(1)).toEqual([
      'issue reference "issue #7432" → issues ×3, lookup #7432',
      'where phrasing "Where is the bug" → code ×3',
      'error phrasing "bug" → code ×1.5, issues ×1.5',
    ]);
  });

  it('keeps the bare file names a question gives as route.files, not as lookups', () => {
    const r = route('Can I put the options in pytest.ini or in robots.txt?');
    expect(r.files).toEqual(['pytest.ini', 'robots.txt']);
    expect(r.lookups.symbols).toEqual([]);
    // A path is not a bare file name; a question without one has no `files`.
    expect(route('What is in src/_pytest/python.py?').files).toBeUndefined();
    expect(route('How do I skip a test?')).not.toHaveProperty('files');
  });

  it('with no rule firing, weights are equal and top is docs', () => {
    const r = route('Hello there');
    expect(r.top).toBe('docs');
    expect(r.reasons.at(-1)).toBe('no rule fired → equal weights, top docs');
  });

  it('applies a rule once however often it matches', () => {
    expect(route('#1 #2 #3').weights).toEqual({ docs: 1 / 3, code: 1 / 3, issues: 1 });
    expect(route('#1 #2 #1').lookups.issues).toEqual([1, 2]);
  });

  it.each<[string, number[]]>([
    ['#fff', []],
    ['#1a2b3c', []],
    ['# 42 reasons to test', []],
    ['## 3. Install', []],
    ['&#39;', []],
    ['abc#42', []],
    ['#0', []],
    ['issue#42', [42]],
    ['issue no. 9', [9]],
    ['(#42)', [42]],
    ['#42.', [42]],
    ['github.com/pytest-dev/pytest/pull/77 and https://github.com/pytest-dev/pytest/issues/78', [77, 78]],
  ])('issue references: %j → %j', (question, issues) => {
    expect(route(question).lookups.issues).toEqual(issues);
  });

  it('reads decomposed accents the same as composed ones', () => {
    const r = route('¿Co\u0301mo configuro pytest?');
    expect(r.language).toBe('es');
    expect(r.top).toBe('docs');
  });

  it('takes rules as data: regexes with or without the g flag, and functions', () => {
    const rules: RouteRule[] = [
      { name: 'changelog', boost: { docs: 4 }, match: /changelog/i },
      { name: 'numbers', boost: { issues: 2 }, match: (q) => (q.match(/\d+/g) ?? []).map((n) => ({ text: n, issues: [Number(n)] })) },
    ];
    const r = route('changelog 12', rules);
    expect(r.weights).toEqual({ docs: 1, code: 1 / 4, issues: 2 / 4 });
    expect(r.lookups.issues).toEqual([12]);
    expect(r.reasons.slice(1)).toEqual(['changelog "changelog" → docs ×4', 'numbers "12" → issues ×2, lookup #12']);
  });

  it('refuses a rule whose boost is not above 0, naming it', () => {
    expect(() => route('x', [{ name: 'zero', boost: { code: 0 }, match: /x/ }])).toThrow('rule "zero" boosts code by 0');
  });
});

describe('looksLikeIdentifier', () => {
  it.each<[string, boolean]>([
    ['parse_config', true],
    ['_pytest', true],
    ['__init__', true],
    ['MAX_SIZE', true],
    ['parseConfig', true],
    ['LogCaptureFixture', true],
    ['XMLParser', true],
    ['pytest.mark.skip', true],
    ['_pytest.python.Function', true],
    ['How', false],
    ['Where', false],
    ['Cómo', false],
    ['Windows', false],
    ['API', false],
    ['APIs', false],
    ['IDs', false],
    ['GitHub', false],
    ['e.g', false],
    ['pytest', false],
    ['3.12', false],
    ['_', false],
    ['función_nueva', false],
  ])('%j → %s', (token, expected) => {
    expect(looksLikeIdentifier(token)).toBe(expected);
  });
});

describe('detectLanguage', () => {
  it.each<[string, 'en' | 'es', string]>([
    ['¿Dónde?', 'es', 'language es: "¿"'],
    ['¡Falla!', 'es', 'language es: "¡"'],
    ['omitir una función', 'es', 'language es: letter "ó"'],
    ['donde esta el test', 'es', 'language es: words "donde", "esta", "el"'],
    ['la incidencia 42 sigue abierta', 'es', 'language es: words "la", "incidencia"'],
    // Typed without accents or `¿`, and short.
    ['Donde pongo conftest.py?', 'es', 'language es: opens with "donde"'],
    ['como instalo pytest', 'es', 'language es: opens with "como"'],
    ['Puedo usar pytest con unittest?', 'es', 'language es: words "puedo", "usar", "con"'],
    ['How do I skip a test?', 'en', 'language en: no Spanish marks, letters or words'],
    ['Is there a con to using xdist?', 'en', 'language en: no Spanish marks, letters or words'],
    ['What does `en_es` mean in https://example.com/es/en/?', 'en', 'language en: no Spanish marks, letters or words'],
    ['Why is `la` and `el` here?', 'en', 'language en: no Spanish marks, letters or words'],
  ])('%j → %s', (question, language, reason) => {
    expect(detectLanguage(question)).toEqual({ language, reason });
  });
});
