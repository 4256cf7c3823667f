import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { estimateOffset, meanDifference, offsetFile, offsetFor, offsetNote, offsetPairs, planOffset, readOffset, withoutOffset, writeOffset } from '../pipeline/embedding/languageOffset.ts';
import { HashingEmbedder } from '../pipeline/embedding/hashing.ts';

describe('language offset', () => {
  it('is the mean difference of paired vectors', () => {
    const d = meanDifference([new Float32Array([1, 2]), new Float32Array([3, 0])], [new Float32Array([0, 1]), new Float32Array([1, 1])]);
    expect(Array.from(d)).toEqual([1.5, 0]);
    expect(() => meanDifference([new Float32Array(2)], [])).toThrow(/as many/);
  });

  it('is taken out of a vector, which comes back unit length', () => {
    const v = withoutOffset(new Float32Array([0.6, 0.8]), [0.6, 0]);
    expect(v[0]).toBeCloseTo(0, 6);
    expect(v[1]).toBeCloseTo(1, 6);
    const w = withoutOffset(new Float32Array([0.6, 0.8]), [0.1, -0.2]);
    expect(Math.hypot(...w)).toBeCloseTo(1, 6);
    expect(() => withoutOffset(new Float32Array(3), [0, 0])).toThrow(/dimensions/);
  });

  it('is estimated from sentence-like messages only, spread over the catalogs', () => {
    const pairs = [
      { source: 'File not found', translation: 'No se encontró el archivo' },
      { source: 'yes', translation: 'sí' },
      { source: 'cannot open %s', translation: 'no se puede abrir %s' },
      { source: 'Show the help text', translation: 'Show the help text' },
      { source: 'Print the version and exit', translation: 'Muestra la versión y termina' },
      { source: 'two\nlines here', translation: 'dos\nlíneas aquí' },
      { source: 'Skip the rest of the tests', translation: 'Omite el resto de las pruebas' },
    ];
    expect(offsetPairs(pairs, 10).map((p) => p.source)).toEqual(['File not found', 'Print the version and exit', 'Skip the rest of the tests']);
    expect(offsetPairs(pairs, 2).map((p) => p.source)).toEqual(['File not found', 'Print the version and exit']);
  });

  it('is kept per embedder and read back only for that embedder', async () => {
    const embedder = new HashingEmbedder({ dims: 16 });
    const pairs = [
      { source: 'File not found here', translation: 'No se encontró el archivo' },
      { source: 'Print the version and exit', translation: 'Muestra la versión y termina' },
    ];
    const o = await estimateOffset(embedder, pairs, 'es', 'en');
    expect(o).toMatchObject({ embedder: embedder.id, from: 'es', to: 'en', pairs: 2 });
    const [es, en] = await Promise.all([embedder.embedQueries(pairs.map((p) => p.translation)), embedder.embedQueries(pairs.map((p) => p.source))]);
    expect(o.vector).toEqual(Array.from(meanDifference(es, en)));
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cita-offset-'));
    const file = offsetFile(dir, embedder.id, 'es', 'en');
    writeOffset(file, o);
    expect(readOffset(file, embedder.id)).toEqual(o);
    expect(readOffset(file, 'another-model')).toBeUndefined();
    expect(readOffset(path.join(dir, 'none.json'), embedder.id)).toBeUndefined();
    await expect(estimateOffset(embedder, [{ source: 'yes', translation: 'sí' }], 'es', 'en')).rejects.toThrow(/no sentence-like/);
  });

  it('is made on first use, kept, and read back after', async () => {
    const embedder = new HashingEmbedder({ dims: 16 });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cita-offsets-'));
    const config = { languages: { offsets: dir, corpus: 'en' } } as Parameters<typeof offsetFor>[0];
    const pairs = [{ source: 'Print the version and exit', translation: 'Muestra la versión y termina' }];
    let read = 0;
    const made = await offsetFor(config, embedder, 'es', { pairs: () => (read++, pairs) });
    expect(made).toMatchObject({ embedder: embedder.id, from: 'es', to: 'en', pairs: 1 });
    expect(readOffset(offsetFile(dir, embedder.id, 'es', 'en'), embedder.id)).toEqual(made);
    expect(await offsetFor(config, embedder, 'es', { pairs: () => (read++, pairs) })).toBe(made);
    expect(read).toBe(1);
    // An English question over Spanish sources: the same pairs the other way, the offset the opposite.
    const spanish = { languages: { offsets: dir, corpus: 'es' } } as Parameters<typeof offsetFor>[0];
    const back = await offsetFor(spanish, embedder, 'en', { pairs: () => pairs });
    expect(back).toMatchObject({ from: 'en', to: 'es' });
    back.vector.forEach((x, d) => expect(x).toBeCloseTo(-made.vector[d]!, 6));
    // One that cannot be made is not kept: the next call tries again.
    const other = new HashingEmbedder({ dims: 8 });
    await expect(offsetFor(config, other, 'es', { pairs: () => [] })).rejects.toThrow(/no sentence-like/);
    expect((await offsetFor(config, other, 'es', { pairs: () => pairs })).pairs).toBe(1);
  });

  it('is said in the route: the one taken out, or why there is none', async () => {
    const o = { embedder: 'm', from: 'es' as const, to: 'en' as const, pairs: 2000, vector: [0] };
    expect(offsetNote('es', 'en', o)).toBe("the question's vector searched less the es → en language offset (2000 catalog message pairs)");
    expect(offsetNote('es', 'en', undefined, 'no catalogs')).toBe("no es → en language offset (no catalogs): the question's vector searched as it is");
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cita-offsets-'));
    const config = { languages: { offsets: dir, corpus: 'en' } } as Parameters<typeof offsetFor>[0];
    // Nothing to estimate it from here (the catalogs are not read: a file of another model's offset is all there is).
    writeOffset(offsetFile(dir, new HashingEmbedder({ dims: 4 }).id, 'es', 'en'), { ...o, embedder: 'another-model', vector: [0, 0, 0, 0] });
    const none = await planOffset(config, new HashingEmbedder({ dims: 4 }), 'es', () => []);
    expect(none.offset).toBeUndefined();
    expect(none.note).toMatch(/^no es → en language offset \(language offset: no sentence-like message pairs/);
  });
});
