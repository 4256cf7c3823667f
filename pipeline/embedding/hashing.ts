import type { Embedder } from '../types.ts';

/**
 * A TEST DOUBLE, not a model: deterministic vectors from feature hashing, so unit tests of chunking,
 * stores and retrieval run in milliseconds without model files. Texts that share words or character
 * trigrams get similar vectors; nothing more (no synonyms, no cross-language matching).
 *
 * Features: lowercased word tokens and the character trigrams of each word (`#wo`, `wor`, `ord`, `rd#`),
 * each hashed (FNV-1a) into one of `dims` buckets with a hashed sign, then L2-normalised.
 * Queries and passages are embedded alike (there is no prefix to learn from).
 */

export interface HashingEmbedderOptions {
  /** Default 384, the dimension of the real model. */
  dims?: number;
  /** Default 512, the window of the real model. */
  window?: number;
}

/** Tokens the real tokenizer adds around every passage: `<s>`, `▁passage`, `:`, `</s>`. */
export const HASHING_PREFIX_TOKENS = 4;

const TOKEN = /[\p{L}\p{N}_]+|[^\s\p{L}\p{N}_]/gu;
const WORD = /^[\p{L}\p{N}_]/u;

/** 32-bit FNV-1a over UTF-16 code units; stable across platforms and runs. */
export function fnv1a(s: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

export class HashingEmbedder implements Embedder {
  readonly dims: number;
  readonly window: number;
  readonly id: string;

  constructor(options: HashingEmbedderOptions = {}) {
    this.dims = options.dims ?? 384;
    this.window = options.window ?? 512;
    if (!Number.isInteger(this.dims) || this.dims < 1) throw new Error(`hashing: dims must be a positive integer, got ${this.dims}`);
    this.id = `hashing-${this.dims}`;
  }

  /** Words plus punctuation marks plus the prefix and special tokens: an approximation, but deterministic. */
  countTokens(text: string): number {
    return (text.match(TOKEN)?.length ?? 0) + HASHING_PREFIX_TOKENS;
  }

  embedQueries(texts: string[]): Promise<Float32Array[]> {
    return Promise.resolve(texts.map((t) => this.vector(t)));
  }

  embedPassages(texts: string[]): Promise<Float32Array[]> {
    return Promise.resolve(texts.map((t) => this.vector(t)));
  }

  /** The vector of one text (synchronous; the async methods only wrap it). */
  vector(text: string): Float32Array {
    const v = new Float32Array(this.dims);
    for (const token of text.toLowerCase().match(TOKEN) ?? []) {
      if (!WORD.test(token)) continue;
      this.add(v, `w:${token}`, 1);
      const padded = `#${token}#`;
      for (let i = 0; i + 3 <= padded.length; i++) this.add(v, `t:${padded.slice(i, i + 3)}`, 0.5);
    }
    let norm = 0;
    for (const x of v) norm += x * x;
    // A text without words (empty, punctuation only) still gets a unit vector, as the real model
    // would (it sees the prefix): stores and cosine scores never meet a zero vector.
    if (norm === 0) {
      this.add(v, 'empty', 1);
      norm = 1;
    }
    const inv = 1 / Math.sqrt(norm);
    for (let i = 0; i < v.length; i++) v[i]! *= inv;
    return v;
  }

  private add(v: Float32Array, feature: string, weight: number): void {
    const h = fnv1a(feature);
    // A second hash picks the sign, so collisions cancel on average instead of piling up.
    const sign = fnv1a(feature, 0x9747b28c) & 1 ? 1 : -1;
    v[h % this.dims]! += sign * weight;
  }

  async close(): Promise<void> {}
}
