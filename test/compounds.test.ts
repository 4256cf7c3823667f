import { describe, expect, it } from 'vitest';
import { chooseCompound, compoundCandidates, compoundPatterns, docsCompounds } from '../pipeline/retrieval/compounds.ts';
import type { Store } from '../pipeline/store/store.ts';
import type { SenseLexicon } from '../pipeline/text/lexicon/lexicon.ts';
import type { Translator } from '../pipeline/text/translate.ts';

describe('compounds the docs use (#15)', () => {
  it('finds "<head> de <modifier>" pairs of content words in Spanish questions only', () => {
    expect(compoundPatterns('¿Qué significa el código de salida 5 en la línea de comandos?', 'es')).toEqual([
      ['código', 'salida'],
      ['línea', 'comandos'],
    ]);
    // Function words on either side are no compound; nor is anything in another language.
    expect(compoundPatterns('¿Hay alguna manera de que uno de los tests…', 'es')).toEqual([]);
    expect(compoundPatterns('the line de commands', 'en')).toEqual([]);
  });

  it('puts the modifier before the head, and picks the compound most chunks hold', () => {
    expect(compoundCandidates(['code'], ['start', 'output', 'exit'])).toEqual(['start code', 'output code', 'exit code']);
    expect(compoundCandidates(['test'], ['test', 'unit'])).toEqual(['unit test']);
    const counts: Record<string, number> = { 'exit code': 7, 'output code': 2 };
    expect(chooseCompound(['start code', 'output code', 'exit code'], (p) => counts[p] ?? 0)).toBe('exit code');
    expect(chooseCompound(['start code'], (p) => counts[p] ?? 0)).toBeUndefined();
    // Equal counts keep the first (the translator's senses come first).
    expect(chooseCompound(['a b', 'c d'], () => 3)).toBe('a b');
  });

  it('counts every candidate in one request to the docs, with each word translated alone once', async () => {
    const lexicon: SenseLexicon = { pairs: 1, words: { salida: [['output', 0.5], ['exit', 0.4], ['outlet', 0.1]] }, stems: {}, alone: { by: 'fake', words: { código: ['code'] } } } as SenseLexicon;
    const asked: string[][] = [];
    const store = {
      phraseCounts: async (collection: string, phrases: string[]) => {
        expect(collection).toBe('docs');
        asked.push(phrases);
        return phrases.map((p) => ({ 'exit code': 4, 'output code': 1 })[p] ?? 0);
      },
    } as unknown as Store;
    const alone: string[] = [];
    const translator = { id: 'fake', translate: async (w: string) => (alone.push(w), w === 'salida' ? 'start' : w) } as unknown as Translator;
    const found = await docsCompounds('¿Qué es el código de salida? ¿Y otro código de salida?', 'es', 'en', { lexicon, translator, store, minProbability: 0.3 });
    expect(found).toEqual(['exit code']);
    expect(asked).toEqual([['start code', 'output code', 'exit code']]);
    expect(alone).toEqual(['salida']);
    // No pattern, no request.
    expect(await docsCompounds('¿Qué es pytest?', 'es', 'en', { lexicon, translator, store, minProbability: 0.3 })).toEqual([]);
    expect(asked).toHaveLength(1);
  });
});
