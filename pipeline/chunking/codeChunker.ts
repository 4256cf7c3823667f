import type { Node, Parser } from 'web-tree-sitter';
import type { Chunk, ChunkingOptions, Citation, Document, TokenCounter } from '../types.ts';
import { checkBudget, chunkBudget, cutAtCharacters, cutMessage, ownTokens, packToBudget, sumSearch, type CutWarning } from './budget.ts';
import { chunkId } from './ids.ts';
import { codePointStarts } from './prefixFit.ts';
import { isCodeFormat, parserFor } from './code/parsers.ts';
import {
  commentMarker,
  firstBodyLine,
  GROUPING_TYPES,
  isLiteralType,
  membersOf,
  syntaxFor,
  type LanguageSyntax,
  type SymbolNode,
} from './code/symbols.ts';

/**
 * Code chunking by symbol. Top-level definitions become chunks; a class too big for the budget
 * becomes its header plus one chunk per method; module-level code between definitions is chunked
 * too, so every non-blank line belongs to exactly one chunk. Anything still too big is split at
 * the shallowest syntactic boundary (statements of its body first, lines last), and every piece
 * starts with a header naming the file, the enclosing class and the signature, so its embedding
 * stays on topic. No chunk exceeds min(maxTokens, window), counted with the model's own tokenizer.
 */

/**
 * Counting is the expensive step, so a text that cannot fit is not counted: with runs of whitespace
 * collapsed, code takes at most ~4 characters per token (4.04 over pytest's chunks), so one with
 * more than 6 per budget token is over it. A wrong guess only splits a range that would have fit.
 */
const MAX_CHARS_PER_TOKEN = 6;
/** Break costs: a line break inside a literal, between a signature and its body, or before a lone `}`. */
const LITERAL_COST = 100;
const SIGNATURE_COST = 50;
const TRIVIAL_TAIL_COST = 1000;
/** A comment line belongs with the code below it; only a tie-breaker. */
const COMMENT_COST = 0.5;
const MAX_SIGNATURE_CHARS = 200;

/** Chunks a source file by symbol; files without a usable parser or with syntax errors get line windows. */
export async function chunkCode(doc: Document, counter: TokenCounter, options: ChunkingOptions, onWarning?: CutWarning): Promise<Chunk[]> {
  if (!isCodeFormat(doc.format)) return chunkLines(doc, counter, options, onWarning);
  let parser: Parser;
  try {
    parser = await parserFor(doc.format);
  } catch (err) {
    warnOnce(doc.format, err);
    return chunkLines(doc, counter, options, onWarning);
  }
  const tree = parser.parse(doc.text);
  if (!tree) return chunkLines(doc, counter, options, onWarning);
  try {
    // A misparsed file would put lines under the wrong symbol or none; windows never lose text.
    if (tree.rootNode.hasError) return chunkLines(doc, counter, options, onWarning);
    const syntax = syntaxFor(doc.format);
    const writer = new ChunkWriter(doc, counter, options, syntax.comment, onWarning);
    new SymbolWalker(writer, syntax).run(tree.rootNode);
    return writer.finish();
  } finally {
    tree.delete();
  }
}

/** Windows of `options.lineWindow` lines, shrunk to fit the token budget: for files we cannot parse. */
export function chunkLines(doc: Document, counter: TokenCounter, options: ChunkingOptions, onWarning?: CutWarning): Chunk[] {
  const writer = new ChunkWriter(doc, counter, options, commentMarker(doc.format), onWarning);
  const span = writer.trim(0, writer.lines.length - 1);
  if (span) {
    const header = writer.header([]);
    writer.pack({ ...span, first: header, next: header, names: [], maxLines: Math.max(1, Math.floor(options.lineWindow)) });
  }
  return writer.finish();
}

const warned = new Set<string>();
function warnOnce(format: string, err: unknown): void {
  if (warned.has(format)) return;
  warned.add(format);
  const reason = err instanceof Error ? err.message : String(err);
  process.emitWarning(`${reason}; ${format} files are chunked by line windows instead`, 'CitaGrammarWarning');
}

/** A line range (0-based, inclusive) to turn into one chunk, or several if it does not fit. */
interface RangeRequest {
  start: number;
  end: number;
  /** Header of the first piece, and of every later piece. */
  first: string;
  next: string;
  /** Subtree whose multi-line nodes make a break inside them costly; none for plain line windows. */
  tree?: Node;
  /** First line of the body: a break above it would part a signature from its body. */
  bodyLine?: number | null;
  /** Qualified symbol of every piece. */
  symbol?: string;
  /** The range is a part of its symbol (a class header), so even a whole-range chunk is titled with its lines. */
  partial?: boolean;
  /** Names listed by every piece. */
  names: string[];
  /** Names defined at a line, listed by the piece that holds the line. */
  namesAt?: Array<{ line: number; names: string[] }>;
  maxLines?: number;
}

