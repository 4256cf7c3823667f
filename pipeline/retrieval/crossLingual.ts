import path from 'node:path';
import { findRoot } from '../config/load.ts';
import type { CitaConfig } from '../config/schema.ts';
import type { Purpose } from '../instance.ts';
import type { Store } from '../store/store.ts';
import { withoutOffset } from '../embedding/languageOffset.ts';
import { restoreAccents, wordsToAnalyse, type RestoredAccents } from '../text/accents.ts';
import type { SelectionChoices } from '../text/lexicalSelection.ts';
import { configuredLexicon, unknownWordChoices } from '../text/lexicon/lexicon.ts';
import { modelTranslatorFor, type ModelTranslator } from '../text/modelTranslate.ts';
import { translatorFor, type Language, type Translator } from '../text/translate.ts';
import { docsCompounds } from './compounds.ts';
import { disambiguatedSenses, sensesInPlace } from './senses.ts';
import { meanVector } from '../vectors.ts';

/**
 * Cross-lingual search (DESIGN lesson 6): a question in another language than the corpus is
 * translated for the retrievers that match words, and `retrieval.crossLingual` says which text each
 * retriever uses. `cita ask` and `cita search` both go through here.
 */

/** The question in the corpus language, or why it could not be translated. */
export interface Translation {
  from: string;
  to: string;
  translator: string;
  text?: string;
  /**
   * Words BM25 searches beside the translation: the dictionary's other senses of its words
   * (`retrieval.crossLingual.bm25: expanded`), or the lexicon senses the docs prefer (`disambiguated`).
   */
  alternatives?: string[];
  /** Compounds the docs use, searched as phrases beside the translation (`retrieval.crossLingual.phrases: compounds`). */
  phrases?: string[];
  /** Words of the translator's that `text` has with the sense the docs prefer in their place (`retrieval.crossLingual.senses: replace`). */
  replaced?: { from: string; to: string }[];
  /** Words of the question the translator does not know, and the lexicon sense `text` has in their place (`retrieval.crossLingual.unknownWords: lexicon`). */
  unknown?: { from: string; to: string }[];
  /**
   * The language model's translation (`retrieval.crossLingual.model`), searched beside this one: `text`, or
   * nothing when the question is too long for it, or `error` when it could not run (the question is still searched).
   */
  rendering?: { by: string; text?: string; error?: string };
  /**
   * The question with the accents it was typed without put back (`retrieval.crossLingual.accents: restore`,
   * ../text/accents.ts), present when some were: what both translators translated and the dense side embeds.
   */
  accents?: RestoredAccents;
  error?: string;
  /** Why the translation is searched alone though `disambiguated` is set (no lexicon, no store). */
  warning?: string;
}

/**
 * Translates a question asked in `language` into the corpus language with the configured translator
 * (or `translator`); undefined when no translator is configured. A failure is returned, not thrown:
 * the question is then searched as asked, and the caller says so. The language model's rendering is
 * `modelTranslator`'s, default the process's model translator for the config, in process unless
 * `languages.modelTranslator.isolate` is true (a server passes its own: `Session.modelTranslator`).
 */
export async function translateQuestion(
  config: Pick<CitaConfig, 'languages' | 'retrieval'>,
  question: string,
  language: Language,
  translator?: Translator,
  store?: Store,
  modelTranslator?: Pick<ModelTranslator, 'id' | 'translate'>,
): Promise<Translation | undefined> {
  const t = translator ?? translatorFor(config.languages.translator);
  if (!t) return undefined;
  const to = config.languages.corpus;
  const model = config.retrieval.crossLingual.model === 'none' ? undefined : (modelTranslator ?? modelTranslatorFor(config.languages.modelTranslator));
  const accents = config.retrieval.crossLingual.accents === 'restore' ? await restoredAccents(question, language, to, t) : undefined;
  const asked = accents?.text ?? question;
  const [apertium, rendering] = await Promise.all([
    apertiumTranslation(config, asked, language, to, t, store),
    model?.translate(asked, language, to).then(
      (text) => ({ by: model.id, ...(text !== undefined ? { text } : {}) }),
      (err: unknown) => ({ by: model.id, error: (err as Error).message }),
    ),
  ]);
  const translation = accents ? { ...apertium, accents } : apertium;
  return rendering ? { ...translation, rendering } : translation;
}

