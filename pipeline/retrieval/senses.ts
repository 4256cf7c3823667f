import type { Store } from '../store/store.ts';
import { contentTerms } from '../text/analysis.ts';
import { sensesOf, type SenseLexicon } from '../text/lexicon/lexicon.ts';
import type { Language, Translator } from '../text/translate.ts';

/**
 * A translated word's sense chosen by the company it keeps in the corpus (co-occurrence translation
 * disambiguation: Ballesteros & Croft 1998; Gao et al. 2001). A general translator gives `plantillas`
 * → staff, `librería` → bookshop, `salida` → start; a lexicon of software senses has template,
 * library, output, but adding every sense adds as much BM25 noise as it removes. So each word's
 * candidates — the translator's sense (the word translated alone) and the lexicon's likeliest three
 * that the corpus holds — are scored by their summed Dice coefficient with the other words of the
 * question's translation over the corpus's chunks, and a lexicon sense that beats the translator's
 * is searched beside the translation.
 */

/** One word of the question: what the translator makes of it alone, and the lexicon's senses. */
export interface WordSenses {
  word: string;
  translated: string[];
  senses: string[];
}

/** How many chunks hold all of a set of words (Store.matchCounts, one set at a time). */
export type MatchCount = (words: string[]) => number;

/** A word's candidates among the senses the chunks hold: the translator's, then the lexicon's likeliest three. */
function candidatesOf(w: WordSenses, present: (e: string) => boolean): string[] {
  return [...new Set([...w.translated.filter(present), ...w.senses.filter(present).slice(0, LEXICON_SENSES)])];
}

/** How many of a word's lexicon senses (the likeliest) are its candidates. */
export const LEXICON_SENSES = 3;

/** The context words `chooseSenses` scores a word's candidates against: those the chunks hold, not among the candidates. */
function othersOf(candidates: readonly string[], context: readonly string[], present: (e: string) => boolean): string[] {
  return context.filter((c) => !candidates.includes(c) && present(c));
}

/**
 * The word sets whose counts `chooseSenses` reads, in two rounds: without `singles`, each sense and
 * context word alone; with their counts, the pairs of each candidate with each context word, only for
 * words with two candidates the chunks hold (the rest need no pair).
 */
export function countsNeeded(words: readonly WordSenses[], context: readonly string[], singles?: MatchCount): string[][] {
  const sets = new Map<string, string[]>();
  const add = (set: string[]) => sets.set(set.join('\n'), set);
  if (!singles) {
    for (const c of context) add([c]);
    for (const w of words) for (const e of [...w.translated, ...w.senses]) add([e]);
    return [...sets.values()];
  }
  const present = (e: string) => singles([e]) > 0;
  for (const w of words) {
    const candidates = candidatesOf(w, present);
    if (candidates.length < 2) continue;
    for (const e of candidates) for (const c of othersOf(candidates, context, present)) add([e, c].sort());
  }
  return [...sets.values()];
}

/** Dice's coefficient of two words over the chunks: 2 |A ∩ B| / (|A| + |B|); 0 when either is absent. */
function dice(a: string, b: string, count: MatchCount): number {
  const [na, nb] = [count([a]), count([b])];
  return na === 0 || nb === 0 ? 0 : (2 * count([a, b].sort())) / (na + nb);
}

/** A lexicon sense the docs prefer for one word of the question, and the translator's senses of that word it beat. */
export interface SenseChoice {
  sense: string;
  over: string[];
}

/**
 * The senses the docs prefer: per word, the candidate present in the corpus whose summed Dice with the
 * context (the translation's words that are not its own candidates) is highest, when that is a lexicon
 * sense and not one the translator gave (each sense once). Ties keep the translator's. Pure.
 */
export function chooseSenseChoices(words: readonly WordSenses[], context: readonly string[], count: MatchCount): SenseChoice[] {
  const chosen: SenseChoice[] = [];
  for (const w of words) {
    const present = (e: string) => count([e]) > 0;
    const candidates = candidatesOf(w, present);
    if (candidates.length < 2) continue;
    const others = othersOf(candidates, context, present);
    const score = (e: string) => others.reduce((sum, c) => sum + dice(e, c, count), 0);
    const best = candidates.reduce((a, b) => (score(b) > score(a) ? b : a));
    if (!w.translated.includes(best) && !chosen.some((c) => c.sense === best)) chosen.push({ sense: best, over: w.translated });
  }
  return chosen;
}

