/**
 * Dictionary-based query translation for BM25 (#15 item 2) with a lexicon of software senses: IBM
 * Model 1 (pipeline/text/lexicon/ibm1.ts) trained on the Spanish message catalogs of developer tools
 * (pipeline/text/lexicon/catalogs.ts: ~31,000 message pairs from git, GCC, binutils, coreutils, Django, Sphinx,
 * JupyterLab…), where Apertium's general dictionary gives other senses (`librería` → bookshop,
 * `salida` → start, `saltarse` → jump; the lexicon: library, output, skip). Each Spanish content word
 * is looked up as written, then by its Snowball stem; its translations are added to the BM25 text
 * beside Apertium's translation. Docs collection alone, file Recall@k / Acc@1 per language, one run:
 *   - today's BM25 (the translation) and hybrid, as `cita search --source docs` runs them;
 *   - `+ lexicon`: the best sense of each word added; `+ senses`: every sense ≥ `--min`;
 *   - `+ untranslated`: only words Apertium left as they were (unknown to it);
 *   - `+ repaired`: only words whose translation the docs never use (each word translated alone; none
 *     of its English words occurs in the collection), by their best sense that does occur.
 * The lexicon is built once into .cita/models/lexicon-es-en.json (`--rebuild` to build it again).
 *
 *   node --import tsx eval/lexiconRetrieval.ts [instance] --dataset datasets/pytest-docs.jsonl [--split dev] [--min 0.3] [--k 5] [--show]
 */
import fs from 'node:fs';
import path from 'node:path';
import { findRoot } from '../pipeline/config/load.ts';
import { openInstance } from '../pipeline/instance.ts';
import { contentTerms } from '../pipeline/text/analysis.ts';
import { translatorFor } from '../pipeline/text/translate.ts';
import { accuracyAt1 } from './metrics/accuracyAt1.ts';
import { recallAtK } from './metrics/recallAtK.ts';
import { answerableQuestions, docsFiles, experimentArgs, modeTable, planVector, questionPlan, type ModeRow } from './docsQuestions.ts';
import { chooseSenses, translatedAlone, type MatchCount, type WordSenses } from '../pipeline/retrieval/senses.ts';
import { buildLexicon, readLexicon, sensesOf, type SenseLexicon } from '../pipeline/text/lexicon/lexicon.ts';

const { values, instance } = experimentArgs({
  k: { type: 'string', default: '5' },
  min: { type: 'string', default: '0.3' },
  rebuild: { type: 'boolean' },
  show: { type: 'boolean' },
});
const root = findRoot();
const k = Number(values.k);
const min = Number(values.min);

/** The lexicon by word as written and by Snowball stem, built from the catalogs once (as `npm run setup` does). */
function loadLexicon(): SenseLexicon {
  const file = path.join(root, '.cita/models/lexicon-es-en.json');
  if (!values.rebuild && fs.existsSync(file)) return readLexicon(file)!;
  const started = process.cpuUsage();
  const built = buildLexicon(file, path.join(root, '.cita/cache/lexicon'), (m) => console.error(m));
  const cpu = process.cpuUsage(started);
  console.error(`lexicon: ${built.pairs} message pairs, ${Object.keys(built.words).length} words, ${Object.keys(built.stems).length} stems (${((cpu.user + cpu.system) / 1e6).toFixed(1)} s CPU)`);
  return built;
}

const lexicon = loadLexicon();

/** English senses of a Spanish question's content words: `best` of each, or `all` ≥ min; `untranslated`: only words the translation kept as they were. */
function gloss(question: string, mode: 'best' | 'all' | 'untranslated', translation = ''): string[] {
  const kept = new Set(translation.toLowerCase().match(/\p{L}+/gu) ?? []);
  const out: string[] = [];
  for (const word of question.toLowerCase().match(/\p{L}+/gu) ?? []) {
    if (contentTerms(word, 'es').size === 0) continue; // a stopword
    if (mode === 'untranslated' && !kept.has(word)) continue;
    const senses = sensesOf(lexicon, word, min);
    out.push(...(mode === 'all' ? senses : senses.slice(0, 1)));
  }
  return out;
}

const questions = answerableQuestions(values.dataset, values.split, root);
const { config, embedder, store, close } = await openInstance(instance, { purpose: 'search', root });
const translator = translatorFor(config.languages.translator)!;
const seen = new Map<string, boolean>();
/** Whether the docs collection holds the word (a BM25 hit: its document frequency is not 0). */
async function inDocs(word: string): Promise<boolean> {
  if (!seen.has(word)) seen.set(word, (await store.bm25('docs', word, 1)).length > 0);
  return seen.get(word)!;
}

// Which docs chunks hold each word (the letters of their text): the counts `+ disambiguated` reads.
const postings = new Map<string, Set<number>>();
(await store.get(await store.ids('docs'))).forEach((c, i) => {
  for (const w of new Set(c.text.toLowerCase().match(/\p{L}+/gu) ?? [])) {
    if (!postings.has(w)) postings.set(w, new Set());
    postings.get(w)!.add(i);
  }
});
/** How many docs chunks hold every word of a set, from the postings above. */
const postingsCount: MatchCount = (words) => {
  const [first, ...rest] = words.map((w) => postings.get(w) ?? new Set<number>());
  return [...first!].filter((i) => rest.every((p) => p.has(i))).length;
};