/** Owns the file's lines, the token counts and the chunks; knows nothing about syntax. */
class ChunkWriter {
  readonly lines: string[];
  readonly max: number;
  private readonly chunks: Chunk[] = [];
  private readonly lineCosts: Int32Array;
  private readonly headerTokens = new Map<string, number>();
  /** Tokens every count adds on its own (prefix, specials), to estimate a line's share. */
  private readonly overhead: number;

  constructor(
    readonly doc: Document,
    private readonly counter: TokenCounter,
    options: ChunkingOptions,
    readonly comment: string,
    private readonly onWarning?: CutWarning,
  ) {
    this.lines = doc.text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
    this.max = chunkBudget(options, counter, doc.path);
    this.lineCosts = new Int32Array(this.lines.length).fill(-1);
    // What one count adds besides its content (prefix, specials): the difference a second copy makes.
    this.overhead = Math.max(0, 2 * counter.countTokens('x') - counter.countTokens('x\nx'));
  }

  isBlank(i: number): boolean {
    return !/\S/.test(this.lines[i] ?? '');
  }

  /** The range without its blank first and last lines; null if it is all blank. */
  trim(start: number, end: number): { start: number; end: number } | null {
    while (start <= end && this.isBlank(start)) start++;
    while (end >= start && this.isBlank(end)) end--;
    return start <= end ? { start, end } : null;
  }

  isComment(i: number): boolean {
    return (this.lines[i] ?? '').trimStart().startsWith(this.comment);
  }

  hasWords(start: number, end: number): boolean {
    for (let i = start; i <= end; i++) if (/[\p{L}\p{N}]/u.test(this.lines[i] ?? '')) return true;
    return false;
  }

  body(start: number, end: number): string {
    return this.lines.slice(start, end + 1).join('\n');
  }

  /** The context header: the file path, then the enclosing lines; shortened if it would eat half the budget. */
  header(scope: string[]): string {
    const path = `${this.comment} ${this.doc.path}`;
    const last = scope[scope.length - 1];
    for (const candidate of [[path, ...scope], last ? [path, last] : [], [path]]) {
      if (candidate.length === 0) continue;
      const text = candidate.join('\n');
      if (this.tokens(text) <= this.max / 2 || candidate.length === 1) return text;
    }
    return path;
  }

  tokens(header: string): number {
    let n = this.headerTokens.get(header);
    if (n === undefined) {
      n = this.counter.countTokens(header);
      this.headerTokens.set(header, n);
    }
    return n;
  }

  /** A line's share of a chunk's tokens, counted once per line; sums slightly overestimate. */
  private lineCost(i: number): number {
    if (this.isBlank(i)) return 0;
    let n = this.lineCosts[i]!;
    if (n < 0) {
      n = ownTokens(this.counter, this.lines[i]!, this.overhead, 1);
      this.lineCosts[i] = n;
    }
    return n;
  }

  emit(req: RangeRequest): void {
    if (!this.emitWhole(req)) this.pack(req);
  }

  /** One chunk for the whole range, if it fits. */
  emitWhole(req: RangeRequest): boolean {
    const text = `${req.first}\n${this.body(req.start, req.end)}`;
    if (text.length > this.max * MAX_CHARS_PER_TOKEN && text.replace(/\s+/g, ' ').length > this.max * MAX_CHARS_PER_TOKEN) {
      return false;
    }
    const tokens = this.counter.countTokens(text);
    if (tokens > this.max) return false;
    this.push(req, req.start, req.end, text, tokens, true);
    return true;
  }

