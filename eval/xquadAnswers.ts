/**
 * The extractive generator on XQuAD (Artetxe et al. 2020; `../shared/datasets/xquad`): 1,190 questions
 * asked in English and, the same ones, in Spanish, about 240 English Wikipedia paragraphs, each with the
 * span of the paragraph that answers it. cita's docs datasets give the answer layer 87 question pairs a
 * split, too few to tell a change of a few questions from noise; XQuAD gives fourteen times as many,
 * paired across languages, with a gold span instead of a gold page. Not software docs — factoid
 * questions over encyclopaedic prose — so it is a second check of a change to the answer layer, never
 * the one it is chosen on.
 *
 * Each paragraph is a docs page of its own (`<Article>/paragraph-<n>.md`). A question is answered from
 * a context retrieved by the model, as `cita ask`'s dense side does: its article's paragraphs ranked by
 * cosine with the question as asked, the first `--blocks` (default 4) in rank order — the other
 * paragraphs of the same article are the distractors. A Spanish question is translated by the
 * configured translator, as `ask` does, for the generator's `meaningQuery`. Per question: the gold
 * paragraph in the context, answered, the gold paragraph cited (answered right), and the gold span in the
 * answer's text (answer quoted). Per language, and Spanish − English on the paired questions; with
 * `--sweep`, each further setting against the first, per language (paired permutation test, Holm).
 *
 *   node --import tsx eval/xquadAnswers.ts [--instance pytest] [--blocks 4] [--limit N] [--sweep key=v1,v2]…
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { parseMarkers } from '../pipeline/answer/citations.ts';
import { buildContext, normaliseText } from '../pipeline/answer/context.ts';
import { ExtractiveGenerator, type ExtractiveOptions } from '../pipeline/answer/generators/extractive.ts';
import { extractiveOptions } from '../pipeline/answer/generators/index.ts';
import type { Language } from '../pipeline/answer/types.ts';
import { docChunkText, docHeader } from '../pipeline/chunking/docChunker.ts';
import { chunkId } from '../pipeline/chunking/ids.ts';
import { findRoot } from '../pipeline/config/load.ts';
import { translateQuestion, withoutModelTranslation } from '../pipeline/retrieval/crossLingual.ts';
import type { Chunk } from '../pipeline/types.ts';
import { cosine } from '../pipeline/vectors.ts';
import { settingsOf } from './calibrate-extractive.ts';
import { comparePaired, holmAdjust } from './stats/index.ts';
import { openTargets } from './target.ts';

/** One XQuAD question in both languages, with the paragraph (index into `paragraphs`) and spans that answer it. */
export interface XquadQuestion {
  id: string;
  article: number;
  paragraph: number;
  question: Record<Language, string>;
  /** The English answer spans (the paragraphs are English). */
  answers: string[];
}

export interface XquadSet {
  /** `text`: the English paragraph; `textEs`: its professional Spanish translation (XQuAD's). */
  paragraphs: { article: number; title: string; index: number; text: string; textEs: string }[];
  questions: XquadQuestion[];
}

interface Squad {
  data: { title: string; paragraphs: { context: string; qas: { id: string; question: string; answers: { text: string }[] }[] }[] }[];
}

/**
 * The English and Spanish files (SQuAD v1.1 format, parallel: same articles, paragraphs and question
 * ids in the same order) as one paired set. Throws where they are not parallel. Pure.
 */
export function pairXquad(en: Squad, es: Squad): XquadSet {
  const set: XquadSet = { paragraphs: [], questions: [] };
  if (en.data.length !== es.data.length) throw new Error(`XQuAD: ${en.data.length} English articles, ${es.data.length} Spanish`);
  en.data.forEach((article, a) => {
    article.paragraphs.forEach((p, i) => {
      const twinParagraph = es.data[a]!.paragraphs[i];
      const esQas = twinParagraph?.qas ?? [];
      const paragraph = set.paragraphs.length;
      set.paragraphs.push({ article: a, title: article.title, index: i, text: p.context, textEs: twinParagraph?.context ?? '' });
      p.qas.forEach((q, k) => {
        const twin = esQas[k];
        if (twin?.id !== q.id) throw new Error(`XQuAD: question ${q.id} (${article.title}, paragraph ${i}) has no Spanish twin in the same place`);
        set.questions.push({ id: q.id, article: a, paragraph, question: { en: q.question, es: twin.question }, answers: [...new Set(q.answers.map((x) => x.text))] });
      });
    });
  });
  return set;
}

