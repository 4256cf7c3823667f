import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { expandIdentifiers, ftsQuery, identifierParts } from '../pipeline/text/codeTokens.ts';

describe('identifierParts', () => {
  it.each([
    ['parse_config', ['parse', 'config']],
    ['parseConfig', ['parse', 'config']],
    ['ParseConfig', ['parse', 'config']],
    ['HTTPServer', ['http', 'server']],
    ['getHTTPResponse', ['get', 'http', 'response']],
    ['sha256Digest', ['sha', '256', 'digest']],
    ['__init__', ['init']],
    ['MAX_SIZE', ['max', 'size']],
    ['config', ['config']],
    ['Config', ['config']],
    ['añoNuevo', ['año', 'nuevo']],
    ['', []],
  ])('%j → %j', (segment, parts) => {
    expect(identifierParts(segment)).toEqual(parts);
  });
});

describe('expandIdentifiers', () => {
  it.each([
    ['parse_config', 'parse_config parse config'],
    ['parseConfig', 'parseconfig parse config'],
    ['ParseConfig', 'parseconfig parse config'],
    ['HTTPServer', 'httpserver http server'],
    ['a.b.c', 'a b c'],
    ['os.path.join(x)', 'os path join'],
    ['config.loadConfig', 'config loadconfig load'],
    ['Class.method', 'class method'],
    ['_private', '_private private'],
    // Plain words are tokens of the text already: nothing to add.
    ['Hello world, the plain text.', ''],
    ['Fin de la frase. Otra.', ''],
    // Each token once, however often the identifier is repeated.
    ['parse_config(parse_config) parseConfig', 'parse_config parse config parseconfig'],
    ['def loadConfig(path): return parse_config(path)', 'loadconfig load config parse_config parse'],
    ['', ''],
  ])('%j → %j', (text, expected) => {
    expect(expandIdentifiers(text)).toBe(expected);
  });
});

describe('ftsQuery', () => {
  it.each([
    ['parse', '"parse"'],
    ['parse_config', '"parse_config" OR "parse" OR "config"'],
    ['What does loadConfig do?', '"what" OR "does" OR "loadconfig" OR "load" OR "config" OR "do"'],
    ['os.path.join', '"os.path.join" OR "os" OR "path" OR "join"'],
    ['¿Dónde está el bug del issue #5103?', '"dónde" OR "está" OR "el" OR "bug" OR "del" OR "issue" OR "5103"'],
    // FTS5 operators and syntax are plain words once quoted.
    ['foo AND bar NOT baz', '"foo" OR "and" OR "bar" OR "not" OR "baz"'],
    ['NEAR(a b) col:x^ y* -z', '"near" OR "a" OR "b" OR "col" OR "x" OR "y" OR "z"'],
    ['"quoted" \'single\'', '"quoted" OR "single"'],
    ['Parse parse PARSE', '"parse"'],
    ['', ''],
    ['?!¿¡ ... --- ###', ''],
    ['___', ''],
  ])('%j → %j', (query, expected) => {
    expect(ftsQuery(query)).toBe(expected);
  });

  // Real FTS5 with the store's tokenizer: every expression must parse, whatever the user typed.
  const db = new Database(':memory:');
  db.exec(`CREATE VIRTUAL TABLE t USING fts5 (title, text, identifiers,
    tokenize = "unicode61 remove_diacritics 2 tokenchars '_'")`);
  db.prepare('INSERT INTO t VALUES (?, ?, ?)').run('Configuración', 'El parse_config lee la configuración', expandIdentifiers('parse_config'));
  const search = db.prepare('SELECT rowid FROM t WHERE t MATCH ?');
  afterAll(() => db.close());

  it.each([
    '"',
    '""',
    '"unbalanced',
    '((((',
    ')',
    'AND',
    'OR OR NOT',
    'NEAR(',
    'col:',
    '{title}: x',
    '*',
    '^start',
    '- minus',
    "'; DROP TABLE t; --",
    'a"b',
    'emoji 🎉 test',
    'tab\tnew\nline',
    'x\u0000y',
    'e\u0301',
    '日本語のテキスト',
    'ß ẞ ﬁ',
  ])('%j is a valid MATCH expression', (query) => {
    const match = ftsQuery(query);
    if (match !== '') expect(() => search.all(match)).not.toThrow();
  });

  it('random strings of punctuation, letters and operators always parse', () => {
    const alphabet = ['"', "'", '(', ')', '*', '^', ':', '-', '+', '{', '}', '.', '_', ' ', 'AND', 'OR', 'NEAR', 'á', 'ñ', '¿', '#', '1', 'a', 'Z'];
    let seed = 12345;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 2000; i++) {
      const query = Array.from({ length: 1 + Math.floor(next() * 12) }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
      const match = ftsQuery(query);
      if (match !== '') expect(() => search.all(match), query).not.toThrow();
    }
  });

  it.each([
    ['configuracion', 1],
    ['configuración', 1],
    ['¿Dónde se lee la CONFIGURACIÓN?', 1],
    ['parse', 1],
    ['parse_config', 1],
    ['parseConfig', 1],
    ['nothing here', 0],
  ])('%j matches the accented, snake_case row: %i', (query, n) => {
    expect(search.all(ftsQuery(query))).toHaveLength(n);
  });
});
