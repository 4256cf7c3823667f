import { splitSentences } from '../chunking/sentences.ts';
import { CUT_MARK, normaliseText, splitBlockText } from './context.ts';
import type { Context, ContextBlock, GeneratedAnswer, ResolvedCitation, VerifiedAnswer } from './types.ts';

/**
 * Citations are verified, not trusted (DESIGN). After generation, every marker `[n]` of the answer
 * is resolved against the context the generator was given and against the indexed tree:
 * - the marker must name a block of the context;
 * - docs and code: the cited path must be in the tree, the line range inside the file, and those
 *   lines must hold the block's body (the text after the chunker's header), whitespace aside;
 * - issues: the issue, and the comment if one is cited, must be indexed;
 * - quoted text must be in the cited block. For a `verbatim` answer (extractive) every marked
 *   sentence is a quote, so the whole sentence is checked. Other generators may paraphrase, so only
 *   what they put in quotes ("…", “…”, «…») or backticks is checked.
 * A sentence with no valid marker is unsupported; lead-ins (a sentence ending in `:` without a
 * marker) and a `noAnswer` statement make no claim and are not counted.
 */

/** What verification reads of the indexed tree; I/O stays with the caller. */
export interface IndexedTree {
  /** The file's text as indexed, or null if the path is not in the tree. */
  readFile(path: string): string | null;
  /** Whether the issue (and the comment, if given) is indexed. */
  issueExists(issue: number, commentId?: number): boolean;
  /** Where a person checks a file citation, e.g. `permalinkFor(github, ref, …)`. */
  permalink?(path: string, startLine: number, endLine: number): string | undefined;
}

/**
 * `https://github.com/<owner>/<repo>/blob/<ref>/<path>#L<start>-L<end>`; undefined without a repository.
 * `github` is `owner/repo` or its `https://github.com/owner/repo(.git)` URL.
 */
export function permalinkFor(github: string | undefined, ref: string, path: string, start: number, end: number): string | undefined {
  if (!github) return undefined;
  const repo = github
    .trim()
    .replace(/^(?:https?:\/\/)?(?:www\.)?github\.com\//, '')
    .replace(/\.git$/, '')
    .replace(/\/+$/, '');
  const encode = (p: string) => p.split('/').map(encodeURIComponent).join('/');
  return `https://github.com/${repo}/blob/${encode(ref)}/${encode(path)}#L${start}-L${end}`;
}

/** `[1]`, `[1][2]` (two matches) and `[1, 2]`. */
const MARKER = /\[(\d+(?:\s*,\s*\d+)*)\]/g;
/** Markers that open a segment: ICU breaks after `sentence. ` and before ` [1]`, but they belong to the sentence before. */
const LEADING_MARKERS = /^\s*(?:\[\d+(?:\s*,\s*\d+)*\]\s*)+/;
const LIST_BULLET = /^(?:[-*+•]|\d{1,3}[.)])\s+/;

/** The markers of a text, in order, ignoring brackets inside backtick code spans (`items[1]`). */
export function parseMarkers(text: string): number[] {
  const prose = text.replace(/`[^`\n]*`/g, (span) => ' '.repeat(span.length));
  const out: number[] = [];
  for (const m of prose.matchAll(MARKER)) for (const n of m[1]!.split(',')) out.push(Number(n.trim()));
  return out;
}

/**
 * Sentence pieces of a text, never cut inside a backtick code span (`'<?xml …?>'`, a docstring line
 * ending in a full stop): the spans are masked, same length, while segmenting, and the pieces are
 * cut from the original text at the same offsets.
 */
function sentencePieces(text: string, locale?: string): string[] {
  const masked = text.replace(/`[^`\n]*`/g, (span) => `\`${'x'.repeat(span.length - 2)}\``);
  let at = 0;
  return splitSentences(masked, locale).map((piece) => text.slice(at, (at += piece.length)));
}

/** The answer's sentences (`splitSentences`, code spans kept whole), each with the markers that follow it. */
export function answerSentences(text: string, locale?: string): string[] {
  const out: string[] = [];
  for (const piece of sentencePieces(text, locale)) {
    const lead = LEADING_MARKERS.exec(piece)?.[0];
    if (lead && out.length > 0) {
      out[out.length - 1] += lead;
      const rest = piece.slice(lead.length);
      if (rest.trim() !== '') out.push(rest);
    } else out.push(piece);
  }
  return out.map((s) => s.trim()).filter((s) => s !== '');
}

/** The sentence as a verbatim quote: markers, a list bullet and one wrapping code span removed. */
export function quoteOf(sentence: string): string {
  let q = sentence.replace(MARKER, ' ').trim().replace(LIST_BULLET, '');
  const code = /^`([^`]+)`$/.exec(q.trim());
  if (code) q = code[1]!;
  return normaliseText(q);
}

/** Spans a paraphrasing answer presents as quoted: "…", “…”, «…» and `…`. */
export function quotedSpans(sentence: string): string[] {
  const spans: string[] = [];
  for (const m of sentence.matchAll(/"([^"\n]+)"|“([^”\n]+)”|«([^»\n]+)»|`([^`\n]+)`/g)) {
    const span = normaliseText(m[1] ?? m[2] ?? m[3] ?? m[4] ?? '');
    if (span !== '') spans.push(span);
  }
  return spans;
}

