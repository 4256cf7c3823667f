import { describe, expect, it } from 'vitest';
import { lexiconOf, messageWords, trainIbm1 } from '../pipeline/text/lexicon/ibm1.ts';
import { parseMo } from '../pipeline/text/lexicon/mo.ts';

/**
 * The lexicon of software senses (pipeline/text/lexicon/): gettext catalogs read as GNU gettext writes them,
 * and IBM Model 1 finding word translations that no sentence pair states alone.
 */

/** A .mo file as msgfmt writes it (little-endian; strings after the two tables, NUL-terminated). */
function moFile(entries: [string, string][], bigEndian = false): Buffer {
  const sorted = [...entries].sort(([a], [b]) => (a < b ? -1 : 1));
  const n = sorted.length;
  const headerSize = 28;
  const tables = headerSize + 16 * n;
  const strings: Buffer[] = [];
  const original: [number, number][] = [];
  const translated: [number, number][] = [];
  let at = tables;
  for (const [kind, list] of [[0, original], [1, translated]] as const) {
    for (const entry of sorted) {
      const b = Buffer.from(entry[kind], 'utf8');
      list.push([b.length, at]);
      strings.push(b, Buffer.from([0]));
      at += b.length + 1;
    }
  }
  const head = Buffer.alloc(tables);
  const write = (v: number, o: number) => (bigEndian ? head.writeUInt32BE(v, o) : head.writeUInt32LE(v, o));
  write(0x950412de, 0);
  write(0, 4);
  write(n, 8);
  write(headerSize, 12);
  write(headerSize + 8 * n, 16);
  original.forEach(([len, off], i) => (write(len, headerSize + 8 * i), write(off, headerSize + 8 * i + 4)));
  translated.forEach(([len, off], i) => (write(len, headerSize + 8 * n + 8 * i), write(off, headerSize + 8 * n + 8 * i + 4)));
  return Buffer.concat([head, ...strings]);
}

describe('parseMo', () => {
  const entries: [string, string][] = [
    ['', 'Content-Type: text/plain; charset=UTF-8\n'],
    ['show the output', 'mostrar la salida'],
    ['menu\u0004Open', 'Abrir'],
    ['%d file\u0000%d files', '%d fichero\u0000%d ficheros'],
    ['untranslated', ''],
  ];

  it('reads the message pairs, skipping the metadata and untranslated messages', () => {
    for (const bigEndian of [false, true]) {
      expect(parseMo(moFile(entries, bigEndian))).toEqual([
        { source: '%d file', translation: '%d fichero' },
        { source: 'Open', translation: 'Abrir' },
        { source: 'show the output', translation: 'mostrar la salida' },
      ]);
    }
  });

  it('refuses what is not a catalog', () => {
    expect(() => parseMo(Buffer.from('not a catalog at all, but long enough'))).toThrow(/magic/);
    expect(() => parseMo(Buffer.alloc(4))).toThrow(/short/);
  });
});

describe('IBM Model 1', () => {
  it('keeps words and drops formats, placeholders, tags and options', () => {
    expect(messageWords('Cannot open %s: {name} <b>failed</b> --force-yes Índice')).toEqual(['cannot', 'open', 'failed', 'índice']);
  });

  it('learns word translations from co-occurrence across pairs', () => {
    // No pair says alone which word is which; together they do.
    const pairs = [
      ['la salida', 'the output'],
      ['la salida estándar', 'the standard output'],
      ['omitir la prueba', 'skip the test'],
      ['omitir el fichero', 'skip the file'],
      ['el fichero', 'the file'],
      ['la prueba', 'the test'],
    ].map(([es, en]) => ({ source: messageWords(es!), target: messageWords(en!) }));
    const lexicon = lexiconOf(trainIbm1(pairs, 20), pairs, { minProb: 0.3, minCount: 2 });
    expect(lexicon['salida']?.[0]?.[0]).toBe('output');
    expect(lexicon['omitir']?.[0]?.[0]).toBe('skip');
    expect(lexicon['fichero']?.[0]?.[0]).toBe('file');
    expect(lexicon['prueba']?.[0]?.[0]).toBe('test');
    // Seen once: not in the lexicon.
    expect(lexicon['estándar']).toBeUndefined();
    // Deterministic: the same pairs give the same lexicon.
    expect(lexiconOf(trainIbm1(pairs, 20), pairs, { minProb: 0.3, minCount: 2 })).toEqual(lexicon);
  });
});
