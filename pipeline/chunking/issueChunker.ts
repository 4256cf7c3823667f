import type { Issue, IssueComment } from '../sources/issues/types.ts';
import type { Chunk, ChunkingOptions, Citation, TokenCounter } from '../types.ts';
import {
  cannotHold,
  checkBudget,
  chunkBudget,
  countNewlines,
  cutEvenly,
  cutMessage,
  ownTokens,
  packToBudget,
  refineAtom,
  splitAhead,
  sumSearch,
  trimPiece,
  type Atom,
  type CutWarning,
  type Splitter,
} from './budget.ts';
import { chunkId } from './ids.ts';
import { splitAtLines, splitAtWords, splitProse, splitUnits, type TextUnit } from './sentences.ts';

/**
 * Issue chunking: the issue (title, state, labels, body) is one unit and each comment another, so a
 * citation names the comment that said it. A unit longer than the token budget is cut between
 * paragraphs and code blocks, else between sentences, else lines, words, characters; every piece
 * starts with the same header (`Issue #N: title` and what the unit is), so its embedding stays on
 * the issue and the reader of a citation knows where it is. Fenced code blocks, indented code and
 * tracebacks are cut only when one alone exceeds the budget. Nothing is dropped (DESIGN lesson 3).
 */

/** `Issue #7432: skipping: --runxfail breaks pytest.mark.skip location reporting` */
export function issueTitleLine(issue: Pick<Issue, 'number' | 'title'>): string {
  // One line whatever the title holds: the header's line count is part of the chunk format.
  return `Issue #${issue.number}: ${issue.title.replace(/\s+/g, ' ').trim()}`;
}

/** Header of the issue's own chunks: title line, then kind, state and labels. */
export function issueHeader(issue: Issue): string {
  const facts = [`state: ${issue.state}`];
  if (issue.isPullRequest) facts.unshift('pull request');
  if (issue.labels.length > 0) facts.push(`labels: ${issue.labels.join(', ')}`);
  return `${issueTitleLine(issue)}\n${facts.join(' · ')}`;
}

/** Header of a comment's chunks: title line, then author and day. */
export function commentHeader(issue: Issue, comment: IssueComment): string {
  return `${issueTitleLine(issue)}\ncomment by ${comment.author} on ${comment.createdAt.slice(0, 10)}`;
}

/** The embedded text of a chunk: header, blank line, body. */
export function issueChunkText(header: string, body: string): string {
  return body === '' ? header : `${header}\n\n${body}`;
}

/** Line numbers of a citation refer to this text: GitHub bodies often carry `\r\n`. */
export function normaliseIssueText(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}

// Unfenced tracebacks and pytest failure output: read as code so they are cut by lines, not sentences.
const TRACEBACK = /^(?:\s*Traceback \(most recent call last\):|\s+File ".*", line \d+|E {2,}\S)/m;

/** An unfenced traceback or pytest failure output. */
export function isTraceback(text: string): boolean {
  return TRACEBACK.test(text);
}

function isIndentedCode(text: string): boolean {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  return lines.length > 0 && lines.every((l) => /^(?: {4}|\t)/.test(l));
}

/** `splitUnits`, with tracebacks and Markdown's indented code blocks (which it reads as prose) as code. */
export function issueUnits(text: string): TextUnit[] {
  return splitUnits(text).map((u) => (u.kind === 'prose' && (isTraceback(u.text) || isIndentedCode(u.text)) ? { ...u, kind: 'code' } : u));
}

/** Few tokens span more than this many characters: a longer text is not counted whole. */
const MAX_CHARS_PER_TOKEN = 16;

interface Piece {
  /** Offsets into the normalised text. */
  start: number;
  end: number;
  tokens: number;
}

/**
 * Cuts `text` into pieces that each fit `maxTokens` with `header` on top. Atoms are counted one by
 * one (their sum estimates a piece: `sumSearch`), and every piece is counted exactly before it is
 * accepted, so the guarantee rests on the tokenizer, not on the estimate.
 */