/** A file's lines as the chunkers number them: BOM dropped, `\r\n` or `\n`, no line after a final newline. */
function fileLines(text: string): string[] {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** A code chunk made of pieces of one over-long line (`# (line N, part k)` closes its header). */
function isLinePart(header: string): boolean {
  return /\(line \d+, part \d+\)$/.test(header.split('\n').pop() ?? '');
}

/** Why the block's citation does not check out against the tree, or undefined if it does. */
function citationProblem(block: ContextBlock, tree: IndexedTree, read: (path: string) => string | null): string | undefined {
  const c = block.citation;
  if (block.chunk.collection === 'issues') {
    if (c.issue === undefined) return `the block's citation (${c.path}) names no issue`;
    if (!tree.issueExists(c.issue)) return `issue #${c.issue} is not in the index`;
    if (c.commentId !== undefined && !tree.issueExists(c.issue, c.commentId)) {
      return `comment ${c.commentId} of issue #${c.issue} is not in the index`;
    }
    if (!block.text.startsWith(`Issue #${c.issue}:`)) return `the block's text is not from issue #${c.issue}`;
    return undefined;
  }
  const file = read(c.path);
  if (file === null) return `${c.path} is not in the indexed tree`;
  const lines = fileLines(file);
  if (!(Number.isInteger(c.startLine) && Number.isInteger(c.endLine) && c.startLine >= 1 && c.startLine <= c.endLine)) {
    return `lines ${c.startLine}-${c.endLine} are not a line range`;
  }
  if (c.endLine > lines.length) return `lines ${c.startLine}-${c.endLine} are beyond the end of ${c.path} (${lines.length} lines)`;
  const cited = normaliseText(lines.slice(c.startLine - 1, c.endLine).join('\n'));
  const { header, body } = splitBlockText(block.chunk, block.text);
  const words = block.cut === 'words' && body.endsWith(CUT_MARK);
  const shown = normaliseText(words ? body.slice(0, -CUT_MARK.length) : body);
  // A piece of an over-long line may start anywhere in it; a word cut keeps a line's beginning;
  // otherwise the cited lines are exactly the body.
  const holds =
    block.chunk.collection === 'code' && isLinePart(header) ? cited.includes(shown) : words ? cited.startsWith(shown) : cited === shown;
  if (!holds || shown === '') return `lines ${c.startLine}-${c.endLine} of ${c.path} do not hold the block's text`;
  return undefined;
}

function snippetOf(block: ContextBlock, max = 200): string {
  const body = splitBlockText(block.chunk, block.text).body.trim();
  if (body.length <= max) return body;
  const space = body.lastIndexOf(' ', max - 1);
  return `${body.slice(0, space > max / 2 ? space : max - 1).trimEnd()} …`;
}

function short(text: string, max = 80): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** Checks an answer's markers against its context and the indexed tree; see the module comment. */
export function verifyAnswer(answer: GeneratedAnswer, context: Context, tree: IndexedTree): VerifiedAnswer {
  const files = new Map<string, string | null>();
  const read = (path: string) => {
    if (!files.has(path)) files.set(path, tree.readFile(path));
    return files.get(path)!;
  };
  // Block-level problems, once per marker.
  const problems = new Map<number, string | undefined>();
  const problemOf = (marker: number) => {
    if (!problems.has(marker)) {
      const block = context.blocks[marker - 1];
      problems.set(
        marker,
        block && block.marker === marker
          ? citationProblem(block, tree, read)
          : `marker [${marker}] refers to no block (the context has ${context.blocks.length})`,
      );
    }
    return problems.get(marker);
  };

  const invalid: VerifiedAnswer['invalid'] = [];
  const reported = new Set<number>();
  const used: number[] = [];
  const unsupported: string[] = [];
  for (const sentence of answerSentences(answer.text, answer.language)) {
    const markers = [...new Set(parseMarkers(sentence))];
    if (markers.length === 0) {
      const claim = /[\p{L}\p{N}]/u.test(sentence) && !sentence.endsWith(':') && !answer.noAnswer;
      if (claim) unsupported.push(sentence);
      continue;
    }
    const valid: number[] = [];
    for (const m of markers) {
      const problem = problemOf(m);
      if (problem === undefined) valid.push(m);
      else if (!reported.has(m)) {
        reported.add(m);
        invalid.push({ marker: m, problem });
      }
    }
    if (valid.length === 0) {
      unsupported.push(sentence);
      continue;
    }
    const quotes = answer.verbatim ? [quoteOf(sentence)].filter((q) => q !== '') : quotedSpans(sentence);
    const texts = valid.map((m) => normaliseText(context.blocks[m - 1]!.text));
    const missing = quotes.find((q) => !texts.some((t) => t.includes(q)));
    if (missing !== undefined) {
      unsupported.push(sentence);
      for (const m of valid) invalid.push({ marker: m, problem: `block [${m}] does not hold the quoted text "${short(missing)}"`, sentence });
      continue;
    }
    used.push(...valid);
  }

  const citations: ResolvedCitation[] = [...new Set(used)].map((marker) => {
    const block = context.blocks[marker - 1]!;
    const c = block.citation;
    const resolved: ResolvedCitation = {
      marker,
      collection: block.chunk.collection,
      path: c.path,
      startLine: c.startLine,
      endLine: c.endLine,
      snippet: snippetOf(block),
      verified: true,
    };
    if (c.headings) resolved.headings = [...c.headings];
    if (c.symbol) resolved.symbol = c.symbol;
    if (c.issue !== undefined) resolved.issue = c.issue;
    if (c.commentId !== undefined) resolved.commentId = c.commentId;
    const url = block.chunk.collection === 'issues' ? c.url : (tree.permalink?.(c.path, c.startLine, c.endLine) ?? c.url);
    if (url) resolved.url = url;
    return resolved;
  });
  return { ...answer, citations, invalid, unsupported };
}