/** The senses to search beside the translation (`chooseSenseChoices`' senses). Pure. */
export function chooseSenses(words: readonly WordSenses[], context: readonly string[], count: MatchCount): string[] {
  return chooseSenseChoices(words, context, count).map((c) => c.sense);
}

/**
 * The translation with each chosen sense in place of the translator's sense it beat (`retrieval.crossLingual.senses:
 * replace`): the first whole-word occurrence, matched without case, of any of `over` that is not a sense already put
 * in place; a choice whose translator's sense the translation does not hold (the translator chose another in context)
 * is left to search beside it (`beside`). Pure.
 */
export function sensesInPlace(translation: string, choices: readonly SenseChoice[]): { text: string; replaced: { from: string; to: string }[]; beside: string[] } {
  let text = translation;
  const replaced: { from: string; to: string }[] = [];
  const beside: string[] = [];
  // Words already put in place are skipped by their offsets, so a sense is never replaced in turn.
  const taken: [number, number][] = [];
  for (const c of choices) {
    let hit: { at: number; word: string } | undefined;
    for (const m of text.matchAll(/\p{L}+/gu)) {
      const at = m.index;
      if (taken.some(([a, b]) => at >= a && at < b)) continue;
      if (c.over.includes(m[0].toLowerCase())) {
        hit = { at, word: m[0] };
        break;
      }
    }
    if (!hit) {
      beside.push(c.sense);
      continue;
    }
    text = text.slice(0, hit.at) + c.sense + text.slice(hit.at + hit.word.length);
    const shift = c.sense.length - hit.word.length;
    for (const t of taken) {
      if (t[0] > hit.at) {
        t[0] += shift;
        t[1] += shift;
      }
    }
    taken.push([hit.at, hit.at + c.sense.length]);
    replaced.push({ from: hit.word, to: c.sense });
  }
  return { text, replaced, beside };
}

/**
 * A word's senses: what the translator makes of it alone (as setup recorded it in the lexicon, or
 * by the translator when it did not: a word found by its stem) and the lexicon's, likeliest first.
 */
export async function wordSenses(word: string, from: Language, to: Language, deps: Pick<SenseDeps, 'lexicon' | 'translator' | 'minProbability'>): Promise<WordSenses> {
  const translated = deps.lexicon.alone?.words[word] ?? (await translatedAlone(word, deps.translator, from, to));
  return { word, translated, senses: sensesOf(deps.lexicon, word, deps.minProbability) };
}

/** What the translator makes of a word alone: the content words of its translation. */
export async function translatedAlone(word: string, translator: Translator, from: Language, to: Language): Promise<string[]> {
  return contentWords(await translator.translate(word, from, to), to);
}

/** Lower-case words of a text that carry meaning in `language` (not stopwords). */
function contentWords(text: string, language: Language): string[] {
  return [...new Set((text.toLowerCase().match(/\p{L}+/gu) ?? []).filter((w) => contentTerms(w, language).size > 0))];
}

export interface SenseDeps {
  lexicon: SenseLexicon;
  translator: Translator;
  store: Store;
  /** The lexicon senses of a word considered: those of at least this probability. */
  minProbability: number;
}

/**
 * The lexicon senses the docs prefer for a question asked in `from`, each with the translator's senses it beat
 * (searched beside `translation`, or put in its place: `sensesInPlace`), chosen by their co-occurrence in the docs
 * collection (prose, where the question's words keep company; none when it is empty: no word is in it). Two
 * `matchCounts` requests; each word translated alone as setup recorded it in the lexicon, or by the translator when
 * it did not (a word found by its stem).
 */
export async function disambiguatedSenses(question: string, translation: string, from: Language, to: Language, deps: SenseDeps): Promise<SenseChoice[]> {
  const words: WordSenses[] = [];
  for (const word of contentWords(question, from)) {
    if (sensesOf(deps.lexicon, word, deps.minProbability).length === 0) continue;
    words.push(await wordSenses(word, from, to, deps));
  }
  if (words.length === 0) return [];
  const context = contentWords(translation, to);
  const byKey = new Map<string, number>();
  const lookup: MatchCount = (set) => byKey.get(set.join('\n')) ?? 0;
  const countSets = async (sets: string[][]) => {
    if (sets.length === 0) return;
    const counts = await deps.store.matchCounts('docs', sets);
    sets.forEach((set, i) => byKey.set(set.join('\n'), counts[i]!));
  };
  // The words alone, then only the pairs a choice needs.
  await countSets(countsNeeded(words, context));
  await countSets(countsNeeded(words, context, lookup));
  return chooseSenseChoices(words, context, lookup);
}
