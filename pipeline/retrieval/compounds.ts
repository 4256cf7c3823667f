import { contentTerms } from '../text/analysis.ts';
import type { Language } from '../text/translate.ts';
import { LEXICON_SENSES, wordSenses, type SenseDeps } from './senses.ts';

/**
 * Compounds the docs use, searched as phrases (#15). A Spanish noun compound ("código de salida",
 * "línea de comandos", "variable de entorno") is an English one in the other order ("exit code",
 * "command line", "environment variable"), which a word-by-word translator renders as "code of
 * start" or "line of commandos", and which BM25 over words cannot tell from the same words apart.
 * Compositional translation validated by the target corpus (Grefenstette 1999; phrasal translation
 * in CLIR, Ballesteros & Croft 1997): for each "<head> de <modifier>" of the question, every sense
 * of the modifier before every sense of the head (the word translated alone, the lexicon's likeliest
 * three) is counted as a phrase in the docs, and the compound they use most is searched as a phrase
 * beside the translation. Spanish into English only; other pairs find no pattern.
 */

/** The "<head> de <modifier>" pairs of a question asked in `language`: both content words of three letters or more. */
export function compoundPatterns(question: string, language: Language): [head: string, modifier: string][] {
  if (language !== 'es') return [];
  const content = (w: string) => w.length >= 3 && contentTerms(w, language).size > 0;
  return [...question.toLowerCase().matchAll(/(\p{L}+)\s+de\s+(\p{L}+)/gu)].flatMap((m) => (content(m[1]!) && content(m[2]!) ? [[m[1]!, m[2]!] as [string, string]] : []));
}

/** The English compounds of a pair's senses: modifier before head, each once. */
export function compoundCandidates(headSenses: readonly string[], modifierSenses: readonly string[]): string[] {
  const out = new Set<string>();
  for (const h of headSenses) for (const m of modifierSenses) if (h !== m) out.add(`${m} ${h}`);
  return [...out];
}

/** The candidate the corpus holds in most chunks (the first of equals), or undefined when it holds none. */
export function chooseCompound(candidates: readonly string[], count: (phrase: string) => number): string | undefined {
  let best: string | undefined;
  for (const c of candidates) if (count(c) > 0 && (best === undefined || count(c) > count(best))) best = c;
  return best;
}

/**
 * The compounds of a question asked in `from` that the docs collection uses, one per pattern (none
 * when it is empty). One `phraseCounts` request; each word translated alone as setup recorded it in
 * the lexicon, or by the translator when it did not.
 */
export async function docsCompounds(question: string, from: Language, to: Language, deps: SenseDeps): Promise<string[]> {
  const patterns = compoundPatterns(question, from);
  if (patterns.length === 0) return [];
  const known = new Map<string, string[]>();
  const senses = async (word: string) => {
    if (!known.has(word)) {
      const w = await wordSenses(word, from, to, deps);
      known.set(word, [...new Set([...w.translated, ...w.senses.slice(0, LEXICON_SENSES)])]);
    }
    return known.get(word)!;
  };
  const candidates: string[][] = [];
  for (const [head, modifier] of patterns) candidates.push(compoundCandidates(await senses(head), await senses(modifier)));
  const all = [...new Set(candidates.flat())];
  if (all.length === 0) return [];
  const counts = await deps.store.phraseCounts('docs', all);
  const byPhrase = new Map(all.map((p, i) => [p, counts[i]!]));
  const chosen = candidates.flatMap((c) => chooseCompound(c, (p) => byPhrase.get(p) ?? 0) ?? []);
  return [...new Set(chosen)];
}
