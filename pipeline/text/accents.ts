/**
 * Spanish typed without its accents (`como salto un test si no esta instalada una libreria`) is
 * common where the keyboard has none, and Apertium reads it as other words: `como` → as (not how),
 * `que` → that (not what), `esta` → this (not is), and `libreria`, `sesion`, `codigo` are unknown to
 * it. The accents are put back before the question is translated, from what the translator's own
 * morphological analyser knows (a word and its candidate spellings, each with its analyses):
 *
 * - a word the analyser does not know, with exactly one spelling it knows among those with one
 *   accented vowel and/or one `ñ` (`libreria` → librería, `anadir` → añadir);
 * - an interrogative opening a clause (`como`, `que`, `donde`, `cual`, `cuando`, `quien`, `cuanto`…),
 *   possibly after a preposition (`por que`, `para que`), at the start of the text or after `¿ . ? ! : ;`,
 *   or after a comma where a verb follows (`…fallos, como lanzo…`); `como` and an opener after a comma
 *   only where a verb (or a clitic and a verb) follows, since `como usuario` and `, como los de…` are "as";
 * - inside a question, `que` / `cuantos`… before a word that can only be a noun (`en que carpeta` → qué), and
 *   `por que`, or `como` after a preposition, before a finite verb (`por que falla`, `por como se llama`);
 * - `esta` before a participle, a gerund, an adverb, a preposition or an adjective that no noun follows
 *   (`no esta instalada` → está; `esta opción` stays);
 * - `mas` → más (unaccented `mas`, "but", is all but gone from modern writing);
 * - a word known only as a verb form right after a determiner, which no verb follows, with exactly one
 *   spelling known as a noun or adjective (`el numero de` → número, `la ultima version` → última).
 *
 * Known words are otherwise left as written: `ejecuto` (I run) and `ejecutó` (it ran) are both
 * Spanish, and which one was meant would take more than the analyser says. Text with its accents is
 * returned unchanged. Pure: the analyses come from the caller (ApertiumTranslator.analyse).
 */

/** A word → its analyses (`lanzar<vblex><pri><p1><sg>`); empty when the analyser does not know it. */
export type Analyses = ReadonlyMap<string, readonly string[]>;

export interface RestoredAccents {
  text: string;
  /** Each word changed, as written and as restored, in text order. */
  restored: { from: string; to: string }[];
}

const ACUTE: Record<string, string> = { a: 'á', e: 'é', i: 'í', o: 'ó', u: 'ú' };

/** Interrogatives and their accented forms. */
const INTERROGATIVES: Record<string, string> = {
  como: 'cómo',
  que: 'qué',
  donde: 'dónde',
  adonde: 'adónde',
  cual: 'cuál',
  cuales: 'cuáles',
  cuando: 'cuándo',
  quien: 'quién',
  quienes: 'quiénes',
  cuanto: 'cuánto',
  cuanta: 'cuánta',
  cuantos: 'cuántos',
  cuantas: 'cuántas',
};
/** A preposition an interrogative may follow at the start of its clause (`por qué`, `para qué`, `de cuál`). */
const PREPOSITIONS = new Set(['a', 'de', 'en', 'para', 'por', 'con', 'desde', 'hasta', 'sobre']);
const CLITICS = new Set(['se', 'me', 'te', 'le', 'les', 'lo', 'la', 'los', 'las', 'nos', 'os']);
/** Clitics that are never articles: the word after one is its verb, even one that can also be a noun (`se llama`). */
const PRONOUN_CLITICS = new Set(['se', 'me', 'te', 'le', 'les', 'nos', 'os']);
/** Interrogatives that also determine a noun (`en qué carpeta`, `cuántos días`), anywhere in a question. */
const DETERMINING = new Set(['que', 'cuanto', 'cuanta', 'cuantos', 'cuantas']);