/** XQuAD's English and Spanish files read in place (`dir`, default `../shared/datasets/xquad` beside the project) and paired. */
export function readXquad(dir: string | undefined, root: string): XquadSet {
  const from = dir ?? path.join(root, '..', 'shared', 'datasets', 'xquad');
  const read = (lang: Language) => {
    const file = path.join(from, `xquad.${lang}.json`);
    if (!fs.existsSync(file)) throw new Error(`no ${file}: pass --xquad <dir> holding xquad.en.json and xquad.es.json`);
    return JSON.parse(fs.readFileSync(file, 'utf8')) as Squad;
  };
  return pairXquad(read('en'), read('es'));
}

/** A paragraph as a docs chunk, in the docs chunker's format (header, blank line, body: the paragraph, one line). */
export function paragraphChunk(p: XquadSet['paragraphs'][number]): Chunk {
  const file = `${p.title}/paragraph-${p.index + 1}.md`;
  const title = p.title.replace(/_/g, ' ');
  const citation = { path: file, startLine: 1, endLine: 1, headings: [title] };
  const text = docChunkText(docHeader(file, [title]), p.text);
  return { id: chunkId('docs', citation, text), collection: 'docs', text, title, citation, tokens: 0 };
}

const fold = (s: string) => normaliseText(s).toLowerCase();

/** 1 when the answer's text holds one of the gold spans (case and spacing aside), else 0. Pure. */
export function spanQuoted(answer: string, spans: readonly string[]): number {
  const text = fold(answer);
  return spans.some((s) => fold(s) !== '' && text.includes(fold(s))) ? 1 : 0;
}

