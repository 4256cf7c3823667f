import { describe, expect, it } from 'vitest';
import { partStages } from '../pipeline/text/apertiumPipe.ts';
import { buildChoices, lookupUnits, selectAlternatives, selectionKey, unknownKey } from '../pipeline/text/lexicalSelection.ts';
import { catalogChoices } from '../pipeline/text/lexicon/lexicon.ts';
import { ApertiumTranslator } from '../pipeline/text/translate.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { configSchema, type CitaConfig } from '../pipeline/config/schema.ts';
import { sensesNotes, translateQuestion } from '../pipeline/retrieval/crossLingual.ts';
import { unknownWordChoices, writeLexicon } from '../pipeline/text/lexicon/lexicon.ts';
import { apertiumTest } from './support/apertium.ts';

const itApertium = apertiumTest('eng-spa');
const itSpaEng = apertiumTest('spa-eng');

/** Apertium eng-spa's bilingual lookup of "the file" and "arguments" (`lt-proc -b` output). */
const LOOKED = '^the<det><def><sp>/el<det><def><GD><ND>$ ^file<n><sg>/lima<n><f><sg>/archivo<n><m><sg>$ ^and<cnjcoo>/y<cnjcoo>$ ^argument<n><pl>/riña<n><f><pl>/argumento<n><m><pl>/discusión<n><f><pl>$';