/** A plain lowercase Spanish word: the only kind whose spelling is restored (names and code are not). */
const PLAIN_WORD = /^[a-zñü]+$/;
const WORD = /[\p{L}\p{N}_]+(?:[.'’-][\p{L}\p{N}_]+)*/gu;

/** Spellings of `word` with one vowel accented, one `n` as `ñ`, or both. Pure. */
export function accentVariants(word: string): string[] {
  if (!PLAIN_WORD.test(word)) return [];
  const withEnye = [word];
  for (let i = 0; i < word.length; i++) if (word[i] === 'n') withEnye.push(`${word.slice(0, i)}ñ${word.slice(i + 1)}`);
  const out = new Set<string>(withEnye.slice(1));
  for (const w of withEnye) {
    for (let i = 0; i < w.length; i++) {
      const acute = ACUTE[w[i]!];
      if (acute) out.add(`${w.slice(0, i)}${acute}${w.slice(i + 1)}`);
    }
  }
  out.delete(word);
  return [...out];
}

interface Token {
  word: string;
  start: number;
  /** Lowercase. */
  lower: string;
  /** It opens a clause: the text's start, or after `¿ ¡ . ? ! : ;` or a line break. */
  opensSentence: boolean;
  /** It follows a comma. */
  afterComma: boolean;
  /** It may open a question: it follows `¿`, or its sentence ends with `?`, or the text ends with no `.`, `?` or `!` after it. */
  asks: boolean;
}

/** What ends the sentence from `at` on: `.`, `?` or `!` (a period only before a space or the end: not `pytest.ini`), or '' for none. */
function sentenceEnd(text: string, at: number): string {
  const m = /[?!]|\.(?=\s|$)/.exec(text.slice(at));
  return m ? (m[0] === '!' ? '.' : m[0]) : '';
}

function tokensOf(text: string): Token[] {
  const tokens: Token[] = [];
  let last = 0;
  // Code spans, URLs and options (`--version`) are not words of the question (blanked, same length, so offsets hold).
  const prose = text.replace(/`[^`\n]*`|\bhttps?:\/\/\S+|(?<!\S)--?[\p{L}\p{N}][\p{L}\p{N}_-]*/gu, (m) => ' '.repeat(m.length));
  for (const m of prose.matchAll(WORD)) {
    const between = prose.slice(last, m.index);
    const first = tokens.length === 0;
    tokens.push({
      word: m[0],
      start: m.index,
      lower: m[0].toLowerCase(),
      opensSentence: (first && /^[\s¿¡("'“«]*$/.test(between)) || /[¿¡.?!:;\n]/.test(between),
      afterComma: !first && between.includes(','),
      asks: between.includes('¿') || sentenceEnd(prose, m.index + m[0].length) !== '.',
    });
    last = m.index + m[0].length;
  }
  return tokens;
}

/** The word as the rules read it: lowercase, or undefined for a name or code (only a sentence's first word may be capitalised). */
function plainOf(t: Token): string | undefined {
  const plain = t.opensSentence && /^\p{Lu}\p{Ll}*$/u.test(t.word) ? t.lower : t.word;
  return PLAIN_WORD.test(plain) ? plain : undefined;
}

/** The words of `text` the restoration needs analysed: its plain lowercase words and their candidate spellings. Pure. */
export function wordsToAnalyse(text: string): string[] {
  const words = new Set<string>();
  for (const t of tokensOf(text)) {
    const plain = plainOf(t);
    if (plain === undefined) continue;
    words.add(plain);
    for (const v of accentVariants(plain)) words.add(v);
  }
  return [...words];
}

/** The same case as `as` for its first letter (`Como` → `Cómo`). */
function caseLike(as: string, word: string): string {
  return /^\p{Lu}/u.test(as) ? word[0]!.toUpperCase() + word.slice(1) : word;
}

/** `text` with the accents put back where the rules above say (see the module comment). Pure. */
export function restoreAccents(text: string, analyses: Analyses): RestoredAccents {
  const tokens = tokensOf(text);
  const known = (w: string) => (analyses.get(w)?.length ?? 0) > 0;
  const has = (w: string | undefined, tag: RegExp) => w !== undefined && (analyses.get(w) ?? []).some((a) => tag.test(a));
  // Known, and every analysis matches: the word can be nothing else.
  const only = (w: string | undefined, tag: RegExp) => w !== undefined && known(w) && analyses.get(w)!.every((a) => tag.test(a));
  // First the unknown words, so the rules that read the next word read it restored.
  // Names and code keep their spelling, and no rule reads them as words.
  const plains = tokens.map(plainOf);
  const spelled = tokens.map((t, i) => {
    const plain = plains[i];
    if (plain === undefined || !analyses.has(plain) || known(plain)) return t.lower;
    const spellings = accentVariants(plain).filter(known);
    return spellings.length === 1 ? spellings[0]! : t.lower;
  });
  const VERB = /<vblex>|<vbser>|<vbhaver>|<vbmod>/;
  // A finite form, not an infinitive, participle or gerund: `, como borrar…` is "such as".
  const FINITE = /<(?:vblex|vbser|vbhaver|vbmod)><(?:pri|pii|ifi|fti|cni|prs|pis|fts|imp)>/;
  // A verb follows: a word that can be one and is not also a determiner or pronoun (`una` is also a form of
  // `unir`), or a clitic and then a word that can be a verb and not a noun (`la ejecuto`, not `la base`).
  const verbAt = (i: number, verb: RegExp) =>
    (has(spelled[i], verb) && !has(spelled[i], /<det>|<prn>/)) ||
    (CLITICS.has(spelled[i] ?? '') && has(spelled[i + 1], verb) && (PRONOUN_CLITICS.has(spelled[i]!) || !has(spelled[i + 1], /<n>|<det>/)));
  // A word that can only be a noun follows (`carpeta`; not `cambio`, a verb too, nor `solo`, an adverb too).
  const nounAt = (i: number) => only(spelled[i], /^[^<]*<n>/);
  const out = [...spelled];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    const word = spelled[i]!;
    if (plains[i] === undefined) continue;
    const interrogative = INTERROGATIVES[word];
    if (interrogative) {
      // A preposition may come first: `¿por que…`, `¿para que sirve…`.
      const lead = t.opensSentence || t.afterComma ? t : i > 0 && PREPOSITIONS.has(spelled[i - 1]!) && (tokens[i - 1]!.opensSentence || tokens[i - 1]!.afterComma) ? tokens[i - 1]! : undefined;
      // Only in a question: `Cuando bajo las páginas…, pero…` is "when".
      const atStart = lead?.opensSentence === true;
      const verb = !atStart ? FINITE : word === 'como' ? VERB : undefined;
      if (lead && t.asks && (!verb || verbAt(i + 1, verb))) out[i] = interrogative;
      // Inside a question too: determining a noun (`en que carpeta guarda…`), or after `por` / a preposition before
      // a finite verb (`…para investigar por que falla`, `solo por como se llama`); `para que`, `en que` + verb are
      // mostly "so that", "in which".
      else if (t.asks && DETERMINING.has(word) && nounAt(i + 1)) out[i] = interrogative;
      else if (t.asks && i > 0 && ((word === 'que' && spelled[i - 1] === 'por') || (word === 'como' && PREPOSITIONS.has(spelled[i - 1]!))) && verbAt(i + 1, FINITE)) out[i] = interrogative;
    } else if (word === 'mas') {
      out[i] = 'más';
    } else if (i > 0 && has(spelled[i - 1], /<det>/) && only(word, VERB)) {
      const nominal = accentVariants(word).filter((v) => has(v, /<n>|<adj>|<ord>/));
      if (nominal.length === 1) out[i] = nominal[0]!;
    } else if (word === 'esta') {
      const next = spelled[i + 1];
      const adjectiveAlone = has(next, /<adj>/) && !has(next, /<n>/) && !has(spelled[i + 2], /<n>/);
      if (has(next, /<vblex><(?:pp|ger)>|<adv>|<pr>/) || adjectiveAlone) out[i] = 'está';
    }
  }
  const restored: { from: string; to: string }[] = [];
  let result = '';
  let at = 0;
  tokens.forEach((t, i) => {
    if (out[i] === t.lower) return;
    const to = caseLike(t.word, out[i]!);
    restored.push({ from: t.word, to });
    result += text.slice(at, t.start) + to;
    at = t.start + t.word.length;
  });
  return { text: result + text.slice(at), restored };
}
