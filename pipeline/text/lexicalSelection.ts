import { stem } from './analysis.ts';
import type { Language } from './translate.ts';

/**
 * Lexical selection by the software catalogs: where Apertium's bilingual dictionary gives a word several
 * translations (`file` → lima, archivo; `argument` → riña, argumento, discusión; `string` → serie, cadena,
 * cuerda), its general rules take the first, and a gloss of a software doc reads "ignorará limas y
 * directorios". The translation the developer tools' own Spanish catalogs use most with the word
 * (pipeline/text/lexicon/catalogs.ts; the other way round for a Spanish question: `salida` → output, not start)
 * is chosen instead, among the dictionary's own, so the rest of the pipeline still agrees and inflects it
 * (`el archivo`, `los argumentos`).
 */

/**
 * `lemma<first tag>` of a source word (`file<n>`) → the target lemma chosen for it (`archivo`); `*word` of a word
 * the translator does not know (`unknownKey`) → the target word written in its place.
 */
export type SelectionChoices = Readonly<Record<string, string>>;

/** A word of the bilingual lookup's output: its source analysis and its target alternatives, tags kept. */
export interface LookupUnit {
  source: string;
  targets: string[];
}

/** A lexical unit of Apertium's stream (`^…$`, escapes inside), its body captured. */
const UNIT = /\^((?:\\.|[^$\\])*)\$/g;

/** A unit's body split at its unescaped slashes: the source analysis, then the targets. */
function unitOf(body: string): LookupUnit {
  const [source, ...targets] = body.split(/(?<!\\)\//);
  return { source: source!, targets };
}

/** The units of a bilingual lookup's output (`^file<n><sg>/lima<n><f><sg>/archivo<n><m><sg>$`). Pure. */
export function lookupUnits(stream: string): LookupUnit[] {
  return [...stream.matchAll(UNIT)].map((m) => unitOf(m[1]!));
}

/** A unit's lemma, lower-case, without tags or multiword marks (`jump# over<vblex>` → `jump over`). */
function lemmaOf(analysis: string): string {
  return analysis.replace(/<.*$/s, '').replace(/[#+]/g, ' ').replace(/\\(.)/g, '$1').replace(/\s+/g, ' ').trim().toLowerCase();
}

/** The key a source analysis is chosen by: its lemma and first tag (`file<n><sg>` → `file<n>`); undefined for an unknown word. */
export function selectionKey(analysis: string): string | undefined {
  if (/^[*@#]/.test(analysis)) return undefined;
  const tag = /<[^>]+>/.exec(analysis)?.[0];
  return tag ? `${lemmaOf(analysis)}${tag}` : undefined;
}

/**
 * The bilingual lookup's output with each word that has several translations, and a choice among them, left
 * with that one alone (the stages after the lookup then take it, as they would have taken the first); and each
 * word it does not know, with a choice for it (`unknownKey`), written as that choice. Pure.
 */
export function selectAlternatives(stream: string, choices: SelectionChoices): string {
  return stream.replace(UNIT, (unit, body: string) => {
    const { source, targets } = unitOf(body);
    if (source.startsWith('*')) {
      // A word the translator does not know passes through as written (`^*descarto/*descarto$`): a choice for it is written in its place.
      const chosen = choices[unknownKey(source.slice(1))];
      return chosen === undefined || !isWritable(chosen) ? unit : `^${source}/*${chosen}$`;
    }
    if (targets.length < 2) return unit;
    const key = selectionKey(source);
    const chosen = key === undefined ? undefined : choices[key];
    const target = chosen === undefined ? undefined : targets.find((t) => lemmaOf(t) === chosen);
    return target === undefined ? unit : `^${source}/${target}$`;
  });
}

/** Whether a choice can be put in the stream as it is: letters, an inner hyphen or apostrophe (nothing the stream reserves). */
export function isWritable(word: string): boolean {
  return /^\p{L}+(?:['-]\p{L}+)*$/u.test(word);
}

/** The key of a choice for a word the translator does not know, by its lower-case spelling (`Descarto` → `*descarto`). */
export function unknownKey(word: string): string {
  return `*${word.toLowerCase()}`;
}

/** A translated message: its source-language and target-language text. */
export interface TextPair {
  source: string;
  translation: string;
}

/** Lower-case words of a text, stemmed. */
function stems(text: string, language: Language): Set<string> {
  return new Set((text.toLowerCase().match(/\p{L}+/gu) ?? []).map((w) => stem(w, language)));
}

/**
 * The choices the catalogs support: for each unit with several translations, the one whose lemma's stem appears
 * with the source lemma's stem in the most message pairs (first word of a multiword), when those are at least
 * `minCount` and more than the first translation's (the one Apertium's rules default to). Pure.
 */
export function buildChoices(units: readonly LookupUnit[], pairs: readonly TextPair[], from: Language, to: Language, minCount = 3): Record<string, string> {
  const postings = (sets: Set<string>[]) => {
    const index = new Map<string, number[]>();
    sets.forEach((set, i) => {
      for (const w of set) {
        const list = index.get(w);
        if (list) list.push(i);
        else index.set(w, [i]);
      }
    });
    return index;
  };
  const source = postings(pairs.map((p) => stems(p.source, from)));
  const target = postings(pairs.map((p) => stems(p.translation, to)));
  // How many pairs hold a target stem beside the source stem's pairs.
  const together = (withSource: ReadonlySet<number>, t: string) => (target.get(t) ?? []).filter((i) => withSource.has(i)).length;
  const choices: Record<string, string> = {};
  for (const unit of units) {
    const key = selectionKey(unit.source);
    const targets = [...new Set(unit.targets.filter((t) => !/^[*@#]/.test(t)).map(lemmaOf))];
    if (key === undefined || targets.length < 2 || key in choices) continue;
    const withSource = new Set(source.get(stem(lemmaOf(unit.source).split(' ')[0]!, from)) ?? []);
    const counts = targets.map((t) => together(withSource, stem(t.split(' ')[0]!, to)));
    const best = counts.indexOf(Math.max(...counts));
    if (best > 0 && counts[best]! >= minCount && counts[best]! > counts[0]!) choices[key] = targets[best]!;
  }
  return choices;
}
