import { describe, expect, it } from 'vitest';
import { chooseSenseChoices, chooseSenses, countsNeeded, disambiguatedSenses, sensesInPlace, type MatchCount, type WordSenses } from '../pipeline/retrieval/senses.ts';
import type { Store } from '../pipeline/store/store.ts';
import type { SenseLexicon } from '../pipeline/text/lexicon/lexicon.ts';
import type { Translator } from '../pipeline/text/translate.ts';

/** Chunks of a tiny corpus as word sets: what `matchCounts` counts over. */
const CHUNKS = [
  ['template', 'rendered', 'context', 'variables'],
  ['template', 'rendered', 'test'],
  ['template', 'inheritance'],
  ['staff', 'team', 'project'],
  ['test', 'client', 'variables'],
  ['exit', 'code', 'tests'],
  ['output', 'captured', 'code'],
];
const count: MatchCount = (words) => CHUNKS.filter((c) => words.every((w) => c.includes(w))).length;

describe('chooseSenses', () => {
  it('searches the lexicon sense that keeps company with the rest of the question, not the translator’s', () => {
    // "¿Qué plantillas se han renderizado y con qué variables?" → "which staff have rendered and with which variables"
    const words: WordSenses[] = [{ word: 'plantillas', translated: ['staff'], senses: ['template', 'templates'] }];
    expect(chooseSenses(words, ['staff', 'rendered', 'variables'], count)).toEqual(['template']);
  });

  it('keeps the translator’s sense when the context favours it, or ties', () => {
    const words: WordSenses[] = [{ word: 'plantilla', translated: ['staff'], senses: ['template'] }];
    expect(chooseSenses(words, ['staff', 'team', 'project'], count)).toEqual([]);
    // No context word in the corpus: every score is 0, the translator's sense stays.
    expect(chooseSenses(words, ['zanzibar'], count)).toEqual([]);
  });

  it('considers only senses the corpus holds, and needs two candidates to choose', () => {
    expect(chooseSenses([{ word: 'x', translated: ['bookshop'], senses: ['library'] }], ['code'], count)).toEqual([]);
    expect(chooseSenses([{ word: 'salida', translated: ['start'], senses: ['exit', 'output'] }], ['code', 'tests'], count)).toEqual(['exit']);
  });

  it('asks for the words alone, then only for the pairs a choice needs', () => {
    const words: WordSenses[] = [
      { word: 'salida', translated: ['start'], senses: ['exit', 'output', 'departure'] },
      { word: 'librería', translated: ['bookshop'], senses: ['library'] },
    ];
    const context = ['code', 'tests', 'zanzibar'];
    expect(countsNeeded(words, context)).toEqual([['code'], ['tests'], ['zanzibar'], ['start'], ['exit'], ['output'], ['departure'], ['bookshop'], ['library']]);
    // start, departure, bookshop, library and zanzibar are not in the chunks: pairs only for salida's two candidates.
    expect(countsNeeded(words, context, count)).toEqual([['code', 'exit'], ['exit', 'tests'], ['code', 'output'], ['output', 'tests']]);
    // The choice reads no other count than those.
    const read: string[] = [];
    const asked = new Set([...countsNeeded(words, context), ...countsNeeded(words, context, count)].map((s) => s.join('\n')));
    chooseSenses(words, context, (set) => (read.push(set.join('\n')), count(set)));
    expect(read.filter((k) => !asked.has(k))).toEqual([]);
  });
});

describe('sensesInPlace', () => {
  it('puts each chosen sense where the translator’s sense of that word stands', () => {
    const choices = chooseSenseChoices([{ word: 'salida', translated: ['start'], senses: ['exit', 'output'] }], ['code', 'tests'], count);
    expect(choices).toEqual([{ sense: 'exit', over: ['start'] }]);
    expect(sensesInPlace('What means that pytest end up with code of start 5?', choices)).toEqual({
      text: 'What means that pytest end up with code of exit 5?',
      replaced: [{ from: 'start', to: 'exit' }],
      beside: [],
    });
  });

  it('matches whole words without case, and replaces only the first occurrence', () => {
    const r = sensesInPlace('Start the starter; start again', [{ sense: 'output', over: ['start'] }]);
    expect(r.text).toBe('output the starter; start again');
    expect(r.replaced).toEqual([{ from: 'Start', to: 'output' }]);
  });

  it('leaves a sense beside the translation when its rival is not in it', () => {
    // The translator chose another sense in context than alone: nothing to replace.
    expect(sensesInPlace('the code of exit', [{ sense: 'output', over: ['start'] }])).toEqual({ text: 'the code of exit', replaced: [], beside: ['output'] });
  });

  it('never replaces a sense it has put in place, and keeps the others’ positions', () => {
    const r = sensesInPlace('bookshop and staff and bookshop', [
      { sense: 'staff', over: ['bookshop'] },
      { sense: 'template', over: ['staff'] },
      { sense: 'library', over: ['bookshop'] },
    ]);
    // "staff" put in place of the first bookshop is not the staff that template replaces; the second bookshop is library's.
    expect(r.text).toBe('staff and template and library');
    expect(r.replaced).toEqual([
      { from: 'bookshop', to: 'staff' },
      { from: 'staff', to: 'template' },
      { from: 'bookshop', to: 'library' },
    ]);
  });
});

describe('disambiguatedSenses', () => {
  // The corpus above as a store's docs collection: only what the choice reads of it.
  const store = { matchCounts: async (_c: string, sets: string[][]) => sets.map(count) } as unknown as Store;
  const lexicon: SenseLexicon = { pairs: 1, words: { plantillas: [['template', 0.6], ['staff', 0.3]] }, stems: {} };
  const translator = (alone: Record<string, string>): Translator & { calls: string[] } => {
    const calls: string[] = [];
    return { id: 'fake', calls, translate: async (text: string) => (calls.push(text), alone[text] ?? text) };
  };

  it('translates each word with lexicon senses alone, and searches the sense the docs prefer', async () => {
    const t = translator({ plantillas: 'Staff' });
    expect(await disambiguatedSenses('¿Qué plantillas se han renderizado?', 'Which staff have rendered?', 'es', 'en', { lexicon, translator: t, store, minProbability: 0.3 })).toEqual([{ sense: 'template', over: ['staff'] }]);
    expect(t.calls).toEqual(['plantillas']);
  });

  it('reads a word’s translation alone from the lexicon when setup recorded it', async () => {
    const t = translator({});
    const recorded = { ...lexicon, alone: { by: 'apertium 1', words: { plantillas: ['staff'] } } };
    expect(await disambiguatedSenses('¿Qué plantillas se han renderizado?', 'Which staff have rendered?', 'es', 'en', { lexicon: recorded, translator: t, store, minProbability: 0.3 })).toEqual([{ sense: 'template', over: ['staff'] }]);
    expect(t.calls).toEqual([]);
  });
});
