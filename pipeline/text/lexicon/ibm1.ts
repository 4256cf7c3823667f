/**
 * A bilingual lexicon learned from parallel text with IBM Model 1 (Brown et al., 1993): t(target word |
 * source word) by expectation–maximisation over sentence pairs, a NULL source word absorbing target
 * words with no counterpart. Trained on software message catalogs (./catalogs.ts), it
 * learns the senses software uses (`salida` → output, `omitir` → skip, `complemento` → plugin), which
 * a general dictionary lacks. Pure and deterministic.
 */

const NULL = '\u0000';

/** Words of a message: letters only, lower case; printf formats, `{placeholders}`, tags and `--options` out. */
export function messageWords(text: string): string[] {
  const cleaned = text.replace(/%[-#0-9.]*[a-zA-Z]|\{[^}]*\}|<[^>]+>|--?[a-z][a-z-]*/g, ' ');
  return (cleaned.match(/\p{L}+/gu) ?? []).map((w) => w.toLowerCase());
}

export interface SentencePair {
  source: string[];
  target: string[];
}

/** t(target | source) after `iterations` EM rounds, uniform at the start. */
export function trainIbm1(pairs: readonly SentencePair[], iterations = 8): Map<string, Map<string, number>> {
  let t = new Map<string, Map<string, number>>();
  const prob = (s: string, e: string) => t.get(s)?.get(e) ?? 1;
  for (let it = 0; it < iterations; it++) {
    const counts = new Map<string, Map<string, number>>();
    const totals = new Map<string, number>();
    for (const { source, target } of pairs) {
      const sources = [...source, NULL];
      for (const e of target) {
        let z = 0;
        for (const s of sources) z += prob(s, e);
        for (const s of sources) {
          const c = prob(s, e) / z;
          let row = counts.get(s);
          if (!row) counts.set(s, (row = new Map()));
          row.set(e, (row.get(e) ?? 0) + c);
          totals.set(s, (totals.get(s) ?? 0) + c);
        }
      }
    }
    t = new Map([...counts].map(([s, row]) => [s, new Map([...row].map(([e, c]) => [e, c / totals.get(s)!]))]));
  }
  t.delete(NULL);
  return t;
}

/** Source word → its likeliest translations (at least `minProb`, best first, at most `top`), for source words seen `minCount` times. */
export type Lexicon = Record<string, [string, number][]>;

export function lexiconOf(t: Map<string, Map<string, number>>, pairs: readonly SentencePair[], options: { minProb?: number; top?: number; minCount?: number } = {}): Lexicon {
  const { minProb = 0.1, top = 4, minCount = 2 } = options;
  const seen = new Map<string, number>();
  for (const p of pairs) for (const s of p.source) seen.set(s, (seen.get(s) ?? 0) + 1);
  const lexicon: Lexicon = {};
  for (const [s, row] of [...t].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if ((seen.get(s) ?? 0) < minCount) continue;
    const best = [...row]
      .filter(([, p]) => p >= minProb)
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, top)
      .map(([e, p]): [string, number] => [e, Math.round(p * 1000) / 1000]);
    if (best.length) lexicon[s] = best;
  }
  return lexicon;
}
