import path from 'node:path';
import type { Chunk, ChunkingOptions, Citation, Document, TokenCounter } from '../types.ts';
import { chunkId } from './ids.ts';
import { parseAsciidocSections } from './sections/asciidoc.ts';
import { parseMarkdownSections } from './sections/markdown.ts';
import { parsePlainTextSections } from './sections/plaintext.ts';
import { parseRstSections } from './sections/rst.ts';
import type { Section, SectionParser } from './sections/section.ts';
import { codePointStarts, longestFittingPrefix } from './prefixFit.ts';
import { splitAtLines, splitAtWords, splitProse, splitUnits } from './sentences.ts';

/**
 * Doc chunking: one chunk per section, or, when a section is longer than the token budget, pieces
 * cut between paragraphs / code blocks, else between sentences, else between lines, else between
 * words. Every piece starts with the same header (file and heading path), so its embedding stays
 * on topic and its citation keeps its context. Nothing is truncated: long sections used to lose
 * their tails at the model window (DESIGN lesson 3).
 */

/** Section parsers by `Document.format` (the values `sources/classify.ts` assigns). */
export const SECTION_PARSERS: Record<string, SectionParser> = {
  markdown: parseMarkdownSections,
  mdx: parseMarkdownSections,
  rst: parseRstSections,
  asciidoc: parseAsciidocSections,
  text: parsePlainTextSections,
};

const HEADING_SEPARATOR = ' › ';

/** The first line of every chunk of a section: `doc/en/how-to/skipping.rst › How to use skip and xfail › Skipping test functions`. */
export function docHeader(file: string, headings: string[]): string {
  return [file, ...headings].join(HEADING_SEPARATOR);
}

/** The embedded text of a chunk: header, blank line, body. */
export function docChunkText(header: string, body: string): string {
  return `${header}\n\n${body}`;
}

/** Reported when a piece had to be cut below the line level; the text is all kept, but a word or sentence is split. */
export type ChunkWarning = (message: string) => void;

export function chunkDoc(doc: Document, counter: TokenCounter, options: ChunkingOptions, onWarning?: ChunkWarning): Chunk[] {
  const parse = SECTION_PARSERS[doc.format];
  if (!parse) {
    throw new Error(
      `docs chunking: ${doc.path}: no section parser for format "${doc.format}"; supported: ${Object.keys(SECTION_PARSERS).join(', ')}`,
    );
  }
  const maxTokens = Math.min(options.maxTokens, counter.window);
  const estimate: TokenEstimate = { tokensPerChar: 0.3 };
  const chunks = parse(doc.text).flatMap((s) => chunkSection(doc.path, s, counter, maxTokens, estimate, onWarning));
  for (const c of chunks) {
    if (c.tokens > maxTokens) {
      throw new Error(
        `docs chunking bug: ${c.citation.path}:${c.citation.startLine}-${c.citation.endLine} has ${c.tokens} tokens, more than the budget ${maxTokens}`,
      );
    }
  }
  return chunks;
}

/**
 * Counting is the expensive part (the tokenizer runs at a few µs per character), so pieces are
 * sized by an estimate, tokens per character, learnt from the last exact count, and each piece is
 * counted exactly once or a few times; the section is counted whole only when it might fit.
 */
export interface TokenEstimate {
  tokensPerChar: number;
}

/**
 * A section is counted whole when its estimate is below this many budgets. Estimates learnt from
 * prose can be 4x too high for whitespace-padded tables; a section skipped here that does fit almost
 * always still ends up as one chunk, because a piece that is not full enough is grown (GOOD_FILL).
 */
const MIGHT_FIT = 1.25;
/**
 * Pieces are packed to this share of the budget by estimate, so few overshoot and need a recount;
 * a piece counted below GOOD_FILL is grown (the estimate was pessimistic). On the pytest docs these
 * values count 1.13x the text instead of 1.33x (at 1 and 0.8), for 3% more chunks.
 */
const TARGET_FILL = 0.9;
const GOOD_FILL = 0.7;

/** A run of the section body, cut where allowed; `finer` are the cuts to try if it is still too big. */
interface Atom {
  offset: number;
  text: string;
  finer: Splitter[];
}