type Setting = Record<string, number | string>;
const METRICS = ['inContext', 'answered', 'right', 'quoted'] as const;
type Metric = (typeof METRICS)[number];
const LABEL: Record<Metric, string> = { inContext: 'gold paragraph in context', answered: 'answered', right: 'answered right (gold cited)', quoted: 'answer quoted (gold span)' };
type Outcome = Record<Metric, number>;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      instance: { type: 'string', default: 'pytest' },
      xquad: { type: 'string' },
      blocks: { type: 'string', default: '4' },
      limit: { type: 'string' },
      set: { type: 'string', multiple: true, default: [] },
      sweep: { type: 'string', multiple: true, default: [] },
    },
  });
  const root = findRoot();
  const set = readXquad(values.xquad, root);
  const questions = values.limit ? set.questions.slice(0, Number(values.limit)) : set.questions;
  const blocks = Number(values.blocks);
  const settings: Setting[] = values.sweep.length ? settingsOf(values.sweep) : [{}];

  const { targets, close } = await openTargets([{ label: 'xquad', instance: values.instance!, overlays: [], overrides: values.set }], root, (m) => process.stderr.write(`${m}\n`));
  const outcomes = new Map<string, Outcome>(); // `${setting}\u0000${lang}\u0000${id}`
  try {
    const t = targets[0]!;
    const corpus = t.config.languages.corpus;
    // The answer layer reads Apertium's translation only: the language model's is not run.
    const apertiumOnly = withoutModelTranslation(t.config);
    const chunks = set.paragraphs.map(paragraphChunk);
    const started = Date.now();
    const vectors: Float32Array[] = [];
    for (let i = 0; i < chunks.length; i += 32) vectors.push(...(await t.embedder.embedPassages(chunks.slice(i, i + 32).map((c) => c.text))));
    const byArticle = new Map<number, number[]>();
    set.paragraphs.forEach((p, i) => byArticle.set(p.article, [...(byArticle.get(p.article) ?? []), i]));
    const base = extractiveOptions(t.config.answer.generator);
    const generators = settings.map((s) => new ExtractiveGenerator({ ...base, ...s } as ExtractiveOptions, t.embedder));
    let done = 0;
    for (const q of questions) {
      for (const lang of ['en', 'es'] as const) {
        const asked = q.question[lang];
        const [v] = await t.embedder.embedQueries([asked]);
        const ranked = byArticle
          .get(q.article)!
          .map((p) => ({ p, dense: cosine(v!, vectors[p]!) }))
          .sort((a, b) => b.dense - a.dense)
          .slice(0, blocks);
        const translation = lang === corpus ? undefined : (await translateQuestion(apertiumOnly, asked, lang, t.translator))?.text;
        const context = buildContext(
          asked,
          lang,
          ranked.map(({ p, dense }) => ({ chunk: chunks[p]!, scores: { collection: 'docs', fused: dense, bm25: null, dense, via: 'search' } })),
          { chunks: blocks, chars: Math.max(...ranked.map(({ p }) => chunks[p]!.text.length)) },
          translation,
          corpus,
        );
        const gold = chunks[q.paragraph]!.citation.path;
        const inContext = context.blocks.some((b) => b.citation.path === gold) ? 1 : 0;
        for (const [i, g] of generators.entries()) {
          const a = await g.generate(asked, context);
          const cited = new Set(parseMarkers(a.text).map((m) => context.blocks[m - 1]?.citation.path));
          const answered = a.noAnswer ? 0 : 1;
          outcomes.set(`${i}\u0000${lang}\u0000${q.id}`, { inContext, answered, right: answered && cited.has(gold) ? 1 : 0, quoted: answered ? spanQuoted(a.text, q.answers) : 0 });
        }
      }
      if (++done % 50 === 0 || done === questions.length) process.stderr.write(`\r${done}/${questions.length}`);
    }
    process.stderr.write(`\n${questions.length} question pairs, ${chunks.length} paragraphs, ${((Date.now() - started) / 1000).toFixed(0)} s\n`);

    const stats = { seed: `${t.config.eval.seed}:xquad`, permutations: t.config.eval.permutations, bootstrap: t.config.eval.bootstrap };
    const get = (i: number, lang: Language, id: string, m: Metric) => outcomes.get(`${i}\u0000${lang}\u0000${id}`)![m];
    const pct = (x: number) => (100 * x).toFixed(1);
    const pp = (x: number) => `${x >= 0 ? '+' : ''}${pct(x)}`;
    const name = (s: Setting) => Object.entries(s).map(([k, v]) => `${k}=${v}`).join(' ') || 'configured';
    console.log(`XQuAD, ${questions.length} question pairs; context: the ${blocks} paragraphs of the question's article closest to it (${t.embedder.id})\n`);
    for (const [i, s] of settings.entries()) {
      console.log(`${name(s)}: Spanish − English on the paired questions (paired permutation test, Holm over the ${METRICS.length} rows)`);
      const rows = METRICS.map((m) => ({ m, c: comparePaired(questions.map((q) => [get(i, 'en', q.id, m), get(i, 'es', q.id, m)] as const), { ...stats, seed: `${stats.seed}:${i}:${m}` })! }));
      const holm = holmAdjust(rows.map((r) => r.c.p));
      console.log(`${'metric'.padEnd(30)}${'en'.padStart(13)}${'es'.padStart(13)}  ${'Δ es − en [95% CI]'.padEnd(26)}${'p Holm'.padStart(8)}`);
      const share = (x: number) => `${pct(x)} (${Math.round(x * questions.length)})`;
      rows.forEach((r, k) => console.log(`${LABEL[r.m].padEnd(30)}${share(r.c.meanA).padStart(13)}${share(r.c.meanB).padStart(13)}  ${`${pp(r.c.diff)} [${pp(r.c.low)}, ${pp(r.c.high)}]`.padEnd(26)}${holm[k]!.toFixed(3).padStart(8)}`));
      console.log('');
    }
    if (settings.length > 1) {
      console.log(`each setting against ${name(settings[0]!)}, per language (paired permutation test, Holm over the table)`);
      const rows = settings.slice(1).flatMap((s, j) =>
        (['en', 'es'] as const).flatMap((lang) =>
          METRICS.filter((m) => m !== 'inContext').map((m) => {
            const pairs = questions.map((q) => [get(0, lang, q.id, m), get(j + 1, lang, q.id, m)] as const);
            // The paired test's discordant pairs: questions B gets and A does not, and the other way.
            const wins = pairs.filter(([a, b]) => b > a).length;
            const losses = pairs.filter(([a, b]) => a > b).length;
            return { s, lang, m, wins, losses, c: comparePaired(pairs, { ...stats, seed: `${stats.seed}:${j + 1}:${lang}:${m}` })! };
          }),
        ),
      );
      const holm = holmAdjust(rows.map((r) => r.c.p));
      console.log(`${'setting'.padEnd(28)}${'lang'.padEnd(5)}${'metric'.padEnd(30)}${'A'.padStart(7)}${'B'.padStart(7)}  ${'Δ B − A [95% CI]'.padEnd(26)}${'+ / −'.padStart(11)}${'p Holm'.padStart(8)}`);
      rows.forEach((r, k) =>
        console.log(`${name(r.s).padEnd(28)}${r.lang.padEnd(5)}${LABEL[r.m].padEnd(30)}${pct(r.c.meanA).padStart(7)}${pct(r.c.meanB).padStart(7)}  ${`${pp(r.c.diff)} [${pp(r.c.low)}, ${pp(r.c.high)}]`.padEnd(26)}${`${r.wins} / ${r.losses}`.padStart(11)}${holm[k]!.toFixed(3).padStart(8)}`),
      );
    }
  } finally {
    await close();
  }
}

if (process.argv[1]?.endsWith('eval/xquadAnswers.ts')) {
  main().then(
    () => process.exit(0),
    (err) => {
      console.error(err instanceof Error ? err.message : String(err));
      process.exit(1);
    },
  );
}