/**
 * The question with its accents put back, when it is Spanish, the translator can analyse its words and
 * some were missing; else undefined. A failing analyser leaves the question as typed (the translation
 * that follows reports the translator's fault, if it is one).
 */
async function restoredAccents(question: string, language: Language, to: Language, t: Translator): Promise<RestoredAccents | undefined> {
  if (language !== 'es' || !t.analyse) return undefined;
  const words = wordsToAnalyse(question);
  if (words.length === 0) return undefined;
  try {
    const restored = restoreAccents(question, await t.analyse(words, language, to));
    return restored.restored.length > 0 ? restored : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The choices the translator makes for a Spanish question, from the lexicon `npm run setup` makes: among its dictionary's
 * translations, the catalogs' (`retrieval.crossLingual.translatorSenses: catalogs`; `salida` → output, not start:
 * pipeline/text/lexicalSelection.ts), and for the words it does not know, the lexicon's likeliest sense
 * (`unknownWords: lexicon`; `descarto` → discard); undefined (the translator's own) otherwise or without them. The
 * unknown words' choices are also returned alone, for the route. An analyser that fails leaves them out.
 */
async function questionChoices(
  config: Pick<CitaConfig, 'languages' | 'retrieval'>,
  question: string,
  from: Language,
  to: Language,
  t: Translator,
): Promise<{ choices?: SelectionChoices; unknown?: Record<string, string> }> {
  const { translatorSenses, unknownWords, senseMin } = config.retrieval.crossLingual;
  if (from !== 'es' || to !== 'en' || (translatorSenses !== 'catalogs' && unknownWords !== 'lexicon')) return {};
  const lexicon = configuredLexicon(config);
  const catalogs = translatorSenses === 'catalogs' ? lexicon?.questions?.choices : undefined;
  if (unknownWords !== 'lexicon' || !lexicon || !t.analyse) return catalogs ? { choices: catalogs } : {};
  const words = [...new Set(question.match(/\p{L}+/gu) ?? [])];
  const unknown = await t.analyse(words, from, to).then(
    (analyses) => unknownWordChoices(analyses, lexicon, senseMin),
    () => ({}),
  );
  if (Object.keys(unknown).length === 0) return catalogs ? { choices: catalogs } : {};
  return { choices: { ...catalogs, ...unknown }, unknown };
}

async function apertiumTranslation(
  config: Pick<CitaConfig, 'languages' | 'retrieval'>,
  question: string,
  language: Language,
  to: Language,
  t: Translator,
  store: Store | undefined,
): Promise<Translation> {
  const base = { from: language, to, translator: t.id };
  try {
    const expand = config.retrieval.crossLingual.bm25 === 'expanded' && t.alternatives !== undefined;
    const { choices: chosen, unknown } = await questionChoices(config, question, language, to, t);
    const [text, alternatives] = await Promise.all([t.translate(question, language, to, [], chosen), expand ? t.alternatives!(question, language, to) : Promise.resolve(undefined)]);
    // The unknown words the translation shows with their sense (a word held out as code is not translated).
    const given = Object.entries(unknown ?? {})
      .filter(([, sense]) => new RegExp(`(?<!\\p{L})${sense}(?!\\p{L})`, 'iu').test(text))
      .map(([key, sense]) => ({ from: key.slice(1), to: sense }));
    const named = given.length ? { ...base, unknown: given } : base;
    const disambiguate = config.retrieval.crossLingual.bm25 === 'disambiguated';
    const compounds = config.retrieval.crossLingual.phrases === 'compounds';
    if (!disambiguate && !compounds) return { ...named, text, ...(alternatives ? { alternatives } : {}) };
    // The lexicon is Spanish → English.
    const paired = language === 'es' && to === 'en';
    const lexicon = paired ? configuredLexicon(config) : undefined;
    if (!lexicon || !store) {
      const why = !store ? 'no index to read the senses from' : paired ? `no lexicon at ${path.resolve(findRoot(), config.languages.lexicon)} (\`npm run setup\` builds it)` : `no lexicon for ${language} → ${to}`;
      return { ...named, text, ...(alternatives ? { alternatives } : {}), warning: `${why}: the translation is searched alone` };
    }
    const deps = { lexicon, translator: t, store, minProbability: config.retrieval.crossLingual.senseMin };
    const choices = disambiguate ? await disambiguatedSenses(question, text, language, to, deps) : undefined;
    const inPlace = choices && config.retrieval.crossLingual.senses === 'replace' ? sensesInPlace(text, choices) : undefined;
    const senses = inPlace ? inPlace.beside : choices ? choices.map((c) => c.sense) : alternatives;
    const phrases = compounds ? await docsCompounds(question, language, to, deps) : [];
    return {
      ...named,
      text: inPlace?.text ?? text,
      ...(inPlace?.replaced.length ? { replaced: inPlace.replaced } : {}),
      ...(senses ? { alternatives: senses } : {}),
      ...(phrases.length ? { phrases } : {}),
    };
  } catch (err) {
    return { ...base, error: (err as Error).message };
  }
}

/**
 * Starts opening the language model translator in the background when `config` would use it for a
 * question in `language` (for any language but the corpus's when not given: a server does not know
 * its questions yet), so that its opening overlaps the embedder's instead of delaying the question.
 * `purpose` picks the translator as `modelTranslatorFor` does (`serve`: in a child process by default).
 */
export function prepareTranslation(config: Pick<CitaConfig, 'languages' | 'retrieval'>, language?: Language, purpose?: Purpose): void {
  if (language === config.languages.corpus || config.languages.translator.kind === 'none' || config.retrieval.crossLingual.model === 'none') return;
  modelTranslatorFor(config.languages.modelTranslator, purpose).prepare();
}

/** The config with the language model's translation off (`retrieval.crossLingual.model: none`): for tools that use Apertium's text alone. */
export function withoutModelTranslation<C extends Pick<CitaConfig, 'retrieval'>>(config: C): C {
  return { ...config, retrieval: { ...config.retrieval, crossLingual: { ...config.retrieval.crossLingual, model: 'none' } } };
}

/**
 * What a translation adds to the line that reports it (`ask`'s route, `cita search`): the accents put
 * back, the senses searched (or why none were), the language model's rendering.
 */
export function sensesNotes(translation: Translation, crossLingual: Pick<CitaConfig['retrieval']['crossLingual'], 'bm25'>): string[] {
  return [
    ...(translation.accents ? [`accents put back before translating: ${translation.accents.restored.map((r) => `${r.from} → ${r.to}`).join(', ')}`] : []),
    ...(translation.unknown?.length ? [`words the translator does not know, given the lexicon's sense: ${translation.unknown.map((r) => `${r.from} → ${r.to}`).join(', ')}`] : []),
    ...(translation.replaced?.length ? [`senses the docs prefer, put in place of the translator's: ${translation.replaced.map((r) => `${r.from} → ${r.to}`).join(', ')}`] : []),
    ...(crossLingual.bm25 === 'disambiguated' && translation.alternatives?.length ? [`senses the docs prefer, searched beside it: ${translation.alternatives.join(', ')}`] : []),
    ...(translation.phrases?.length ? [`compounds the docs use, searched as phrases: ${translation.phrases.join(', ')}`] : []),
    ...(translation.warning !== undefined ? [translation.warning] : []),
    ...(translation.rendering?.text !== undefined ? [`translated also by ${translation.rendering.by}, searched beside it: ${JSON.stringify(translation.rendering.text)}`] : []),
    ...(translation.rendering?.error !== undefined ? [`not translated by ${translation.rendering.by} (${translation.rendering.error})`] : []),
  ];
}

/**
 * The dense weight for searching with the question: an explicit one (A/B, `--alpha`) wins; a
 * question in another language than the corpus may have its own (`retrieval.crossLingual.alpha`).
 */
export function questionAlpha(retrieval: CitaConfig['retrieval'], crossLingual: boolean, explicit?: number): number {
  return explicit ?? (crossLingual ? (retrieval.crossLingual.alpha ?? retrieval.hybrid.alpha) : retrieval.hybrid.alpha);
}

/** What one retrieval searches with: BM25 over a text, and the dense side over the mean of the texts' vectors. */
export interface QueryPlan {
  bm25: string;
  dense: string[];
  /** Phrases BM25 searches beside `bm25`'s terms (Store.bm25). */
  phrases?: string[];
  /** The text of `dense` in another language than the corpus's, searched less that language's offset (`retrieval.crossLingual.offset`). */
  offset?: { text: string; from: Language };
}

/**
 * The dense side's query vector of a plan: the mean of its texts' vectors (`vectorOf`), the one `plan.offset` names
 * less `offset` (when given: the embedder's offset from that text's language). Pure.
 */
export function denseVector(plan: Pick<QueryPlan, 'dense' | 'offset'>, vectorOf: (text: string) => Float32Array, offset?: ArrayLike<number>): Float32Array {
  return meanVector(plan.dense.map((t) => (offset && t === plan.offset?.text ? withoutOffset(vectorOf(t), offset) : vectorOf(t))));
}

/**
 * The texts each retriever uses. A second hop (the referenced issue's text) is in the corpus
 * language already. A translated question follows `crossLingual`: BM25 and the dense side each
 * take the translation, the question as asked, or both; the language model's translation (`rendering`)
 * joins them as `crossLingual.model` says. Pure.
 */
export function searchPlan(
  question: string,
  hop: string,
  translated: (Pick<Translation, 'text' | 'alternatives' | 'phrases' | 'rendering' | 'accents'> & Partial<Pick<Translation, 'from'>>) | undefined,
  crossLingual: {
    bm25: 'translated' | 'original' | 'both' | 'expanded' | 'disambiguated';
    dense: 'translated' | 'original' | 'both';
    model?: 'none' | 'dense' | 'both';
    offset?: 'none' | 'catalogs';
  },
): { question: QueryPlan; hop?: QueryPlan } {
  const { text: translation, alternatives = [], phrases = [] } = translated ?? {};
  const rendering = translated?.rendering?.text;
  // The question as it should have been typed, when its accents were put back.
  const asked = translated?.accents?.text ?? question;
  const pick = (mode: 'translated' | 'original' | 'both'): string[] =>
    translation === undefined || translation === asked || mode === 'original' ? [asked] : mode === 'translated' ? [translation] : [asked, translation];
  const adds = crossLingual.bm25 === 'expanded' || crossLingual.bm25 === 'disambiguated';
  let bm25 = pick(adds ? 'translated' : (crossLingual.bm25 as 'translated' | 'original' | 'both')).join('\n');
  if (adds && translation !== undefined) {
    // The other senses (dictionary's, or the lexicon's the docs prefer), those the translation did not already use.
    const used = new Set(translation.toLowerCase().match(/\p{L}+/gu) ?? []);
    const extra = alternatives.filter((a) => !(a.match(/\p{L}+/gu) ?? []).every((w) => used.has(w)));
    if (extra.length) bm25 += `\n${extra.join(' ')}`;
  }
  // The model's translation joins the texts the dense side averages (and, with `both`, BM25's), never replaces them.
  const model = translation !== undefined && rendering !== undefined && rendering !== asked ? (crossLingual.model ?? 'none') : 'none';
  const dense = pick(crossLingual.dense);
  if (model !== 'none' && !dense.includes(rendering!)) dense.push(rendering!);
  if (model === 'both') bm25 += `\n${rendering}`;
  // The question as asked is in the language it was detected in; its vector is searched less that language's offset.
  const offset = crossLingual.offset === 'catalogs' && translated?.from !== undefined && dense.includes(asked) ? { text: asked, from: translated.from as Language } : undefined;
  return {
    question: { bm25, dense, ...(translation !== undefined && phrases.length ? { phrases: [...phrases] } : {}), ...(offset ? { offset } : {}) },
    ...(hop ? { hop: { bm25: hop, dense: [hop] } } : {}),
  };
}
