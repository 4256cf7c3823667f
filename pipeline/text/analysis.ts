import { stemmer as englishStemmer } from '@orama/stemmers/english';
import { stemmer as spanishStemmer } from '@orama/stemmers/spanish';
import { identifierParts } from './codeTokens.ts';
import type { Language } from './translate.ts';

/**
 * One text analysis for matching words: accent folding, identifier parts (codeTokens.ts, which the
 * stores' full-text search uses too), stopwords and a real
 * Snowball stemmer per language (Orama's ports of the Snowball English and Spanish algorithms), so
 * `skipped`/`skipping` meet in English and `ejecución`/`ejecutar` in Spanish, and an English suffix
 * rule is never applied to a Spanish word.
 */

/** Accents off, case kept: `configuración` → `configuracion` (as SQLite FTS5's `remove_diacritics 2`). */
export function foldAccents(text: string): string {
  return text.normalize('NFD').replace(/\p{M}+/gu, '').normalize('NFC');
}

/** Lower case, accents off: `Función` → `funcion`. */
export function foldWord(word: string): string {
  return foldAccents(word.toLowerCase());
}

// Folded: English and Spanish function words and question words. One list for both languages: a
// question may mix them (a Spanish sentence around an English name), and none of these is a term.
const STOPWORDS = new Set(
  (
    'a about after all also an and any are as at be been being but by can could did do does doing for from get gets got ' +
    'had has have how i if in into is it its just me my no not of on or our should so such than that the their them then ' +
    'there these they this those to too use used using was way we were what when where which while who whom why will ' +
    'with would you your ' +
    'al algo algun alguna algunos como con cual cuales cuando de del desde donde e el ella ellas ello ellos en entre era es ' +
    'esa ese eso esta estan estas este esto estos hace hacer hago hay la las le les lo los mas me mi mis muy ni nos o otra ' +
    'otro para pero poco por porque puede pueden puedo que se sea ser si sin sobre son su sus tambien te tiene tienen tu ' +
    'un una unas uno unos usa usar uso y ya'
  ).split(' '),
);

const STEMMERS: Record<Language, (word: string) => string> = { en: englishStemmer, es: spanishStemmer };

/** The Snowball stem of a lower-case word in `language`, folded; numbers stay as they are. */
export function stem(word: string, language: Language): string {
  return /^\p{N}+$/u.test(word) ? word : foldWord(STEMMERS[language](word));
}


/**
 * Content terms of a text in `language`: words and identifier parts, lower-cased, stopwords and
 * one-letter words dropped, stemmed and folded.
 */
export function contentTerms(text: string, language: Language): Set<string> {
  const terms = new Set<string>();
  for (const raw of text.normalize('NFC').match(/[\p{L}\p{N}_]+/gu) ?? []) {
    // `evaluate_skip_marks` → evaluate, skip, marks; `HTTPServer` → http, server (as the stores split them).
    for (const lower of raw.split('_').flatMap(identifierParts)) {
      const folded = foldWord(lower);
      if (folded.length < 2 && !/^\d$/.test(folded)) continue;
      if (STOPWORDS.has(folded)) continue;
      terms.add(stem(lower, language));
    }
  }
  return terms;
}
