import fs from 'node:fs';
import path from 'node:path';
import { findRoot } from '../../config/load.ts';
import type { CitaConfig } from '../../config/schema.ts';
import { stem } from '../analysis.ts';
import { buildChoices, isWritable, lookupUnits, unknownKey } from '../lexicalSelection.ts';
import type { Language, Translator } from '../translate.ts';
import { catalogPairs } from './catalogs.ts';
import type { MessagePair } from './mo.ts';
import { lexiconOf, messageWords, trainIbm1, type Lexicon, type SentencePair } from './ibm1.ts';

/**
 * The Spanish–English lexicon of software senses (IBM Model 1 over the message catalogs of
 * developer tools, ./catalogs.ts): built once by `npm run setup` into `languages.lexicon`, read by the
 * cross-lingual search (`retrieval.crossLingual.bm25: disambiguated`).
 */
export interface SenseLexicon {
  /** Message pairs it was trained on. */
  pairs: number;
  /** Spanish word as written → English senses, likeliest first. */
  words: Lexicon;
  /** The same by Snowball stem, for inflections the catalogs lack. */
  stems: Lexicon;
  /**
   * What the translator makes of each of `words` alone (its content words), made by `npm run setup` with
   * the installed translator (`by`: its name and version; setup makes them again when that changes), so a
   * question's words need no translation each (pipeline/retrieval/senses.ts).
   */
  alone?: { by: string; words: Record<string, string[]> };
  /**
   * Which of the translator's dictionary translations a word takes (../lexicalSelection.ts), chosen by the same
   * catalogs: for glosses of English quotes into Spanish (`file<n>` → archivo, not lima) and for Spanish questions
   * translated into English (`salida<n>` → output, not start); made by `npm run setup` with the installed
   * translator (`by`), as `alone` is.
   */
  glosses?: { by: string; choices: Record<string, string> };
  questions?: { by: string; choices: Record<string, string> };
}

/** The words of at least `minMessages` of the texts: the vocabulary choices are made for. */
function vocabulary(texts: readonly string[], minMessages: number): string[] {
  const seen = new Map<string, number>();
  for (const t of texts) for (const w of new Set(t.toLowerCase().match(/\p{L}{2,}/gu) ?? [])) seen.set(w, (seen.get(w) ?? 0) + 1);
  return [...seen].filter(([, n]) => n >= minMessages).map(([w]) => w).sort();
}

/**
 * The choices among the translator's dictionary translations the catalogs support (`SenseLexicon.glosses`: English
 * → Spanish; `questions`: Spanish → English): each word of the catalogs' `from` side analysed and looked up in the
 * translator's dictionary, and, where that gives several translations, the one the catalogs' other side uses most
 * with it (buildChoices).
 */
export async function catalogChoices(
  pairs: readonly MessagePair[],
  translator: Required<Pick<Translator, 'analyse' | 'lookup'>>,
  from: Language = 'en',
  to: Language = 'es',
  minMessages = 3,
): Promise<Record<string, string>> {
  // The catalogs translate English messages into Spanish.
  const oriented = from === 'en' ? pairs : pairs.map((p) => ({ source: p.translation, translation: p.source }));
  const analyses = await translator.analyse(vocabulary(oriented.map((p) => p.source), minMessages), from, to);
  const readings = [...new Set([...analyses.values()].flat())];
  const units = lookupUnits(await translator.lookup(readings, from, to));
  return buildChoices(units, oriented, from, to);
}

/** Trains the lexicon from the pinned catalogs (downloaded into `cache` when absent) and writes it to `file`. */
export function buildLexicon(file: string, cache: string, log: (m: string) => void = () => {}): SenseLexicon {
  const pairs: SentencePair[] = catalogPairs(cache, log)
    .map((m) => ({ source: messageWords(m.translation), target: messageWords(m.source) }))
    .filter((p) => p.source.length > 0 && p.target.length > 0 && p.source.length <= 40 && p.target.length <= 40);
  const stemmed = pairs.map((p) => ({ ...p, source: p.source.map((w) => stem(w, 'es')) }));
  const built: SenseLexicon = { pairs: pairs.length, words: lexiconOf(trainIbm1(pairs), pairs), stems: lexiconOf(trainIbm1(stemmed), stemmed) };
  writeLexicon(file, built);
  return built;
}

/** Writes the lexicon whole or not at all (a temporary file renamed into place), and forgets a copy read before. */
export function writeLexicon(file: string, lexicon: SenseLexicon): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(lexicon));
  fs.renameSync(tmp, file);
  loaded.delete(file);
}

const loaded = new Map<string, SenseLexicon | undefined>();

/** The lexicon at `file`, read once per process; undefined when there is none. */
export function readLexicon(file: string): SenseLexicon | undefined {
  if (!loaded.has(file)) loaded.set(file, fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as SenseLexicon) : undefined);
  return loaded.get(file);
}

/** The lexicon `languages.lexicon` names (relative to the project root), read once per process; undefined when there is none. */
export function configuredLexicon(config: Pick<CitaConfig, 'languages'>): SenseLexicon | undefined {
  return readLexicon(path.resolve(findRoot(), config.languages.lexicon));
}

/**
 * Choices for the words the translator does not know (`analyses`: the translator's analyser's, none for such a
 * word): each one's likeliest lexicon sense of at least `min` probability (`descartar` → discard, `complementos` →
 * plugin), unless that is the word itself (`pytest`, `fixture`) or not a plain word; keyed as `selectAlternatives` reads them. Pure.
 */
export function unknownWordChoices(analyses: ReadonlyMap<string, readonly string[]>, lexicon: SenseLexicon, min: number): Record<string, string> {
  const choices: Record<string, string> = {};
  for (const [word, readings] of analyses) {
    if (readings.length > 0) continue;
    const lower = word.toLowerCase();
    const sense = sensesOf(lexicon, lower, min)[0];
    if (sense !== undefined && sense !== lower && isWritable(sense)) choices[unknownKey(lower)] = sense;
  }
  return choices;
}

/** A Spanish word's senses of at least `min` probability, as written or else by stem. */
export function sensesOf(lexicon: SenseLexicon, word: string, min: number): string[] {
  return (lexicon.words[word] ?? lexicon.stems[stem(word, 'es')] ?? []).filter(([, p]) => p >= min).map(([e]) => e);
}