  /**
   * Splits a range into pieces that fit (`packToBudget`, lines as atoms). Each piece ends at the
   * cheapest break within the budget (the fewest syntax nodes spanning it; the furthest among
   * equals), judged by per-line estimates and confirmed by counting the piece exactly.
   */
  pack(req: RangeRequest): void {
    // Without a tree every break costs the same, so line windows stay `maxLines` long.
    const costs = req.tree ? breakCosts(req.tree, req.start, req.end) : null;
    let lastWordLine = req.end;
    while (costs && lastWordLine > req.start && !this.hasWords(lastWordLine, lastWordLine)) lastWordLine--;
    // Cost of a break before line b.
    const breakCost = (b: number): number =>
      costs![b - req.start]! +
      (req.bodyLine != null && b < req.bodyLine ? SIGNATURE_COST : 0) +
      (b > lastWordLine ? TRIVIAL_TAIL_COST : 0) +
      (this.isComment(b - 1) ? COMMENT_COST : 0);

    // Atom k is line req.start + k; a piece of atoms [i, j) ends at its last line that is not blank.
    const first = req.start;
    const size = req.end - req.start + 1;
    const headerOf = (piece: number) => (piece === 0 ? req.first : req.next);
    const lastOf = (i: number, j: number) => this.trim(first + i, first + j - 1)!.end;
    const textOf = (i: number, j: number, piece: number) => `${headerOf(piece)}\n${this.body(first + i, lastOf(i, j))}`;
    packToBudget({
      budget: this.max,
      size: () => size,
      skip: (k) => this.isBlank(first + k),
      search: sumSearch({
        budget: this.max,
        size: () => size,
        base: (piece) => this.tokens(headerOf(piece)),
        cost: (k) => this.lineCost(first + k),
        measure: (i, j, piece) => this.counter.countTokens(textOf(i, j, piece)),
        maxAtoms: req.maxLines,
        breakCost: costs ? (j) => breakCost(first + j) : undefined,
        countLone: false,
        grow: false,
      }),
      // A line has no finer cut but the last resort.
      refine: () => false,
      lastResort: (k, piece) => this.packLongLine(first + k, headerOf(piece), req),
      emit: (i, run, piece) => this.push(req, first + i, lastOf(i, run.end), textOf(i, run.end, piece), run.tokens, false),
    });
  }

  /**
   * Last resort for a single line over the budget (minified code, an embedded blob): pieces of
   * the line (`cutAtCharacters`), cut after a space where possible. They all cite that line; the part
   * number in the header keeps their texts, hence their ids, distinct. Returns how many pieces.
   */
  private packLongLine(i: number, header: string, req: RangeRequest): number {
    const line = this.lines[i]!;
    const head = (part: number) => `${part === 1 ? header : req.next}\n${this.comment} (line ${i + 1}, part ${part})`;
    const parts = cutAtCharacters(line, {
      budget: this.max,
      count: (part, start, end) => this.counter.countTokens(`${head(part)}\n${line.slice(start, end)}`),
      // Tokens per code point of the whole line (counted by `pack`), to aim the first cut.
      rate: this.lineCost(i) / (codePointStarts(line).length - 1),
      atSpace: true,
    });
    parts.forEach((p, k) => {
      if (!p.fits) throw new Error(`chunking ${this.doc.path}: the header alone exceeds ${this.max} tokens`);
      this.push(req, i, i, `${head(k + 1)}\n${line.slice(p.start, p.end)}`, p.tokens, false);
    });
    const atSpaces = parts.every((p) => p.end === line.length || line[p.end - 1] === ' ');
    this.onWarning?.(cutMessage(`${this.doc.path}:${i + 1}-${i + 1}`, this.max, atSpaces ? 'words' : 'characters'));
    return parts.length;
  }

  private push(req: RangeRequest, start: number, end: number, text: string, tokens: number, whole: boolean): void {
    const path = this.doc.path;
    const citation: Citation = { path, startLine: start + 1, endLine: end + 1 };
    if (req.symbol) citation.symbol = req.symbol;
    const lines = `(lines ${start + 1}-${end + 1})`;
    const title = req.symbol ? (whole && !req.partial ? `${path}:${req.symbol}` : `${path}:${req.symbol} ${lines}`) : `${path} ${lines}`;
    const names = [...req.names];
    for (const n of req.namesAt ?? []) if (n.line >= start && n.line <= end) names.push(...n.names);
    this.chunks.push({
      id: chunkId('code', citation, text),
      collection: 'code',
      text,
      title,
      citation,
      tokens,
      symbols: [...new Set(names)],
    });
  }

  /** The chunks, after checking the budget. */
  finish(): Chunk[] {
    return checkBudget(this.chunks, this.max, 'code');
  }
}

/** Last line of a node; a node that ends at column 0 ends on the line before. */
function lastRow(node: Node): number {
  const end = node.endPosition;
  return end.column === 0 && end.row > node.startPosition.row ? end.row - 1 : end.row;
}

/**
 * Cost of breaking before each line b in (start, end]: how many nodes of `tree` span that break.
 * Grouping nodes (blocks) are free, literals dear. Index: b - start.
 */
