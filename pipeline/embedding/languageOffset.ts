import fs from 'node:fs';
import path from 'node:path';
import { findRoot } from '../config/load.ts';
import type { CitaConfig } from '../config/schema.ts';
import type { Language } from '../text/translate.ts';
import { catalogPairs } from '../text/lexicon/catalogs.ts';
import type { MessagePair } from '../text/lexicon/mo.ts';
import type { Embedder } from '../types.ts';

/**
 * An embedder's language offset (#15): the mean, over messages translated by people, of the vector of a message in
 * one language less the vector of the same message in another. A multilingual encoder puts a sentence and its
 * translation near each other, but not on each other: each language's vectors sit a little apart as a whole, and
 * that part of a question's vector is language, not meaning. Taking it out of a Spanish question's vector before it
 * is searched against English passages moves it toward where its English twin would be (removing the language
 * component, Libovický et al. 2020, "On the language neutrality of pre-trained multilingual representations").
 * Estimated from the developer tools' message catalogs the lexicon is trained on (pipeline/text/lexicon/catalogs.ts):
 * nothing of a dataset.
 */
export interface LanguageOffset {
  /** The embedder's id (model and weights): an offset is that model's only. */
  embedder: string;
  from: Language;
  to: Language;
  /** Message pairs it is the mean over. */
  pairs: number;
  vector: number[];
}

