import path from 'node:path';
import type { Chunk, ChunkingOptions, Citation, Document, TokenCounter } from '../types.ts';
import { chunkId } from './ids.ts';
import { parseAsciidocSections } from './sections/asciidoc.ts';
import { parseMarkdownSections } from './sections/markdown.ts';
import { parsePlainTextSections } from './sections/plaintext.ts';
import { parseRstSections } from './sections/rst.ts';
import type { Section, SectionParser } from './sections/section.ts';
import {
  cannotHold,
  checkBudget,
  chunkBudget,
  countNewlines,
  cutAtCharacters,
  cutMessage,
  packToBudget,
  rateSearch,
  refineAtom,
  splitAhead,
  trimPiece,
  type Atom,
  type CutWarning,
  type Splitter,
  type TokenEstimate,
} from './budget.ts';
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

export function chunkDoc(doc: Document, counter: TokenCounter, options: ChunkingOptions, onWarning?: CutWarning): Chunk[] {
  const parse = SECTION_PARSERS[doc.format];
  if (!parse) {
    throw new Error(
      `docs chunking: ${doc.path}: no section parser for format "${doc.format}"; supported: ${Object.keys(SECTION_PARSERS).join(', ')}`,
    );
  }
  const maxTokens = chunkBudget(options, counter, doc.path);
  const estimate: TokenEstimate = { tokensPerChar: 0.3 };
  const chunks = parse(doc.text).flatMap((s) => chunkSection(doc.path, s, counter, maxTokens, estimate, onWarning));
  return checkBudget(chunks, maxTokens, 'docs');
}

/**
 * A section is counted whole when its estimate is below this many budgets. Estimates learnt from
 * prose can be 4x too high for whitespace-padded tables; a section skipped here that does fit almost
 * always still ends up as one chunk, because a piece that is not full enough is grown (see `rateSearch`).
 */
const MIGHT_FIT = 1.25;

/**
 * The chunks of one section: whole if it fits, else pieces cut at the coarsest boundary that works.
 * Counting is the expensive part (the tokenizer runs at a few µs per character), so pieces are
 * sized by an estimate, tokens per character, learnt from the last exact count (`rateSearch`), and
 * each piece is counted exactly once or a few times; the section is counted whole only when it might fit.
 */
export function chunkSection(
  file: string,
  section: Section,
  counter: TokenCounter,
  maxTokens: number,
  estimate: TokenEstimate = { tokensPerChar: 0.3 },
  onWarning?: CutWarning,
): Chunk[] {
  const header = docHeader(file, section.headings);
  const title = section.headings.length > 0 ? section.headings.join(' > ') : path.posix.basename(file);
  const body = section.body;
  const tokensOf = (raw: string) => counter.countTokens(docChunkText(header, trimPiece(raw).body));
  const where = `${file}:${section.startLine}-${section.endLine}`;

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

  const words: Splitter = (text) => {
    onWarning?.(cutMessage(where, maxTokens, 'words'));
    return splitAtWords(text);
  };
  // Last resort, for a single word longer than the budget (a huge URL or blob): reported, never silent.
  // A code point that does not fit alone becomes its own part, which the packing reports.
  const characters: Splitter = (text) => {
    onWarning?.(cutMessage(where, maxTokens, 'characters'));
    const parts = cutAtCharacters(text, { budget: maxTokens, count: (_, s, e) => tokensOf(text.slice(s, e)), rate: estimate.tokensPerChar });
    return parts.map((p) => text.slice(p.start, p.end));
  };

  // Atoms by estimate, without counting: text that looks too big is cut at sentences, then lines.
  // Words are cut only when an exact count demands it (in the packing).
  const cheap = new Set<Splitter>([splitProse, splitAtLines]);
  const atoms: Atom[] = [];
  let offset = 0;
  for (const unit of splitUnits(body)) {
    const lines = [splitAtLines, words, characters];
    const atom: Atom = { offset, text: unit.text, finer: unit.kind === 'prose' ? [splitProse, ...lines] : lines };
    // Pushed one by one: a spread call takes ~100k arguments at most, and a 1 MB unit can have more atoms.
    for (const a of splitAhead(atom, (a) => guess(a.text.length) > maxTokens, (s) => cheap.has(s))) atoms.push(a);
    offset += unit.text.length;
  }

  const chunks: Chunk[] = [];
  const endOf = (j: number) => (j < atoms.length ? atoms[j]!.offset : body.length);
  packToBudget({
    budget: maxTokens,
    size: () => atoms.length,
    search: rateSearch({ budget: maxTokens, atoms, length: body.length, headerTokens, estimate, measure: (s, e) => tokensOf(body.slice(s, e)) }),
    refine: (i) => refineAtom(atoms, i),
    lastResort: (i) => {
      throw cannotHold('docs', file, maxTokens, atoms[i]!.text);
    },
    emit: (i, run) => {
      const chunk = chunkOf(atoms[i]!.offset, endOf(run.end), run.tokens);
      if (chunk) chunks.push(chunk);
    },
  });
  return chunks;
}