function breakCosts(tree: Node, start: number, end: number): Float64Array {
  const costs = new Float64Array(end - start + 2);
  const cursor = tree.walk();
  try {
    for (;;) {
      const first = cursor.startPosition.row;
      const endPos = cursor.endPosition;
      const last = endPos.column === 0 && endPos.row > first ? endPos.row - 1 : endPos.row;
      // Only multi-line nodes over the range matter, and single-line nodes have no multi-line children.
      const relevant = last > first && first < end && last > start;
      if (relevant) {
        const type = cursor.nodeType;
        const weight = GROUPING_TYPES.has(type) ? 0 : isLiteralType(type) ? LITERAL_COST : 1;
        if (weight > 0) {
          for (let b = Math.max(first + 1, start + 1); b <= Math.min(last, end); b++) costs[b - start]! += weight;
        }
      }
      if (relevant && cursor.gotoFirstChild()) continue;
      while (!cursor.gotoNextSibling()) if (!cursor.gotoParent()) return costs;
    }
  } finally {
    cursor.delete();
  }
}

interface Scope {
  /** Header lines of the enclosing containers (`class Skip:`). */
  lines: string[];
  /** Qualified-name parts of the enclosing containers. */
  names: string[];
}

/** The container being split into members, for its own non-member lines. */
interface Owner {
  qualified: string;
  names: string[];
  node: Node;
  definitionLine: number;
  bodyLine: number | null;
  header: string;
  continued: string;
}

/** A part of a body: the lines of definitions (`symbols`), or the code between them. */
interface Part {
  start: number;
  end: number;
  symbols: SymbolNode[];
  nodes: Node[];
}

/** Walks definitions top-down and tells the writer which ranges to chunk, with which headers. */
class SymbolWalker {
  constructor(
    private readonly out: ChunkWriter,
    private readonly syntax: LanguageSyntax,
  ) {}

  run(root: Node): void {
    const span = this.out.trim(0, this.out.lines.length - 1);
    if (!span) return;
    this.emitBody(root, children(root), span.start, span.end, { lines: [], names: [] }, null);
  }

  private emitBody(tree: Node, nodes: Node[], start: number, end: number, scope: Scope, owner: Owner | null): void {
    for (const part of this.partition(nodes, start, end)) {
      if (part.symbols.length > 0) {
        this.emitSymbol(part, scope);
      } else if (!owner) {
        const namesAt = part.nodes
          .map((n) => ({ line: n.startPosition.row, names: this.syntax.moduleNames(n) }))
          .filter((n) => n.names.length > 0);
        const header = this.out.header(scope.lines);
        this.out.emit({ start: part.start, end: part.end, first: header, next: header, tree, names: [], namesAt });
      } else {
        // The part holding the class line is the class header; later ones repeat the class line.
        const isHead = part.start <= owner.definitionLine && owner.definitionLine <= part.end;
        this.out.emit({
          start: part.start,
          end: part.end,
          first: isHead ? owner.header : owner.continued,
          next: owner.continued,
          tree: owner.node,
          bodyLine: isHead ? owner.bodyLine : null,
          symbol: owner.qualified,
          names: owner.names,
          partial: true,
        });
      }
    }
  }

  private emitSymbol(part: Part, scope: Scope): void {
    const [sym, ...sharing] = part.symbols as [SymbolNode, ...SymbolNode[]];
    const qualified = qualify(sym, scope.names);
    const names = [qualified, sym.name, ...sharing.flatMap((s) => [qualify(s, scope.names), s.name])];
    const signature = this.signature(sym);
    const header = this.out.header(scope.lines);
    const continued = this.out.header([...scope.lines, `${signature}  ${this.syntax.comment} (continued)`]);
    const bodyLine = firstBodyLine(sym);
    const request: RangeRequest = {
      start: part.start,
      end: part.end,
      first: header,
      next: continued,
      tree: sym.node,
      bodyLine,
      symbol: qualified,
      names,
    };
    const members = sym.container && sharing.length === 0 ? membersOf(sym) : [];
    const inner: Scope = { lines: [...scope.lines, signature], names: scopeOf(sym, scope.names) };
    if (!members.some((m) => this.syntax.symbolAt(m))) {
      this.out.emit(request);
      return;
    }
    if (this.out.emitWhole({ ...request, names: [...names, ...this.memberNames(members, inner.names)] })) return;
    this.emitBody(sym.node, members, part.start, part.end, inner, {
      qualified,
      names,
      node: sym.node,
      definitionLine: sym.definition.startPosition.row,
      bodyLine,
      header,
      continued,
    });
  }

