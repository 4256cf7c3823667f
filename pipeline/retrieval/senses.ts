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

/** The word sets whose counts `chooseSenses` reads: each candidate and context word, and each candidate with each context word. */
export function countsNeeded(words: readonly WordSenses[], context: readonly string[]): string[][] {
  const sets = new Map<string, string[]>();
  const add = (set: string[]) => sets.set(set.join('\n'), set);
  for (const c of context) add([c]);
  for (const w of words) {
    for (const e of [...w.translated, ...w.senses]) {
      add([e]);
      for (const c of context) if (c !== e) add([e, c].sort());
    }
  }
  return [...sets.values()];
}

/** Dice's coefficient of two words over the chunks: 2 |A ∩ B| / (|A| + |B|); 0 when either is absent. */
function dice(a: string, b: string, count: MatchCount): number {
  const [na, nb] = [count([a]), count([b])];
  return na === 0 || nb === 0 ? 0 : (2 * count([a, b].sort())) / (na + nb);
}

/**
 * The senses to search beside the translation: per word, the candidate present in the corpus whose
 * summed Dice with the context (the translation's words that are not its own candidates) is highest,
 * when that is a lexicon sense and not one the translator gave. Ties keep the translator's. Pure.
 */
export function chooseSenses(words: readonly WordSenses[], context: readonly string[], count: MatchCount): string[] {
  const chosen: string[] = [];
  for (const w of words) {
    const present = (e: string) => count([e]) > 0;
    const candidates = [...new Set([...w.translated.filter(present), ...w.senses.filter(present).slice(0, 3)])];
    if (candidates.length < 2) continue;
    const others = context.filter((c) => !candidates.includes(c) && count([c]) > 0);
    const score = (e: string) => others.reduce((sum, c) => sum + dice(e, c, count), 0);
    const best = candidates.reduce((a, b) => (score(b) > score(a) ? b : a));
    if (!w.translated.includes(best) && !chosen.includes(best)) chosen.push(best);
  }
  return chosen;
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
 * The lexicon senses to search beside `translation` for a question asked in `from`, chosen by their
 * co-occurrence in the docs collection (prose, where the question's words keep company; none when it
 * is empty). One `matchCounts` request; each word translated alone by the translator (cached).
 */
export async function disambiguatedSenses(question: string, translation: string, from: Language, to: Language, deps: SenseDeps): Promise<string[]> {
  if ((await deps.store.count('docs')) === 0) return [];
  const words: WordSenses[] = [];
  for (const word of contentWords(question, from)) {
    const senses = sensesOf(deps.lexicon, word, deps.minProbability);
    if (senses.length === 0) continue;
    words.push({ word, translated: contentWords(await deps.translator.translate(word, from, to), to), senses });
  }
  if (words.length === 0) return [];
  const context = contentWords(translation, to);
  const sets = countsNeeded(words, context);
  const counts = await deps.store.matchCounts('docs', sets);
  const byKey = new Map(sets.map((set, i) => [set.join('\n'), counts[i]!]));
  return chooseSenses(words, context, (set) => byKey.get(set.join('\n')) ?? 0);
}
