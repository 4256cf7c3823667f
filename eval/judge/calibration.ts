import crypto from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Context, VerifiedAnswer } from '../../pipeline/answer/types.ts';
import type { Judge } from './types.ts';

/**
 * The judge's own test (#13 item 5): hand-labelled (answer sentence, cited blocks, supported?) items
 * in English and Spanish, with traps a faithfulness judge must catch. A judge's accuracy on them,
 * per trap and per language, says how far its faithfulness figures can be trusted.
 */

export const TRAPS = ['none', 'paraphrase-es', 'negation', 'wrong-identifier', 'wrong-marker', 'unsupported'] as const;
export type Trap = (typeof TRAPS)[number];

export interface CalibrationBlock {
  marker: number;
  /** Where the text comes from in the corpus (shown in the context's citation line). */
  path: string;
  text: string;
}

export interface CalibrationItem {
  id: string;
  lang: 'en' | 'es';
  trap: Trap;
  /** One answer sentence with its markers, as a generator would write it. */
  sentence: string;
  blocks: CalibrationBlock[];
  /** The label: do the blocks the sentence cites support it? */
  supported: boolean;
}

export const CALIBRATION_PATH = new URL('../../datasets/judge-calibration.jsonl', import.meta.url);

/** Parses and validates the JSONL; a bad line is named by line number and field. */
export function parseCalibration(text: string, source = 'judge-calibration.jsonl'): CalibrationItem[] {
  const items: CalibrationItem[] = [];
  const ids = new Set<string>();
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    const where = `${source}:${i + 1}`;
    let raw: Record<string, unknown>;
    try {
      raw = JSON.parse(line) as Record<string, unknown>;
    } catch (err) {
      throw new Error(`${where}: not JSON (${(err as Error).message}); each line must be one JSON object`);
    }
    const bad = (field: string, want: string) => new Error(`${where}: field "${field}" must be ${want}`);
    if (typeof raw.id !== 'string' || raw.id === '') throw bad('id', 'a non-empty string');
    if (ids.has(raw.id)) throw new Error(`${where}: id "${raw.id}" appears twice; ids must be unique`);
    ids.add(raw.id);
    if (raw.lang !== 'en' && raw.lang !== 'es') throw bad('lang', '"en" or "es"');
    if (!TRAPS.includes(raw.trap as Trap)) throw bad('trap', `one of ${TRAPS.join(', ')}`);
    if (typeof raw.sentence !== 'string' || raw.sentence.trim() === '') throw bad('sentence', 'a non-empty string');
    if (typeof raw.supported !== 'boolean') throw bad('supported', 'true or false');
    if (!Array.isArray(raw.blocks) || raw.blocks.length === 0) throw bad('blocks', 'a non-empty array of {marker, path, text}');
    const blocks = raw.blocks.map((b: unknown, k) => {
      const o = b as Record<string, unknown>;
      if (!Number.isInteger(o?.marker) || (o.marker as number) < 1) throw bad(`blocks[${k}].marker`, 'a positive integer');
      if (typeof o.path !== 'string' || typeof o.text !== 'string' || o.text === '') throw bad(`blocks[${k}]`, 'an object with a string path and a non-empty text');
      return { marker: o.marker as number, path: o.path, text: o.text };
    });
    items.push({ id: raw.id, lang: raw.lang, trap: raw.trap as Trap, sentence: raw.sentence, blocks, supported: raw.supported });
  });
  return items;
}

export function loadCalibration(file: string | URL = CALIBRATION_PATH): CalibrationItem[] {
  return parseCalibration(readFileSync(file, 'utf8'), String(file));
}

/** The item as a generator would have seen it: a context of its blocks, and an answer of its one sentence. */
export function calibrationCase(item: CalibrationItem): { question: string; context: Context; answer: VerifiedAnswer } {
  const blocks = item.blocks.map((b) => {
    const lines = b.text.split('\n').length;
    const citation = { path: b.path, startLine: 1, endLine: lines };
    return {
      marker: b.marker,
      chunk: { id: `${item.id}#${b.marker}`, collection: 'docs' as const, text: b.text, title: b.path, citation, tokens: 0 },
      citation,
      text: b.text,
      scores: { collection: 'docs' as const, fused: 1, bm25: null, dense: null, via: 'search' as const },
    };
  });
  const context: Context = {
    question: item.id,
    language: item.lang,
    budget: { chunks: blocks.length, chars: 1e6 },
    blocks,
    chars: blocks.reduce((s, b) => s + b.text.length, 0),
  };
  const answer: VerifiedAnswer = { text: item.sentence, language: item.lang, generator: 'calibration', citations: [], invalid: [], unsupported: [] };
  return { question: item.id, context, answer };
}

