import type { Chunk, Citation } from '../types.ts';
import type { BlockScores, Context, ContextBlock, ContextBudget, Language } from './types.ts';

/**
 * The context: the blocks a generator reads and a judge receives, built once from ranked candidates
 * and the budget, then deeply frozen. Nobody downstream can widen or edit what was shown (DESIGN
 * lesson 5: a judge that saw different evidence than the generator marked right answers unsupported).
 */

/** A ranked candidate: a chunk and why it ranked. */
export interface ContextCandidate {
  chunk: Chunk;
  scores: BlockScores;
}

/** Appended where a line longer than the budget was cut between words; not source text. */
export const CUT_MARK = ' …';

/**
 * Where a chunk's body starts in its text, by the format each chunker writes:
 * - docs (`docChunkText`): `path › headings`, a blank line, the body;
 * - issues (`issueChunkText`): the two header lines, a blank line, the body (absent when empty);
 * - code (`ChunkWriter`): `# path` plus scope lines (enclosing signatures, `(continued)`,
 *   `(line N, part k)`), then the cited lines verbatim, so the body is the last
 *   `endLine - startLine + 1` lines of the text (the header depth varies, the body's does not).
 * A text that does not follow its format gets offset 0: everything is body, and checks decide.
 */
export function bodyOffset(chunk: Pick<Chunk, 'collection' | 'text' | 'citation'>): number {
  const { text } = chunk;
  if (chunk.collection === 'code') {
    const bodyLines = chunk.citation.endLine - chunk.citation.startLine + 1;
    const headerLines = text.split('\n').length - bodyLines;
    if (headerLines < 1) return 0;
    let at = 0;
    for (let i = 0; i < headerLines; i++) {
      at = text.indexOf('\n', at) + 1;
      if (at === 0) return 0;
    }
    return at;
  }
  const blank = text.indexOf('\n\n');
  if (blank >= 0) return blank + 2;
  // An issue unit with an empty body is its header alone.
  return chunk.collection === 'issues' ? text.length : 0;
}

/** A block's (or chunk's) text split into the chunker's header and the body its citation's lines hold. */
export function splitBlockText(chunk: Pick<Chunk, 'collection' | 'text' | 'citation'>, text = chunk.text): { header: string; body: string } {
  const at = Math.min(bodyOffset(chunk), text.length);
  return { header: text.slice(0, at).trimEnd(), body: text.slice(at) };
}

function countNewlines(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/**
 * Cuts `text` to at most `chars` characters: at the last line end that fits, keeping at least the
 * first body line; if even that line does not fit, between words inside it, ending with CUT_MARK.
 */
export function cutText(text: string, chars: number, bodyStart = 0): { text: string; cut?: 'lines' | 'words' } {
  if (text.length <= chars) return { text };
  // `text.slice(0, end)` for a line end `end` (the index of its `\n`) holds whole lines.
  const firstBodyLineEnd = text.indexOf('\n', bodyStart);
  const end = text.lastIndexOf('\n', chars);
  if (end >= 0 && firstBodyLineEnd >= 0 && end >= firstBodyLineEnd) {
    return { text: text.slice(0, end).trimEnd(), cut: 'lines' };
  }
  const limit = Math.max(0, chars - CUT_MARK.length);
  let at = limit;
  // The last whitespace after the body's first character; a single word longer than the budget is cut anyway.
  while (at > bodyStart && !/\s/.test(text[at]!)) at--;
  if (at <= bodyStart) at = limit;
  return { text: text.slice(0, at).trimEnd() + CUT_MARK, cut: 'words' };
}

/** The citation of the lines a cut text still shows. */
function shownCitation(chunk: Chunk, text: string): Citation {
  const citation = { ...chunk.citation };
  const { body } = splitBlockText(chunk, text);
  citation.endLine = Math.min(chunk.citation.endLine, chunk.citation.startLine + countNewlines(body.trimEnd()));
  return citation;
}

/** NFC (the store keeps NFC text) and runs of whitespace as one space: how texts are compared. */
export function normaliseText(text: string): string {
  return text.normalize('NFC').replace(/\s+/g, ' ').trim();
}

/** Same source unit: a file, or one issue's body or one comment (their lines are numbered apart). */
function sameUnit(a: Citation, b: Citation): boolean {
  return a.path === b.path && a.commentId === b.commentId;
}

/** Only what a Chunk declares: a StoredChunk's vector would be copied for nothing (and cannot be frozen). */
function copyChunk(chunk: Chunk): Chunk {
  const copy: Chunk = {
    id: chunk.id,
    collection: chunk.collection,
    text: chunk.text,
    title: chunk.title,
    citation: structuredClone(chunk.citation),
    tokens: chunk.tokens,
  };
  if (chunk.symbols) copy.symbols = [...chunk.symbols];
  return copy;
}

export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Reflect.ownKeys(value)) deepFreeze((value as Record<PropertyKey, unknown>)[key]);
  }
  return value;
}

