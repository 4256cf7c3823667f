import type { CitaConfig } from '../config/schema.ts';
import { configuredLexicon } from '../text/lexicon/lexicon.ts';
import type { SelectionChoices } from '../text/lexicalSelection.ts';
import type { Language, Translator } from '../text/translate.ts';
import { commentedLine, type CommentedLine } from './commentedLine.ts';
import type { GeneratedAnswer, VerifiedAnswer } from './types.ts';

/** How glosses are made (`answer.glossKeep`, `answer.glossImperatives`). */
export interface GlossOptions {
  /**
   * `changed`: the words to keep as written but those the translator knows and writes the same (`variables`, see
   * `changedWords`); `all`: every one. A kept word is a superblank the translator parses around, so an adjective before
   * it is read as a noun (`local variables`, `variables` kept → "lugareño variables").
   */
  keep: 'changed' | 'all';
  /**
   * `infinitive`: a text that opens with a verb in the imperative which the translator reads as a noun (`show local
   * variables` → "Espectáculo variables locales") is translated as a purpose (`To show…` → "Para mostrar…") and given
   * without it ("mostrar variables locales"), as Spanish instructions are written; `as-written`: as it is.
   */
  imperatives: 'infinitive' | 'as-written';
}

export const GLOSS_DEFAULTS: GlossOptions = { keep: 'changed', imperatives: 'infinitive' };

/**
 * Reading aids for a question asked in another language than the sources (#15: answers in the user's
 * language): the extractive generator quotes the sources as written, in their language, and each quote
 * of a valid citation gets its machine translation beside it (Apertium's `eng-spa` for English sources
 * and a Spanish question). Quotes are translated one at a time: Apertium carries words across the line
 * breaks of a batch. A gloss is never part of the answer's text, never cited and never verified — the
 * quote is what the sources say — and a failure leaves the answer as it was, saying why.
 */
export async function glossQuotes(
  answer: Pick<VerifiedAnswer, 'quotes' | 'citations'>,
  translator: Translator,
  from: Language,
  to: Language,
  keep: readonly string[] = [],
  choices?: SelectionChoices,
  options: GlossOptions = GLOSS_DEFAULTS,
): Promise<Pick<GeneratedAnswer, 'glosses' | 'glossedBy'>> {
  const cited = new Set(answer.citations.map((c) => c.marker));
  const quotes = (answer.quotes ?? []).filter((q) => cited.has(q.marker));
  if (quotes.length === 0 || from === to) return {};
  try {
    // A quoted command with its comment (`pytest -l # show local variables`): its comment is what there is to translate.
    const commented = quotes.map((q) => commentedCode(q.text));
    const held = options.keep === 'changed' ? await changedWords(keep, translator, from, to) : keep;
    const texts = await Promise.all(quotes.map((q, i) => glossText(commented[i]?.comment ?? q.text, commented[i] !== undefined, translator, from, to, held, choices, options.imperatives)));
    // Apertium leaves a double space where it drops a word (`Alfredo's` → `Alfredo  bueno`).
    const text = (i: number) => {
      const gloss = texts[i]!.replace(/[ \t]{2,}/g, ' ');
      const c = commented[i];
      return c ? `\`${c.command}\` ${c.marker} ${gloss}` : gloss;
    };
    return { glosses: quotes.map((q, i) => ({ marker: q.marker, quote: q.text, text: text(i) })), glossedBy: translator.id };
  } catch (err) {
    return { glossedBy: `gloss failed: ${(err as Error).message}` };
  }
}

/**
 * The words of `keep` that need holding out: all but those the translator knows and writes as they are (each
 * translated alone: `variables`, `local`). A word it does not know stays held: it would pass through as written
 * either way, and held it is parsed as before (`fixture`, `bash`).
 */
export async function changedWords(keep: readonly string[], translator: Translator, from: Language, to: Language): Promise<string[]> {
  // In lower case: alone, a capitalised word reads as a name the translator leaves be (`Windows`), and in a sentence as the word (ventanas).
  const words = [...new Set(keep.map((w) => w.toLowerCase()))];
  const known = translator.analyse ? await translator.analyse(words, from, to) : new Map<string, string[]>();
  const alone = await Promise.all(words.map((w) => translator.translate(w, from, to)));
  const same = new Set(words.filter((w, i) => known.get(w)?.length && alone[i]!.trim().toLowerCase() === w));
  return keep.filter((w) => !same.has(w.toLowerCase()));
}

