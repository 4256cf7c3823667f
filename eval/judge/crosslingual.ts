import type { Context, VerifiedAnswer } from '../../pipeline/answer/types.ts';
import type { Embedder } from '../../pipeline/types.ts';
import { contextFingerprint } from './fingerprint.ts';
import { claimsOf } from './sentences.ts';
import type { Judge, Judgement, SentenceVerdict } from './types.ts';

/**
 * The offline judge, cross-lingual (#13 item 5). A claim is supported by the blocks it cites when
 *  1. every identifier it names (API, option, fixture, parameter) appears verbatim in a cited block:
 *     identifiers are not translated, so this holds in Spanish as in English;
 *  2. some sentence of a cited block means the same (cosine similarity of the multilingual model's
 *     embeddings ≥ `threshold`), so a Spanish paraphrase of an English block can pass;
 *  3. that sentence and the claim agree on negation (one says "not"/"no"/"sin", the other does not);
 *  4. no uncited block matches it clearly better (the marker points at the wrong block).
 * What it cannot see is in `OFFLINE_BLIND_SPOTS`, and in the report header beside its accuracy.
 */

export const OFFLINE_BLIND_SPOTS = [
  'an identifier written as a plain word and not beside a code noun ("…, package y global")',
  'a swapped name the cited block also holds (--ff where --lf is meant)',
  'a wrong detail (number, version, value) in a sentence otherwise close to the block',
  'meaning beyond similarity: scope, conditions, implication across sentences',
  'negation scope: a "not" elsewhere in the closest cited sentence makes it disagree with a faithful claim',
  'it may reject a faithful sentence whose ordinary word sits beside a code noun ("la función principal")',
] as const;

/** Nouns that name code; the word beside one is a name ("the caplog fixture", "el fixture tmpdir"). */
const CODE_NOUNS = /^(fixtures?|methods?|métodos?|options?|opci[oó]n|opciones|decorators?|decorador(?:es)?|parameters?|par[aá]metros?|flags?|hooks?|markers?|functions?|funci[oó]n|clases?|class(?:es)?)$/i;
const STOP = new Set(
  'the a an and or of to in on with for by this that is are be it its use using del de la el los las un una y o en con para por se su sus que al lo como'.split(' '),
);

/** A token that looks like code: dotted, snake_case, `--flag`/`-x`, `@decorator`, `name=value`, `call()`, camelCase, or in backticks. */
const CODE_TOKEN = /^(?:@|--?)?[A-Za-z_][\w.-]*(?:=\S+)?$/;
function looksLikeCode(t: string): boolean {
  return /[._=]|^--?[A-Za-z]|^@|[a-z][A-Z]|^[A-Z][a-z]+[A-Z]/.test(t);
}