function checkBudget(budget: ContextBudget): void {
  for (const key of ['chunks', 'chars'] as const) {
    const v = budget[key];
    if (!Number.isInteger(v) || v < 1) {
      throw new Error(`context budget: ${key} must be a positive integer, got ${JSON.stringify(v)}`);
    }
  }
}

/**
 * Builds the context from candidates in final rank order (direct lookups first, as the caller
 * orders them). A candidate is skipped when its chunk id was taken, or when its lines lie within
 * the lines a taken block of the same file (or issue comment) shows. At most `budget.chunks`
 * blocks; each text cut to `budget.chars` (see `cutText`); markers 1..n in order. The result and
 * everything in it are frozen; the caller's chunks are copied, not frozen.
 */
export function buildContext(
  question: string,
  language: Language,
  candidates: readonly ContextCandidate[],
  budget: ContextBudget,
  translation?: string,
  corpus?: Language,
): Context {
  checkBudget(budget);
  const blocks: ContextBlock[] = [];
  const ids = new Set<string>();
  for (const { chunk, scores } of candidates) {
    if (blocks.length >= budget.chunks) break;
    if (ids.has(chunk.id)) continue;
    const c = chunk.citation;
    // The text test keeps distinct pieces of one over-long line, which all cite that line.
    const contained = blocks.some(
      (b) =>
        sameUnit(b.citation, c) &&
        b.citation.startLine <= c.startLine &&
        c.endLine <= b.citation.endLine &&
        normaliseText(b.text).includes(normaliseText(splitBlockText(chunk).body)),
    );
    if (contained) continue;
    ids.add(chunk.id);
    const copy = copyChunk(chunk);
    const { text, cut } = cutText(copy.text, budget.chars, bodyOffset(copy));
    const block: ContextBlock = {
      marker: blocks.length + 1,
      chunk: copy,
      citation: cut ? shownCitation(copy, text) : structuredClone(copy.citation),
      text,
      scores: { ...scores },
    };
    if (cut) block.cut = cut;
    blocks.push(block);
  }
  const context: Context = {
    question,
    language,
    ...(translation !== undefined && translation !== question ? { translation } : {}),
    ...(corpus !== undefined ? { corpus } : {}),
    budget: { chunks: budget.chunks, chars: budget.chars },
    blocks,
    chars: blocks.reduce((n, b) => n + b.text.length, 0),
  };
  return deepFreeze(context);
}

/**
 * One line naming where a block comes from, as a reader would look it up:
 * `doc/en/how-to/skipping.rst:40-52 › How to use skip and xfail › Skipping test functions`,
 * `src/_pytest/skipping.py:161-211 | evaluate_skip_marks`, `Issue #5103 comment 482519921, lines 1-5`.
 */
export function citationLine(citation: Citation): string {
  const lines = `${citation.startLine}-${citation.endLine}`;
  if (citation.issue !== undefined) {
    const comment = citation.commentId !== undefined ? ` comment ${citation.commentId}` : '';
    return `Issue #${citation.issue}${comment}, lines ${lines}`;
  }
  let line = `${citation.path}:${lines}`;
  if (citation.headings && citation.headings.length > 0) line += ` › ${citation.headings.join(' › ')}`;
  if (citation.symbol) line += ` | ${citation.symbol}`;
  return line;
}

/** The context as LLM generators read it: each block as `[n] <citation line>` then its text, blank line between. */
export function renderContext(context: Context): string {
  return context.blocks.map((b) => `[${b.marker}] ${citationLine(b.citation)}\n${b.text}`).join('\n\n');
}