/**
 * One text's gloss, `keep` held out as written; a text that opens with a verb in the imperative (`opensImperative`;
 * `comment`: a command's comment) as an infinitive where `imperatives` says so and the languages have a purpose
 * clause to carry it.
 */
export async function glossText(
  text: string,
  comment: boolean,
  translator: Translator,
  from: Language,
  to: Language,
  keep: readonly string[],
  choices: SelectionChoices | undefined,
  imperatives: GlossOptions['imperatives'],
): Promise<string> {
  const translate = (t: string) => translator.translate(t, from, to, keep, choices);
  const purpose = imperatives === 'infinitive' ? PURPOSE[`${from}>${to}`] : undefined;
  if (!purpose || !translator.analyse) return translate(text);
  const opening = await translator.analyse([firstWord(text)], from, to);
  return opensImperative(text, opening, comment) ? asInfinitive(text, purpose, translate) : translate(text);
}

/** A purpose clause in one language and how its translation opens in another: the shape an instruction is glossed in. */
interface Purpose {
  prefix: string;
  opens: RegExp;
}

/** Source › target: English `To …` comes out as Spanish `Para …`. */
const PURPOSE: Record<string, Purpose> = { 'en>es': { prefix: 'To ', opens: /^Para\s+/u } };

/**
 * Words that open a noun phrase: after a sentence's first word they mark that word as a verb (`Use the …`, `Set your
 * …`). Not `that`, which after a verb opens a clause the translator reads well as it is (`Note that …` → "Nota que …").
 */
const DETERMINERS = new Set('the a an this these those your its their our my each every all any some no'.split(' '));

/** A text's first word, without the punctuation around it. */
const firstWord = (text: string): string => /^[^\p{L}]*(\p{L}+)/u.exec(text)?.[1] ?? '';

/**
 * Whether `text` opens with a verb in the imperative that a translator may read as a noun: its first word can be both
 * (`analyses` of it: `show<n><sg>`, `show<vblex><inf>`), stands alone (no `:` after it, no `of`, `and`, `or`), and
 * either the text is a command's comment, which instructs (`show local variables`), or the word after it opens a noun
 * phrase or is code (`Use the …`, `Run ``pytest -x```). Pure.
 */