function packPieces(text: string, header: string, counter: TokenCounter, maxTokens: number, where: string, onWarning?: CutWarning): Piece[] {
  const tokensOf = (start: number, end: number) => counter.countTokens(issueChunkText(header, trimPiece(text.slice(start, end)).body));
  // Counting a text far over the budget whole is wasted work. Only a shortcut: if such a text does
  // fit, the packing below still makes it one piece.
  if (text.length <= MAX_CHARS_PER_TOKEN * maxTokens) {
    const whole = tokensOf(0, text.length);
    if (whole <= maxTokens) return [{ start: 0, end: text.length, tokens: whole }];
  }
  const headerTokens = counter.countTokens(issueChunkText(header, ''));
  if (headerTokens >= maxTokens) {
    throw new Error(`issues chunking: ${where}: the header alone takes ${headerTokens} tokens, leaving no room under maxTokens ${maxTokens}; raise chunking.maxTokens`);
  }
  const overhead = counter.countTokens('');
  const atomTokens = (a: Atom) => (a.tokens ??= ownTokens(counter, a.text, overhead, 0));

  const words: Splitter = (t) => {
    onWarning?.(cutMessage(where, maxTokens, 'words'));
    return splitAtWords(t);
  };
  // Last resort, for one word longer than the budget (a huge URL or blob): reported, never silent.
  // A character is at most a few tokens (byte fallback), so a quarter of the room always fits.
  const characters: Splitter = (t) => {
    onWarning?.(cutMessage(where, maxTokens, 'characters'));
    return cutEvenly(t, Math.max(1, Math.floor((maxTokens - headerTokens) / 4)));
  };
  const lines = [splitAtLines, words, characters];
  // An atom that cannot fit even alone is cut now, so its first parts can fill the piece before it.
  const atoms: Atom[] = [];
  let offset = 0;
  for (const unit of issueUnits(text)) {
    const atom: Atom = { offset, text: unit.text, finer: unit.kind === 'prose' ? [(t) => splitProse(t), ...lines] : lines };
    for (const a of splitAhead(atom, (a) => headerTokens + atomTokens(a) > maxTokens)) atoms.push(a);
    offset += unit.text.length;
  }
  const endOf = (j: number) => (j < atoms.length ? atoms[j]!.offset : text.length);

  const pieces: Piece[] = [];
  packToBudget({
    budget: maxTokens,
    size: () => atoms.length,
    search: sumSearch({
      budget: maxTokens,
      size: () => atoms.length,
      base: () => headerTokens,
      cost: (k) => atomTokens(atoms[k]!),
      measure: (i, j) => tokensOf(atoms[i]!.offset, endOf(j)),
      countLone: true,
      grow: true,
    }),
    refine: (i) => refineAtom(atoms, i),
    lastResort: (i) => {
      throw cannotHold('issues', where, maxTokens, atoms[i]!.text);
    },
    emit: (i, run) => pieces.push({ start: atoms[i]!.offset, end: endOf(run.end), tokens: run.tokens }),
  });
  return pieces;
}

interface Unit {
  header: string;
  text: string;
  title: string;
  citation: Omit<Citation, 'startLine' | 'endLine'>;
}

function chunksOfUnit(unit: Unit, counter: TokenCounter, maxTokens: number, onWarning?: CutWarning): Chunk[] {
  const { header, text } = unit;
  const where = `${unit.citation.path}${unit.citation.commentId !== undefined ? ` comment ${unit.citation.commentId}` : ''}`;
  const chunks: Chunk[] = [];
  for (const piece of packPieces(text, header, counter, maxTokens, where, onWarning)) {
    const { lead, body } = trimPiece(text.slice(piece.start, piece.end));
    // An empty body still yields the header: the title alone is worth finding.
    if (body.trim() === '' && text.trim() !== '') continue;
    const startLine = 1 + countNewlines(text, 0, piece.start + lead);
    const citation: Citation = { ...unit.citation, startLine, endLine: startLine + countNewlines(body) };
    const full = issueChunkText(header, body);
    chunks.push({ id: chunkId('issues', citation, full), collection: 'issues', text: full, title: unit.title, citation, tokens: piece.tokens });
  }
  return chunks;
}

/**
 * The chunks of an issue: its own unit (header with state and labels, then the body), then one unit
 * per comment (header with author and date). Citations: path `#N`, the issue number, the comment id
 * for comments, the URL, and lines within the body or comment (1-based, after `\r\n` → `\n`).
 */
export function chunkIssue(issue: Issue, counter: TokenCounter, options: ChunkingOptions, onWarning?: CutWarning): Chunk[] {
  const path = `#${issue.number}`;
  const maxTokens = chunkBudget(options, counter, path);
  const units: Unit[] = [
    {
      header: issueHeader(issue),
      text: normaliseIssueText(issue.body),
      title: `#${issue.number}: ${issue.title.replace(/\s+/g, ' ').trim()}`,
      citation: { path, issue: issue.number, url: issue.url },
    },
    ...issue.comments
      // An empty comment (all its text deleted) carries nothing to find or cite.
      .filter((c) => c.body.trim() !== '')
      .map((c) => ({
        header: commentHeader(issue, c),
        text: normaliseIssueText(c.body),
        title: `#${issue.number} comment ${c.id}`,
        citation: { path, issue: issue.number, commentId: c.id, url: c.url },
      })),
  ];
  return checkBudget(
    units.flatMap((u) => chunksOfUnit(u, counter, maxTokens, onWarning)),
    maxTokens,
    'issues',
  );
}