/** Strips what a sentence wraps a name in: markers, backticks, quotes, a trailing call or punctuation. */
function cleanToken(t: string): string {
  return t
    .replace(/\[\d+(?:\s*,\s*\d+)*\]/g, '')
    .replace(/^[`'"(¿¡]+|[`'",;:!?)\]]+$/g, '')
    .replace(/\(\)$/, '')
    .replace(/\.$/, '')
    .replace(/^@/, '');
}

/**
 * The identifiers a sentence names: code-looking tokens, backticked spans, and the word beside a code
 * noun (before it in English, after it in Spanish; stop words aside). Pure.
 */
export function identifiersOf(sentence: string, lang: 'en' | 'es' = 'en'): string[] {
  const text = sentence.replace(/\[\d+(?:\s*,\s*\d+)*\]/g, ' ');
  const out = new Set<string>();
  for (const m of text.matchAll(/`([^`]+)`/g)) out.add(cleanToken(m[1]!.trim()));
  const words = text.split(/\s+/).filter(Boolean);
  words.forEach((raw, i) => {
    // A call with arguments, e.g. @pytest.mark.xfail(run=False): the name and each argument.
    const call = /^@?([A-Za-z_][\w.]*)\(([^()]*)\)[.,;:]?$/.exec(raw);
    if (call) {
      out.add(call[1]!);
      for (const arg of call[2]!.split(',')) if (arg.trim()) out.add(arg.trim());
      return;
    }
    const t = cleanToken(raw);
    if (!t || !CODE_TOKEN.test(t)) return;
    if (looksLikeCode(t)) out.add(t);
    else if (/^[a-z_][a-z0-9_]*$/.test(t) && !STOP.has(t.toLowerCase())) {
      // English puts the name before the noun ("the caplog fixture", "the setenv and delenv methods"),
      // Spanish after it ("el fixture tmpdir", "los métodos putenv y unsetenv").
      const at = (k: number) => cleanToken(words[k] ?? '');
      const named =
        lang === 'en'
          ? CODE_NOUNS.test(at(i + 1)) || (/^(and|or)$/.test(at(i + 1)) && CODE_NOUNS.test(at(i + 3)))
          : CODE_NOUNS.test(at(i - 1)) || (/^(y|o)$/.test(at(i - 1)) && CODE_NOUNS.test(at(i - 3)));
      if (named) out.add(t);
    }
  });
  return [...out].filter((t) => t.length >= 2);
}

/** Whether `id` occurs in `text` as a whole name (not inside a longer one: `skip` is not in `skipif`). */
export function hasIdentifier(text: string, id: string): boolean {
  const esc = id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\w-])${esc}(?![\\w-])`).test(text) || new RegExp(`(?<![\\w-])${esc}(?![\\w-])`, 'i').test(text.replace(/``/g, ''));
}

const NEGATION = /\b(?:not|no|never|cannot|can't|don't|doesn't|isn't|aren't|won't|shouldn't|without|neither|nor|nunca|jam[aá]s|ni|sin|tampoco|ning[uú]n[oa]?|nada)\b|n't\b/iu;

/** Whether a sentence carries a negation cue, English or Spanish (Spanish `no` included). Pure. */
export function isNegated(text: string): boolean {
  return NEGATION.test(text.replace(/"[^"]*"|'[^']*'/g, ' '));
}

/** The units a block is compared in: its prose sentences and its code paragraphs, each whole. */
export function blockUnits(text: string): string[] {
  const seg = new Intl.Segmenter('en', { granularity: 'sentence' });
  const out: string[] = [];
  for (const para of text.split(/\n\s*\n/)) {
    const p = para.trim();
    if (!p || /^\.\. code-block::/.test(p)) continue;
    if (/^ {4}|^\s*[$>]/m.test(para) && !/[a-z]\.\s/.test(p)) {
      out.push(p);
      continue;
    }
    for (const s of seg.segment(p.replace(/\s*\n\s*/g, ' '))) if (s.segment.trim()) out.push(s.segment.trim());
  }
  return out;
}

/** What the claim is compared on: its words, without the markers. */
export function claimText(sentence: string): string {
  return sentence.replace(/\[\d+(?:\s*,\s*\d+)*\]/g, ' ').replace(/\s+/g, ' ').trim();
}

export interface ClaimEvidence {
  /** Markers cited. */
  markers: number[];
  /** Cited blocks' texts. */
  cited: string[];
  /** Best similarity to a unit of a cited block, and that unit; null when nothing is cited. */
  best: { sim: number; unit: string } | null;
  /** Best similarity to a unit of an uncited block (−1 if none). */
  bestOther: number;
}

/** The verdict from the measured evidence. Pure, so each check is testable without a model. */
export function decideClaim(claim: string, lang: 'en' | 'es', e: ClaimEvidence, threshold: number, margin: number): { supported: boolean; reason: string } {
  if (e.markers.length === 0 || e.cited.length === 0 || !e.best) return { supported: false, reason: 'cites no block' };
  const missing = identifiersOf(claim, lang).filter((id) => !e.cited.some((t) => hasIdentifier(t, id)));
  if (missing.length) return { supported: false, reason: `identifier not in the cited blocks: ${missing.join(', ')}` };
  const sim = e.best.sim.toFixed(2);
  if (e.bestOther > e.best.sim + margin) return { supported: false, reason: `an uncited block matches better (${e.bestOther.toFixed(2)} vs ${sim}): wrong marker` };
  if (e.best.sim < threshold) return { supported: false, reason: `no cited sentence close enough (similarity ${sim} < ${threshold})` };
  if (isNegated(claim) !== isNegated(e.best.unit)) return { supported: false, reason: `negation differs from the closest cited sentence (similarity ${sim})` };
  return { supported: true, reason: `similarity ${sim}, identifiers and negation agree` };
}

const cosine = (a: Float32Array, b: Float32Array) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};

/**
 * The cross-lingual offline judge. `threshold` and `margin` were set on the calibration set's tuning
 * half (odd ids) only; `eval/judge/calibrate.ts` reports the held-out half apart.
 */
export class CrossLingualJudge implements Judge {
  readonly id: string;
  readonly blindSpots = OFFLINE_BLIND_SPOTS;
  private readonly cache = new Map<string, Float32Array>();
  constructor(
    private readonly embedder: Embedder,
    private readonly threshold = 0.89,
    private readonly margin = 0.02,
    /** Vectors kept across questions; past it the older half is dropped. */
    private readonly cacheLimit = 5000,
  ) {
    this.id = `offline:xling@${threshold}`;
  }

  /** Embeds as queries on both sides: similarity of two statements is symmetric (e5's advice). */
  private async embed(texts: string[]): Promise<Float32Array[]> {
    const todo = [...new Set(texts.filter((t) => !this.cache.has(t)))];
    if (todo.length) (await this.embedder.embedQueries(todo)).forEach((v, i) => this.cache.set(todo[i]!, v));
    const out = texts.map((t) => this.cache.get(t) ?? (() => { throw new Error(`judge: no embedding for a text of ${t.length} characters`); })());
    // Bounded, oldest first; only after this call's vectors are taken (evicting first lost texts it still needed).
    if (this.cache.size > this.cacheLimit) for (const k of [...this.cache.keys()].slice(0, Math.ceil(this.cacheLimit / 2))) this.cache.delete(k);
    return out;
  }

  async judge(_question: string, context: Context, answer: VerifiedAnswer): Promise<Judgement> {
    const claims = claimsOf(context, answer);
    const units = new Map(context.blocks.map((b) => [b.marker, blockUnits(b.text)]));
    const all = [...new Set([...units.values()].flat())];
    const texts = claims.map((c) => claimText(c.sentence));
    const vecs = await this.embed([...texts, ...all]);
    const vecOf = new Map(all.map((u, i) => [u, vecs[texts.length + i]!]));
    const sentences: SentenceVerdict[] = claims.map((c, i) => {
      const v = vecs[i]!;
      let best: ClaimEvidence['best'] = null;
      let bestOther = -1;
      for (const [marker, us] of units) {
        for (const u of us) {
          const sim = cosine(v, vecOf.get(u)!);
          if (c.markers.includes(marker)) {
            if (!best || sim > best.sim) best = { sim, unit: u };
          } else bestOther = Math.max(bestOther, sim);
        }
      }
      const d = decideClaim(c.sentence, answer.language, { markers: c.markers, cited: c.evidence, best, bestOther }, this.threshold, this.margin);
      return { sentence: c.sentence, markers: c.markers, supported: d.supported, reason: d.reason };
    });
    return { judge: this.id, sentences, contextFingerprint: contextFingerprint(context) };
  }
}