export function opensImperative(text: string, analyses: ReadonlyMap<string, readonly string[]>, comment: boolean): boolean {
  const word = firstWord(text);
  const readings = analyses.get(word) ?? [];
  if (!readings.some((r) => /<vblex><inf>/.test(r)) || !readings.some((r) => /<n>/.test(r))) return false;
  const [head = '', next = ''] = text.trim().split(/\s+/);
  // A word with punctuation after it heads nothing (`Note: …`); one before `of`, `and`, `or` is a noun (`number of
  // workers`, `base and offset`).
  if (head.replace(/^[^\p{L}]+/u, '') !== word || NOUN_AFTER.has(next.toLowerCase())) return false;
  return comment || DETERMINERS.has(next.toLowerCase()) || /^[`:-]/.test(next);
}

/** Words after which a sentence's first word is a noun, not a verb. */
const NOUN_AFTER = new Set(['of', 'and', 'or']);

/** `text` translated as a purpose clause and given without its opening (`show…` → "mostrar…"); as it is where the translation does not open so. */
async function asInfinitive(text: string, purpose: Purpose, translate: (t: string) => Promise<string>): Promise<string> {
  const lead = /^\s*/.exec(text)![0];
  const body = text.slice(lead.length);
  const out = await translate(`${purpose.prefix}${body.charAt(0).toLowerCase()}${body.slice(1)}`);
  const opened = purpose.opens.exec(out);
  if (!opened) return translate(text);
  const rest = out.slice(opened[0].length);
  // The case of the text's first letter: a sentence's capital, a comment's lower case.
  const first = body.charAt(0) === body.charAt(0).toUpperCase() ? rest.charAt(0).toUpperCase() : rest.charAt(0).toLowerCase();
  return `${lead}${first}${rest.slice(1)}`;
}

/** A quote that is a command and its comment, as code (`` `pytest -l  # show local variables` ``). */
function commentedCode(quote: string): CommentedLine | undefined {
  const code = /^`([^`]+)`$/.exec(quote)?.[1];
  return code === undefined ? undefined : commentedLine(code);
}

/** The gloss options the config sets (`answer.glossKeep`, `answer.glossImperatives`). */
export function glossOptionsFor(config: Pick<CitaConfig, 'answer'>): GlossOptions {
  return { keep: config.answer.glossKeep, imperatives: config.answer.glossImperatives };
}

/**
 * The words the glosses of an answer to `question` (asked in `language`) keep as written: the project's name and, where
 * the question was translated, its own English words (`askedTerms`; a word the question's language reads as a verb is
 * its own, by the translator's analyses, left out when it cannot give them).
 */
export async function keptWords(
  config: Pick<CitaConfig, 'name' | 'repository' | 'languages'>,
  question: string,
  language: Language,
  translation: string | undefined,
  translator: Translator,
): Promise<string[]> {
  const own = ownNames(config.name, config.repository.github);
  if (translation === undefined) return own;
  const words = question.match(/\p{L}+/gu) ?? [];
  const analyses = translator.analyse ? await translator.analyse(words, language, config.languages.corpus).catch(() => undefined) : undefined;
  return [...own, ...askedTerms(question, translation, analyses)];
}

/** A word with its first letter in upper case. */
const capitalised = (w: string): string => w.charAt(0).toUpperCase() + w.slice(1);

/**
 * The project's own name, as its docs write it in prose (`Black`, `Click`, `Flask`): held out of the
 * glosses, where Apertium would make it `Negro` or `El clic`. From the instance name and the GitHub
 * repository's, capitalised; the lower-case word is left to the translator (it is also a verb: `click`).
 */
export function ownNames(name: string, github?: string): string[] {
  return [...new Set([name, github?.split('/').pop() ?? ''].filter((w) => /^\p{L}[\p{L}\p{N}]*$/u.test(w)).map(capitalised))];
}

/**
 * The words a question in another language uses as the sources write them — software's loanwords (`blueprint`,
 * `hook`, `log`, `test`, `Python`), which the question's translation keeps as written — held out of the glosses
 * too, so a quote's gloss says `hook` where the user did, not `gancho`. Words of three letters or more, without
 * accents, that the translation also holds, and that the question's language does not read as a verb (`analyses`,
 * the translator's morphological analyses: `que use` is usar's, not the English word); each in the singular and
 * the plural, lower-case and capitalised (`tests` → test, tests, Test, Tests; `pass` → pass, passes, Pass,
 * Passes). Pure.
 */
export function askedTerms(question: string, translation: string, analyses: ReadonlyMap<string, readonly string[]> = new Map()): string[] {
  const words = (text: string) => text.match(/\p{L}+/gu) ?? [];
  const translated = new Set(words(translation).map((w) => w.toLowerCase()));
  const verb = (w: string) => (analyses.get(w) ?? []).some((a) => /<vb/.test(a));
  // A plural written in lower case is kept in the singular too; a name is not (`Windows` is not `window`).
  const kept = words(question)
    .filter((w) => w.length >= 3 && /^[a-z]+$/i.test(w) && translated.has(w.toLowerCase()) && !verb(w))
    .map((w) => (/^[a-z]{3,}s$/.test(w) && !w.endsWith('ss') ? w.slice(0, -1) : w.toLowerCase()));
  const plural = (w: string) => (w.endsWith('s') ? `${w}es` : `${w}s`);
  return [...new Set(kept.flatMap((w) => [w, plural(w)].flatMap((form) => [form, capitalised(form)])))];
}

/**
 * The choices among the translator's dictionary translations glosses take (`answer.glossSenses: catalogs`): the
 * lexicon's (`languages.lexicon`, made by `npm run setup`), for English sources glossed into Spanish; undefined
 * (the translator's own) otherwise or without them.
 */
export function glossChoicesFor(config: Pick<CitaConfig, 'answer' | 'languages'>): SelectionChoices | undefined {
  if (config.answer.glossSenses !== 'catalogs' || config.languages.corpus !== 'en') return undefined;
  return configuredLexicon(config)?.glosses?.choices;
}