export interface CalibrationVerdict {
  id: string;
  lang: 'en' | 'es';
  trap: Trap;
  expected: boolean;
  /** The judge's verdict: every claim of the sentence supported (and at least one claim). */
  judged: boolean;
  reason: string;
}

/** Runs the judge on every item, one at a time (a model judge holds one context at a time). */
export async function judgeCalibration(judge: Judge, items: CalibrationItem[]): Promise<CalibrationVerdict[]> {
  const out: CalibrationVerdict[] = [];
  for (const item of items) {
    const { question, context, answer } = calibrationCase(item);
    const j = await judge.judge(question, context, answer);
    const judged = j.sentences.length > 0 && j.sentences.every((s) => s.supported);
    out.push({ id: item.id, lang: item.lang, trap: item.trap, expected: item.supported, judged, reason: j.sentences.map((s) => s.reason).join('; ') });
  }
  return out;
}

export interface CalibrationCell {
  trap: Trap | 'all';
  lang: 'en' | 'es' | 'all';
  n: number;
  correct: number;
  /** correct / n; null when n is 0. */
  accuracy: number | null;
}

/** Accuracy per trap × language, per trap, per language and overall. Pure. */
export function calibrationTable(verdicts: readonly Pick<CalibrationVerdict, 'lang' | 'trap' | 'expected' | 'judged'>[]): CalibrationCell[] {
  const cell = (trap: CalibrationCell['trap'], lang: CalibrationCell['lang']): CalibrationCell => {
    const sel = verdicts.filter((v) => (trap === 'all' || v.trap === trap) && (lang === 'all' || v.lang === lang));
    const correct = sel.filter((v) => v.expected === v.judged).length;
    return { trap, lang, n: sel.length, correct, accuracy: sel.length ? correct / sel.length : null };
  };
  const rows: CalibrationCell[] = [];
  for (const trap of [...TRAPS, 'all'] as const) for (const lang of ['en', 'es', 'all'] as const) rows.push(cell(trap, lang));
  return rows.filter((r) => r.n > 0);
}

/** The tuning half (odd ids) and the held-out half (even ids) by the number in the id. */
export function calibrationSplit(item: { id: string }): 'tune' | 'held-out' {
  const n = Number(/(\d+)\s*$/.exec(item.id)?.[1] ?? NaN);
  return n % 2 === 1 ? 'tune' : 'held-out';
}

/** A plain-text table: rows = traps, columns = en, es, all; each cell `acc% (correct/n)`. */
export function formatCalibrationTable(cells: readonly CalibrationCell[]): string {
  const pct = (c: CalibrationCell | undefined) => (c && c.accuracy !== null ? `${(c.accuracy * 100).toFixed(0)}% (${c.correct}/${c.n})` : '–');
  const traps = [...new Set(cells.map((c) => c.trap))];
  const lines = [['trap', 'en', 'es', 'all']];
  for (const t of traps) lines.push([t, ...(['en', 'es', 'all'] as const).map((l) => pct(cells.find((c) => c.trap === t && c.lang === l)))]);
  const w = lines[0]!.map((_, i) => Math.max(...lines.map((l) => l[i]!.length)));
  return lines.map((l) => l.map((x, i) => x.padEnd(w[i]!)).join('  ')).join('\n');
}

/**
 * The judge's calibration for the report header: loaded and judged once per run (55 short items;
 * for an LLM judge, 55 short calls).
 */
export async function calibrateJudge(judge: Judge, file: string | URL = CALIBRATION_PATH) {
  const text = readFileSync(file, 'utf8');
  const items = parseCalibration(text, String(file));
  const verdicts = await judgeCalibration(judge, items);
  const held = verdicts.filter((v) => calibrationSplit(v) === 'held-out');
  return {
    judge: judge.id,
    sha256: crypto.createHash('sha256').update(text).digest('hex'),
    items: items.length,
    cells: calibrationTable(verdicts),
    heldOut: { n: held.length, correct: held.filter((v) => v.expected === v.judged).length },
    blindSpots: [...(judge.blindSpots ?? [])],
  };
}