/**
 * The `+ disambiguated` senses: the product's choice (pipeline/retrieval/senses.ts `chooseSenses`) over
 * counts taken from the docs' text here instead of from the store's full-text index — for each content
 * word with lexicon senses the docs hold, Apertium's sense (the word translated alone) or the lexicon's
 * (top 3), whichever has the highest summed Dice with the rest of the translation's words.
 */
async function disambiguated(question: string, translation: string): Promise<string[]> {
  const words: WordSenses[] = [];
  for (const word of new Set(question.toLowerCase().match(/\p{L}+/gu) ?? [])) {
    if (contentTerms(word, 'es').size === 0) continue;
    const senses = sensesOf(lexicon, word, min);
    if (senses.length > 0) words.push({ word, translated: await translatedAlone(word, translator, 'es', config.languages.corpus), senses });
  }
  return chooseSenses(words, [...new Set(translation.toLowerCase().match(/\p{L}+/gu) ?? [])].filter((w) => contentTerms(w, 'en').size > 0), postingsCount);
}

/** The `+ repaired` senses: for each content word whose translation alone has no word the docs hold, its most probable sense they do hold. */
async function repairs(question: string): Promise<string[]> {
  const out: string[] = [];
  for (const word of question.toLowerCase().match(/\p{L}+/gu) ?? []) {
    if (contentTerms(word, 'es').size === 0) continue;
    const alone = (await translator.translate(word, 'es', config.languages.corpus)).toLowerCase().match(/\p{L}+/gu) ?? [];
    if ((await Promise.all(alone.map(inDocs))).some(Boolean)) continue;
    for (const sense of sensesOf(lexicon, word, min)) {
      if (await inDocs(sense)) {
        out.push(sense);
        break;
      }
    }
  }
  return out;
}

const alpha = config.retrieval.hybrid.alpha;
const files = (text: string, vector: Float32Array | undefined, a: number) => docsFiles(store, text, vector, a);

const aloneConfig = { ...config, retrieval: { ...config.retrieval, crossLingual: { ...config.retrieval.crossLingual, bm25: 'translated' as const } } };
const rows: ModeRow[] = [];
for (const q of questions) {
  // Every mode adds to the translation alone (`bm25: translated`, the default before the senses);
  // `(today)` is the default's plan, with the senses the docs prefer since 2026-12-03.
  const today = await questionPlan(config, q, store);
  const { translation, plan } = await questionPlan(aloneConfig, q, store);
  const [vOriginal, vTranslated] = await embedder.embedQueries([q.question, translation ?? q.question]);
  const vector = planVector(plan, q.question, vOriginal!, vTranslated!);
  const with_ = (extra: string[]) => (extra.length ? `${plan.bm25}\n${extra.join(' ')}` : plan.bm25);
  const spanish = q.lang === 'es';
  const best = spanish ? gloss(q.question, 'best') : [];
  const all = spanish ? gloss(q.question, 'all') : [];
  const untranslated = spanish ? gloss(q.question, 'untranslated', translation) : [];
  const repaired = spanish ? await repairs(q.question) : [];
  const chosen = spanish ? await disambiguated(q.question, translation ?? '') : [];
  if (values.show && spanish) console.error(`${q.id}: ${translation ?? ''}\n  + ${best.join(' ')}\n  repaired: ${repaired.join(' ')}\n  disambiguated: ${chosen.join(' ')}`);
  const modes: Record<string, () => Promise<string[]>> = {
    'bm25 (translation alone)': () => files(plan.bm25, undefined, 0),
    'bm25 (today)': () => files(today.plan.bm25, undefined, 0),
    'bm25 + lexicon': () => files(with_(best), undefined, 0),
    'bm25 + senses': () => files(with_(all), undefined, 0),
    'hybrid (translation alone)': () => files(plan.bm25, vector, alpha),
    'hybrid (today)': () => files(today.plan.bm25, vector, alpha),
    'hybrid + lexicon': () => files(with_(best), vector, alpha),
    'hybrid + senses': () => files(with_(all), vector, alpha),
    'hybrid + untranslated': () => files(with_(untranslated), vector, alpha),
    'bm25 + repaired': () => files(with_(repaired), undefined, 0),
    'hybrid + repaired': () => files(with_(repaired), vector, alpha),
    'bm25 + disambiguated': () => files(with_(chosen), undefined, 0),
    'hybrid + disambiguated': () => files(with_(chosen), vector, alpha),
  };
  for (const [mode, run] of Object.entries(modes)) {
    const ranked = await run();
    rows.push({ lang: q.lang, mode, recall: recallAtK(ranked, q.gold.files, k), acc1: accuracyAt1(ranked, q.gold.files) });
    if (values.show && spanish) console.error(`  ${mode}: ${ranked.slice(0, k).map((f) => (q.gold.files.includes(f) ? `[${f}]` : f)).join(' ')}`);
  }
}
console.log(`docs collection, ${questions.length} questions, lexicon of ${lexicon.pairs} message pairs, senses ≥ ${min}`);
for (const line of modeTable(rows, k)) console.log(line);
await close();
process.exit(0);