  /** Qualified and bare names of a container's members, nested containers included. */
  private memberNames(members: Node[], scope: string[]): string[] {
    const out: string[] = [];
    for (const m of members) {
      const sym = this.syntax.symbolAt(m);
      if (!sym) continue;
      const qualified = qualify(sym, scope);
      out.push(qualified, sym.name);
      if (sym.container) out.push(...this.memberNames(membersOf(sym), scopeOf(sym, scope)));
    }
    return out;
  }

  /** The definition's first lines up to its body, on one line: `def evaluate(self, item):`, indented as in the file. */
  private signature(sym: SymbolNode): string {
    const row = sym.definition.startPosition.row;
    const bodyLine = firstBodyLine(sym);
    const last = bodyLine !== null && bodyLine > row ? Math.min(bodyLine - 1, row + 20) : row;
    const text = this.out.lines
      .slice(row, last + 1)
      .join(' ')
      .trim()
      .replace(/\s+/g, ' ')
      .replace(/([([{]) /g, '$1')
      .replace(/ ([)\]}])/g, '$1');
    const indent = /^\s*/.exec(this.out.lines[row] ?? '')?.[0] ?? '';
    return indent + (text.length > MAX_SIGNATURE_CHARS ? `${text.slice(0, MAX_SIGNATURE_CHARS)} …` : text);
  }

  /**
   * Splits [start, end] into definitions and the code between them. Doc comments and attributes
   * go with the definition below them; lines of only punctuation (a closing `}`) join the part
   * before them, so no chunk is a lone brace.
   */
  private partition(nodes: Node[], start: number, end: number): Part[] {
    const symbols = nodes.map((n) => this.syntax.symbolAt(n));
    const spans: Part[] = [];
    nodes.forEach((node, i) => {
      const sym = symbols[i];
      if (!sym) return;
      let first = node.startPosition.row;
      for (let j = i - 1; j >= 0; j--) {
        const lead = nodes[j]!;
        if (symbols[j] || !this.syntax.isLeading(lead) || lastRow(lead) < first - 1) break;
        const before = nodes[j - 1];
        if (before && lastRow(before) >= lead.startPosition.row) break; // a trailing comment of the code before
        first = lead.startPosition.row;
      }
      const prev = spans[spans.length - 1];
      first = Math.max(first, start, prev ? prev.end + 1 : start);
      const last = Math.min(lastRow(node), end);
      if (first > last) {
        prev?.symbols.push(sym); // shares its only lines with the previous definition
        return;
      }
      spans.push({ start: first, end: last, symbols: [sym], nodes: [node] });
    });

    const parts: Part[] = [];
    const addBetween = (s: number, e: number): void => {
      const t = this.out.trim(s, e);
      if (t) parts.push({ ...t, symbols: [], nodes: [] });
    };
    let next = start;
    for (const span of spans) {
      if (span.start > next) addBetween(next, span.start - 1);
      parts.push(span);
      next = span.end + 1;
    }
    addBetween(next, end);
    // Parts are disjoint and in line order, as the nodes are: one pass gives each node its part
    // (a search over all parts per node was quadratic in a file of many small definitions).
    let at = 0;
    nodes.forEach((node, i) => {
      if (symbols[i]) return;
      const row = node.startPosition.row;
      while (at < parts.length && parts[at]!.end < row) at++;
      const part = parts[at];
      if (part && part.symbols.length === 0 && part.start <= row) part.nodes.push(node);
    });

    const merged: Part[] = [];
    for (const part of parts) {
      const prev = merged[merged.length - 1];
      if (prev && part.symbols.length === 0 && !this.out.hasWords(part.start, part.end)) {
        prev.end = part.end;
        // Not push(...nodes): a call takes ~100k arguments at most, and a part can hold more nodes.
        for (const node of part.nodes) prev.nodes.push(node);
      } else merged.push(part);
    }
    const [head, second] = merged;
    if (head && second && head.symbols.length === 0 && !this.out.hasWords(head.start, head.end)) {
      second.start = head.start;
      second.nodes = head.nodes.concat(second.nodes);
      merged.shift();
    }
    return merged;
  }
}

function children(node: Node): Node[] {
  return node.children.filter((c): c is Node => c !== null);
}

/** Name parts of a symbol: its owner's or its scope's, then its own. */
function scopeOf(sym: SymbolNode, scope: string[]): string[] {
  return sym.owner ? [sym.owner, sym.name] : [...scope, sym.name];
}

function qualify(sym: SymbolNode, scope: string[]): string {
  return scopeOf(sym, scope).join('.');
}