/** A piece's body: leading blank lines and trailing whitespace dropped (first-line indentation kept). */
function trimPiece(raw: string): { lead: number; body: string } {
  const lead = /^(?:[ \t]*\r?\n)*/.exec(raw)![0].length;
  return { lead, body: raw.slice(lead).trimEnd() };
}

function countNewlines(text: string, from = 0, to = text.length): number {
  let n = 0;
  for (let i = text.indexOf('\n', from); i >= 0 && i < to; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

type Splitter = (text: string) => string[];

/** The chunks of one section: whole if it fits, else pieces cut at the coarsest boundary that works. */
export function chunkSection(
  file: string,
  section: Section,
  counter: TokenCounter,
  maxTokens: number,
  estimate: TokenEstimate = { tokensPerChar: 0.3 },
  onWarning?: ChunkWarning,
): Chunk[] {
  const header = docHeader(file, section.headings);
  const title = section.headings.length > 0 ? section.headings.join(' > ') : path.posix.basename(file);
  const body = section.body;
  const tokensOf = (raw: string) => counter.countTokens(docChunkText(header, trimPiece(raw).body));

  // Line of a chunk's start, counted on from the last one: chunks come in order, so the body is scanned once.
  const lineAt = { offset: 0, line: section.startLine };
  const chunkOf = (start: number, end: number, tokens: number): Chunk | undefined => {
    const { lead, body: text } = trimPiece(body.slice(start, end));
    if (text.trim() === '') return undefined;
    lineAt.line += countNewlines(body, lineAt.offset, start + lead);
    lineAt.offset = start + lead;
    const startLine = lineAt.line;
    const citation: Citation = {
      path: file,
      startLine,
      endLine: startLine + countNewlines(text),
      headings: [...section.headings],
    };
    const full = docChunkText(header, text);
    return { id: chunkId('docs', citation, full), collection: 'docs', text: full, title, citation, tokens };
  };

  // Counted whole only if it might fit: counting a section far over the budget would be wasted.
  let whole: number | undefined;
  if (Math.ceil((header.length + body.length) * estimate.tokensPerChar) <= MIGHT_FIT * maxTokens) {
    whole = tokensOf(body);
    if (whole <= maxTokens) return [chunkOf(0, body.length, whole)].filter((c) => c !== undefined);
  }
  const headerTokens = counter.countTokens(docChunkText(header, ''));
  if (whole !== undefined) estimate.tokensPerChar = (whole - headerTokens) / body.length;
  const guess = (chars: number) => headerTokens + Math.ceil(chars * estimate.tokensPerChar);
  if (headerTokens >= maxTokens) {
    throw new Error(
      `docs chunking: ${file}: the header "${header}" alone takes ${headerTokens} tokens, leaving no room under maxTokens ${maxTokens}; raise chunking.maxTokens`,
    );
  }

  const warnWords: Splitter = (text) => {
    onWarning?.(`${file}:${section.startLine}-${section.endLine}: a line longer than ${maxTokens} tokens was cut between words`);
    return splitAtWords(text);
  };
  // Last resort, for a single word longer than the budget (a huge URL or blob): reported, never silent.
  // Cut between code points at the longest prefix that fits, found with counts of about one chunk.
  const splitAtCharacters: Splitter = (text) => {
    onWarning?.(`${file}:${section.startLine}-${section.endLine}: a word longer than ${maxTokens} tokens was cut between characters`);
    const starts = codePointStarts(text);
    const points = starts.length - 1;
    const parts: string[] = [];
    let rate = estimate.tokensPerChar;
    for (let i = 0; i < points; ) {
      const count = (n: number) => tokensOf(text.slice(starts[i]!, starts[i + n]!));
      const fit = longestFittingPrefix(points - i, count, maxTokens, headerTokens, (maxTokens - headerTokens) / rate);
      // Not even one code point fits: it becomes its own part, which the packing loop reports.
      const n = fit?.length ?? 1;
      if (fit && fit.tokens > headerTokens) rate = (fit.tokens - headerTokens) / n;
      parts.push(text.slice(starts[i]!, starts[i + n]!));
      i += n;
    }
    return parts;
  };

  // Atoms by estimate, without counting: text that looks too big is cut at sentences, then lines.
  // Words are cut only when an exact count demands it (in the packing loop below).
  const cheap = new Set<Splitter>([splitProse, splitAtLines]);
  const cut = (text: string, offset: number, splitters: Splitter[]): Atom[] => {
    const [split, ...finer] = splitters;
    if (!split || !cheap.has(split) || guess(text.length) <= maxTokens) return [{ offset, text, finer: splitters }];
    const parts = split(text);
    if (parts.length <= 1) return cut(text, offset, finer);
    return parts.flatMap((part) => {
      const atoms = cut(part, offset, finer);
      offset += part.length;
      return atoms;
    });
  };
  const atoms: Atom[] = [];
  let offset = 0;
  for (const unit of splitUnits(body)) {
    const lines = [splitAtLines, warnWords, splitAtCharacters];
    // Pushed one by one: a spread call takes ~100k arguments at most, and a 1 MB unit can have more atoms.
    for (const atom of cut(unit.text, offset, unit.kind === 'prose' ? [splitProse, ...lines] : lines)) atoms.push(atom);
    offset += unit.text.length;
  }

  const endOf = (j: number) => (j < atoms.length ? atoms[j]!.offset : body.length);
  const charsOf = (i: number, j: number) => endOf(j) - atoms[i]!.offset;
  // Greatest end (exclusive, below `ceiling`) such that atoms i..end-1 are guessed to fit; at least one atom.
  const extend = (i: number, from: number, ceiling: number) => {
    let j = Math.max(from, i + 1);
    while (j + 1 < ceiling && j < atoms.length && guess(charsOf(i, j + 1)) <= TARGET_FILL * maxTokens) j++;
    return j;
  };

  const chunks: Chunk[] = [];
  let i = 0;
  while (i < atoms.length) {
    let j = extend(i, i + 1, Infinity);
    let tokens = tokensOf(body.slice(atoms[i]!.offset, endOf(j)));
    // The longest run counted that fits and the shortest counted that does not: the search stays
    // between them, so it ends.
    let fit: { j: number; tokens: number } | undefined;
    let ceiling = Infinity;
    for (;;) {
      const learnt = Math.max(tokens - headerTokens, 1) / charsOf(i, j);
      if (tokens <= maxTokens) fit = { j, tokens };
      else ceiling = j;
      if (tokens > maxTokens && j > i + 1) {
        // Give back atoms worth the excess, judged by what this count taught.
        estimate.tokensPerChar = learnt;
        const excessChars = (tokens - maxTokens) / learnt;
        let k = j - 1;
        while (k > (fit?.j ?? i + 1) && endOf(j) - endOf(k) < excessChars) k--;
        if (k === fit?.j) {
          ({ j, tokens } = fit);
          break;
        }
        j = k;
      } else if (tokens < GOOD_FILL * maxTokens && j < atoms.length) {
        // The estimate was pessimistic: learn from this count and take more.
        estimate.tokensPerChar = learnt;
        const grown = extend(i, j, ceiling);
        if (grown === j) break;
        j = grown;
      } else break;
      tokens = tokensOf(body.slice(atoms[i]!.offset, endOf(j)));
    }
    if (tokens > maxTokens) {
      // One atom alone is too big: cut it at the next finer boundary that splits it, and pack again from here.
      const atom = atoms[i]!;
      let parts: string[] = [];
      while (parts.length <= 1 && atom.finer.length > 0) {
        const [split, ...rest] = atom.finer;
        atom.finer = rest;
        parts = split!(atom.text);
      }
      if (parts.length <= 1) {
        throw new Error(`docs chunking: ${file}: maxTokens ${maxTokens} cannot hold ${JSON.stringify(atom.text.slice(0, 80))} after the header`);
      }
      let at = atom.offset;
      const pieces = parts.map((part) => {
        const piece: Atom = { offset: at, text: part, finer: atom.finer };
        at += part.length;
        return piece;
      });
      // `atoms.splice(i, 1, ...pieces)`, without spreading the pieces into arguments (see above).
      const tail = atoms.splice(i + 1);
      atoms.length = i;
      for (const piece of pieces) atoms.push(piece);
      for (const atom of tail) atoms.push(atom);
      continue;
    }
    const chunk = chunkOf(atoms[i]!.offset, endOf(j), tokens);
    if (chunk) chunks.push(chunk);
    i = j;
  }
  return chunks;
}