describe('lexical selection by the catalogs', () => {
  it('keys a word by its lemma and first tag; an unknown word has no key', () => {
    expect(selectionKey('file<n><sg>')).toBe('file<n>');
    expect(selectionKey('File<vblex><inf>')).toBe('file<vblex>');
    expect(selectionKey('jump# over<vblex><inf>')).toBe('jump over<vblex>');
    expect(selectionKey('*pytest')).toBeUndefined();
  });

  it('reads the units of a lookup, escaped slashes inside a word kept', () => {
    expect(lookupUnits(LOOKED).map((u) => u.targets.length)).toEqual([1, 2, 1, 3]);
    expect(lookupUnits('^a\\/b<n><sg>/x<n><f><sg>/y<n><m><sg>$')).toEqual([{ source: 'a\\/b<n><sg>', targets: ['x<n><f><sg>', 'y<n><m><sg>'] }]);
  });

  it('leaves a word with its chosen translation alone, and everything else as looked up', () => {
    const chosen = selectAlternatives(LOOKED, { 'file<n>': 'archivo', 'argument<n>': 'argumento', 'the<det>': 'la' });
    expect(chosen).toBe('^the<det><def><sp>/el<det><def><GD><ND>$ ^file<n><sg>/archivo<n><m><sg>$ ^and<cnjcoo>/y<cnjcoo>$ ^argument<n><pl>/argumento<n><m><pl>$');
    // A choice the dictionary does not offer, or a word of another part of speech, changes nothing.
    expect(selectAlternatives(LOOKED, { 'file<n>': 'fichero', 'file<vblex>': 'archivar' })).toBe(LOOKED);
    expect(selectAlternatives(LOOKED, {})).toBe(LOOKED);
  });

  it('writes a word the translator does not know as the choice for it, and leaves the rest', () => {
    // Apertium spa-eng's bilingual lookup of "descarto los repetidos": the unknown word passes through as written.
    const looked = '^*Descarto/*Descarto$ ^el<det><def><m><pl>/the<det><def><m><pl>$ ^*repes/*repes$';
    expect(selectAlternatives(looked, { [unknownKey('Descarto')]: 'discard' })).toBe('^*Descarto/*discard$ ^el<det><def><m><pl>/the<det><def><m><pl>$ ^*repes/*repes$');
    // Nothing the stream reserves is written into it.
    expect(selectAlternatives(looked, { '*descarto': 'dis$card', '*repes': 'a/b' })).toBe(looked);
    expect(selectAlternatives(looked, { 'descarto<vblex>': 'discard' })).toBe(looked);
  });

  it("gives the words the analyser does not know the lexicon's likeliest sense, not the word itself", () => {
    const lexicon = {
      pairs: 3,
      words: {
        complementos: [['plugin', 0.39] as [string, number], ['needed', 0.38] as [string, number]],
        fixture: [['fixture', 0.9] as [string, number]],
        raro: [['odd', 0.1] as [string, number]],
        cmasmas: [['c++', 0.9] as [string, number]],
      },
      stems: { descart: [['discard', 0.65] as [string, number]] },
    };
    const analyses = new Map([
      ['complementos', []],
      ['Descarto', []],
      ['fixture', []],
      ['raro', []],
      ['cmasmas', []],
      ['salida', ['salida<n><f><sg>']],
    ]);
    expect(unknownWordChoices(analyses, lexicon, 0.3)).toEqual({ '*complementos': 'plugin', '*descarto': 'discard' });
    expect(unknownWordChoices(analyses, lexicon, 0.05)).toEqual({ '*complementos': 'plugin', '*descarto': 'discard', '*raro': 'odd' });
  });

  it('chooses the translation the catalogs use most with the word, over the first only when clearly used more', () => {
    const units = lookupUnits(LOOKED);
    const pairs = [
      ...Array.from({ length: 4 }, (_, i) => ({ source: `Cannot open file ${i}`, translation: `No se puede abrir el archivo ${i}` })),
      { source: 'The file is a tool', translation: 'La lima es una herramienta' },
      ...Array.from({ length: 2 }, () => ({ source: 'Missing argument', translation: 'Falta el argumento' })),
    ];
    expect(buildChoices(units, pairs, 'en', 'es')).toEqual({ 'file<n>': 'archivo' });
    // Two messages are too few; with a third, argument too.
    expect(buildChoices(units, [...pairs, { source: 'Too many arguments', translation: 'Demasiados argumentos' }], 'en', 'es')).toEqual({ 'file<n>': 'archivo', 'argument<n>': 'argumento' });
    // As often as the first translation: the translator's own stays.
    expect(buildChoices(units, [...pairs, ...Array.from({ length: 4 }, () => ({ source: 'A file', translation: 'Una lima' }))], 'en', 'es')).toEqual({});
  });

  it("cuts a mode's pipeline after its bilingual lookup", () => {
    const mode = "lt-proc -z 'x.automorf.bin' | apertium-tagger -z -g $2 'x.prob' | lt-proc -z -b 'x.autobil.bin' | lrx-proc -z -m 'x.autolex.bin' | lt-proc -z $1 'x.autogen.bin'";
    expect(partStages(mode, 'lookup')).toBe("lt-proc -z 'x.automorf.bin' | apertium-tagger -z -g $2 'x.prob' | lt-proc -z -b 'x.autobil.bin'");
    expect(partStages(mode, 'generation')).toBe("lrx-proc -z -m 'x.autolex.bin' | lt-proc -z $1 'x.autogen.bin'");
    expect(partStages(mode, 'analyser')).toBe("lt-proc -z 'x.automorf.bin'");
    expect(partStages("apertium-tagger -g 'x.prob'", 'analyser')).toBe('');
    expect(partStages("lt-proc 'x.automorf.bin' | apertium-tagger -g 'x.prob'", 'lookup')).toBe('');
  });

  itApertium("makes the choices from catalog messages with the translator's own dictionary", async () => {
    const t = new ApertiumTranslator();
    try {
      const pairs = [
        ...['Cannot open file', 'File not found', 'The file is empty'].map((source) => ({ source, translation: `${source.replace(/file/i, 'archivo')} (es)` })),
        ...['Bad argument', 'Missing argument', 'Invalid argument'].map((source) => ({ source, translation: `${source.replace(/argument/i, 'argumento')} (es)` })),
      ];
      // Words of fewer than three messages are not looked up (`bad`, `missing`…); file and argument are.
      expect(await catalogChoices(pairs, t)).toEqual({ 'file<n>': 'archivo', 'argument<n>': 'argumento' });
    } finally {
      await t.close();
    }
  });

  itSpaEng("translates a Spanish question with the lexicon's question choices under retrieval.crossLingual.translatorSenses: catalogs", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cita-question-choices-'));
    const t = new ApertiumTranslator();
    try {
      const lexicon = path.join(dir, 'lexicon.json');
      writeLexicon(lexicon, { pairs: 1, words: {}, stems: {}, questions: { by: 'apertium test', choices: { 'salida<n>': 'output' } } });
      const configWith = (translatorSenses: 'none' | 'catalogs') =>
        ({
          languages: { ...configSchema.shape.languages.parse({}), lexicon },
          retrieval: { crossLingual: { bm25: 'translated', dense: 'original', phrases: 'none', model: 'none', accents: 'as-asked', translatorSenses } },
        }) as unknown as Pick<CitaConfig, 'languages' | 'retrieval'>;
      const question = '¿Qué significa el código de salida 5?';
      expect((await translateQuestion(configWith('none'), question, 'es', t))?.text).toMatch(/\bstart\b/);
      const chosen = (await translateQuestion(configWith('catalogs'), question, 'es', t))?.text;
      expect(chosen).toMatch(/\boutput\b/);
      expect(chosen).not.toMatch(/\bstart\b/);
    } finally {
      await t.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  itSpaEng("puts the lexicon's sense in place of a word the translator does not know under retrieval.crossLingual.unknownWords: lexicon", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cita-unknown-words-'));
    const t = new ApertiumTranslator();
    try {
      const lexicon = path.join(dir, 'lexicon.json');
      writeLexicon(lexicon, { pairs: 1, words: { descarto: [['discard', 0.8]] }, stems: {}, questions: { by: 'apertium test', choices: { 'salida<n>': 'output' } } });
      const configWith = (unknownWords: 'as-is' | 'lexicon') =>
        ({
          languages: { ...configSchema.shape.languages.parse({}), lexicon },
          retrieval: {
            crossLingual: { bm25: 'translated', dense: 'original', phrases: 'none', model: 'none', accents: 'as-asked', translatorSenses: 'catalogs', senseMin: 0.3, unknownWords },
          },
        }) as unknown as Pick<CitaConfig, 'languages' | 'retrieval'>;
      // `descarto` is not in Apertium's Spanish dictionary; in backticks it is code, held out as written.
      const question = '¿Cómo descarto el código de salida 5 con `descarto`?';
      const asIs = await translateQuestion(configWith('as-is'), question, 'es', t);
      expect(asIs?.text).toMatch(/How descarto\b/);
      expect(asIs?.unknown).toBeUndefined();
      const given = await translateQuestion(configWith('lexicon'), question, 'es', t);
      expect(given?.text).toMatch(/\bdiscard\b.*\boutput\b.*`descarto`/);
      expect(given?.unknown).toEqual([{ from: 'descarto', to: 'discard' }]);
      expect(sensesNotes(given!, { bm25: 'translated' })).toContain("words the translator does not know, given the lexicon's sense: descarto → discard");
    } finally {
      await t.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