/** Messages that read as sentences: 3–30 words, no format directives or line breaks, translated (not copied). */
function sentenceLike(p: MessagePair): boolean {
  const words = p.source.trim().split(/\s+/).length;
  return words >= 3 && words <= 30 && p.source !== p.translation && !/%|\n|\{|<|\$/.test(p.source + p.translation);
}

/** Up to `n` of the sentence-like pairs, spread evenly over them in their order (the same catalogs give the same pairs). Pure. */
export function offsetPairs(pairs: readonly MessagePair[], n: number): MessagePair[] {
  const usable = pairs.filter(sentenceLike);
  if (usable.length <= n) return usable;
  return Array.from({ length: n }, (_, i) => usable[Math.floor((i * usable.length) / n)]!);
}

/** The mean of `from[i] − to[i]`. Pure. */
export function meanDifference(from: readonly Float32Array[], to: readonly Float32Array[]): Float32Array {
  if (from.length !== to.length || from.length === 0) throw new Error(`language offset: ${from.length} and ${to.length} vectors; need as many of each, at least one`);
  const sum = new Float64Array(from[0]!.length);
  from.forEach((f, i) => {
    const t = to[i]!;
    for (let d = 0; d < sum.length; d++) sum[d]! += f[d]! - t[d]!;
  });
  return Float32Array.from(sum, (x) => x / from.length);
}

/** `v` less the offset, scaled back to unit length (the dense side averages unit vectors). Pure. */
export function withoutOffset(v: Float32Array, offset: ArrayLike<number>): Float32Array {
  if (offset.length !== v.length) throw new Error(`language offset: ${offset.length} dimensions for a ${v.length}-dimension vector`);
  const out = Float32Array.from(v, (x, d) => x - offset[d]!);
  const norm = Math.hypot(...out) || 1;
  for (let d = 0; d < out.length; d++) out[d]! /= norm;
  return out;
}

/** Pairs the offset is estimated from: enough for a stable mean (two halves of 1,000 agree to a cosine of 0.998); 22 s wall with onnxruntime on two cores. */
export const OFFSET_PAIRS = 2000;

/** The offset of `embedder` from the language of the pairs' translations (`from`) to that of their sources (`to`), embedded as queries. */
export async function estimateOffset(embedder: Embedder, pairs: readonly MessagePair[], from: Language, to: Language, n = OFFSET_PAIRS, log: (m: string) => void = () => {}): Promise<LanguageOffset> {
  const chosen = offsetPairs(pairs, n);
  if (chosen.length === 0) throw new Error('language offset: no sentence-like message pairs in the catalogs');
  const fromVectors: Float32Array[] = [];
  const toVectors: Float32Array[] = [];
  const batch = 64;
  for (let i = 0; i < chosen.length; i += batch) {
    const b = chosen.slice(i, i + batch);
    fromVectors.push(...(await embedder.embedQueries(b.map((p) => p.translation))));
    toVectors.push(...(await embedder.embedQueries(b.map((p) => p.source))));
    log(`language offset: ${Math.min(i + batch, chosen.length)}/${chosen.length} message pairs embedded`);
  }
  return { embedder: embedder.id, from, to, pairs: chosen.length, vector: Array.from(meanDifference(fromVectors, toVectors)) };
}

/** Where an embedder's offset between two languages is kept: one file per model and pair, in `dir` (`languages.offsets`). */
export function offsetFile(dir: string, embedderId: string, from: Language, to: Language): string {
  const safe = embedderId.replace(/[^\w.-]+/g, '_').slice(0, 120);
  return path.join(dir, `${safe}.${from}-${to}.json`);
}

/** The kept offset, if one was made for this very embedder (its id names the weights). */
export function readOffset(file: string, embedderId: string): LanguageOffset | undefined {
  if (!fs.existsSync(file)) return undefined;
  const o = JSON.parse(fs.readFileSync(file, 'utf8')) as LanguageOffset;
  return o.embedder === embedderId && Array.isArray(o.vector) ? o : undefined;
}

const kept = new Map<string, Promise<LanguageOffset>>();

/**
 * The offset `languages.offsets` keeps for this embedder from `from` to the corpus language, read once per process;
 * made on first use when there is none (the catalogs read from `.cita/cache/lexicon`, where `npm run setup` put them
 * for the lexicon, else downloaded; ~22 s of embedding with onnxruntime), and kept. Rejects when it cannot be made.
 */
export function offsetFor(
  config: Pick<CitaConfig, 'languages'>,
  embedder: Embedder,
  from: Language,
  options: { log?: (m: string) => void; pairs?: () => MessagePair[] } = {},
): Promise<LanguageOffset> {
  const root = findRoot();
  const { log = () => {}, pairs = () => catalogPairs(path.join(root, '.cita/cache/lexicon'), log) } = options;
  const file = offsetFile(path.resolve(root, config.languages.offsets), embedder.id, from, config.languages.corpus);
  let offset = kept.get(file);
  if (!offset) {
    offset = (async () => {
      const found = readOffset(file, embedder.id);
      if (found) return found;
      log(`language offset: none for ${embedder.id} yet; estimating it from the catalogs' message pairs (once)`);
      // The catalogs translate English messages into Spanish: for an English question over Spanish sources, each pair the other way.
      const read = from === 'en' ? pairs().map((p) => ({ source: p.translation, translation: p.source })) : pairs();
      const made = await estimateOffset(embedder, read, from, config.languages.corpus, OFFSET_PAIRS);
      writeOffset(file, made);
      return made;
    })();
    // A failure is not kept: the next question tries again.
    offset.catch(() => kept.delete(file));
    kept.set(file, offset);
  }
  return offset;
}

/** What a route says of the offset a question's vector was searched without, or why it was searched as it is. Pure. */
export function offsetNote(from: Language, to: Language, offset: LanguageOffset | undefined, error?: string): string {
  return offset
    ? `the question's vector searched less the ${from} → ${to} language offset (${offset.pairs} catalog message pairs)`
    : `no ${from} → ${to} language offset (${error ?? 'none made'}): the question's vector searched as it is`;
}

/** The offset for a plan's text in another language, with the note a route gives; an offset that cannot be made is a note, not an error. */
export async function planOffset(config: Pick<CitaConfig, 'languages'>, embedder: Embedder, from: Language, pairs?: () => MessagePair[]): Promise<{ offset?: LanguageOffset; note: string }> {
  try {
    const offset = await offsetFor(config, embedder, from, pairs ? { pairs } : {});
    return { offset, note: offsetNote(from, config.languages.corpus, offset) };
  } catch (err) {
    return { note: offsetNote(from, config.languages.corpus, undefined, err instanceof Error ? err.message : String(err)) };
  }
}

export function writeOffset(file: string, offset: LanguageOffset): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  // Written whole, then renamed: a reader never sees half a file.
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(offset)}\n`);
  fs.renameSync(tmp, file);
}
