/**
 * Where doc text may be cut. Text is first split into units (paragraphs, list items, code blocks,
 * tables), then prose units into sentences with `Intl.Segmenter`. Every function here returns
 * pieces that concatenate back to its input exactly; whitespace stays with the piece before it.
 */

export type UnitKind = 'prose' | 'code' | 'table';

export interface TextUnit {
  text: string;
  /** Only prose is split into sentences; code and tables are cut, if they must be, at line ends. */
  kind: UnitKind;
}

const FENCE = /^\s*(`{3,}|~{3,})/;
// rst directives whose body is verbatim (or tabular): kept whole like a fenced block.
const CODE_DIRECTIVES = [
  'code-block', 'code', 'sourcecode', 'literalinclude', 'parsed-literal', 'doctest', 'testcode', 'testoutput',
  'ipython', 'productionlist', 'highlight', 'math', 'graphviz', 'mermaid', 'raw', 'toctree', 'autosummary',
];
const CODE_DIRECTIVE = new RegExp(`^\\s*\\.\\.\\s+(?:${CODE_DIRECTIVES.join('|')})::`);
const TABLE_DIRECTIVE = /^\s*\.\.\s+(?:csv-table|list-table|table)::/;
/** An rst directive's opening line (`.. warning::`, `.. confval:: name`). */
export const DIRECTIVE = /^\s*\.\.\s+[\w.:+-]+::(?:\s|$)/;
const DOCTEST = /^\s*>>>/;
// Grid tables (`+---+`), simple tables (`=== ===`), Markdown pipe tables and rst line blocks.
const TABLE = /^\s*(?:\+[-=+]+\+?\s*$|=+(?:\s+=+)+\s*$|\|)/;
const LIST_ITEM = /^\s*(?:[-*+•]|\d{1,3}[.)]|#\.|\(\d{1,3}\))\s+\S/;

function isBlank(line: string): boolean {
  return line.trim() === '';
}

export function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}

/** Splits text into units: blank-line paragraphs, list items, fenced / literal / directive code blocks, tables. */
export function splitUnits(text: string): TextUnit[] {
  // Lines with their terminators, so the units concatenate back to the input.
  const lines = text.split(/(?<=\n)/);
  const units: TextUnit[] = [];
  let leading = '';
  const push = (from: number, to: number, kind: UnitKind) => {
    // Blank lines after a unit belong to it.
    while (to < lines.length && isBlank(lines[to]!)) to++;
    units.push({ text: leading + lines.slice(from, to).join(''), kind });
    leading = '';
    return to;
  };
  // End (exclusive) of the block indented deeper than `base` that starts at `from`; blank lines inside it included.
  const indentedEnd = (from: number, base: number) => {
    let end = from;
    for (let j = from; j < lines.length; j++) {
      if (isBlank(lines[j]!)) continue;
      if (indentOf(lines[j]!) <= base) break;
      end = j + 1;
    }
    return end;
  };
  const paragraphEnd = (from: number, stop: (line: string) => boolean) => {
    let j = from + 1;
    while (j < lines.length && !isBlank(lines[j]!) && !stop(lines[j]!)) j++;
    return j;
  };

  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (isBlank(line)) {
      leading += line;
      i++;
      continue;
    }
    const fence = FENCE.exec(line);
    // A backtick "fence" with backticks after it is inline code (```x```), not a block.
    if (fence && !(fence[1]![0] === '`' && line.slice(fence.index + fence[0].length).includes('`'))) {
      // Closed by a fence of the same character, at least as long, with nothing after it.
      const mark = fence[1]!;
      const close = (l: string) => l.trim().length >= mark.length && /^\s*(`+|~+)\s*$/.test(l) && l.trim()[0] === mark[0];
      let j = i + 1;
      while (j < lines.length && !close(lines[j]!)) j++;
      i = push(i, Math.min(j + 1, lines.length), 'code');
      continue;
    }
    if (CODE_DIRECTIVE.test(line) || TABLE_DIRECTIVE.test(line)) {
      i = push(i, Math.max(i + 1, indentedEnd(i + 1, indentOf(line))), TABLE_DIRECTIVE.test(line) ? 'table' : 'code');
      continue;
    }
    if (DOCTEST.test(line)) {
      i = push(i, paragraphEnd(i, () => false), 'code');
      continue;
    }
    if (TABLE.test(line)) {
      i = push(i, paragraphEnd(i, () => false), 'table');
      continue;
    }
    const end = paragraphEnd(i, (l) => LIST_ITEM.test(l) || FENCE.test(l) || DIRECTIVE.test(l));
    const last = lines[end - 1]!.trimEnd();
    i = push(i, end, 'prose');
    // rst: a paragraph ending in `::` introduces a literal block, the following more-indented lines.
    if (last.endsWith('::') && !DIRECTIVE.test(line)) {
      const codeEnd = indentedEnd(i, indentOf(line));
      if (codeEnd > i) i = push(i, codeEnd, 'code');
    }
  }
  if (leading) {
    // Only blank lines: keep them, so the pieces still concatenate to the input.
    if (units.length > 0) units[units.length - 1]!.text += leading;
    else units.push({ text: leading, kind: 'prose' });
  }
  return units;
}

/**
 * Abbreviations after which ICU's sentence rules break although the sentence goes on
 * (`Dr. Smith`, `p. ej. Python`). V8 ships no ICU suppression data, so we merge such breaks back.
 * `etc.` and `no.` are left out: they end sentences as often as not.
 */
const ABBREVIATIONS = new Set([
  'mr.', 'mrs.', 'ms.', 'dr.', 'prof.', 'sr.', 'jr.', 'st.', 'vs.', 'e.g.', 'i.e.', 'cf.', 'fig.', 'approx.',
  'inc.', 'ltd.', 'co.', 'vol.', 'pp.',
  'sra.', 'srta.', 'dra.', 'ud.', 'uds.', 'vd.', 'ej.', 'pág.', 'págs.', 'núm.', 'aprox.', 'art.', 'cap.', 'ee.', 'uu.', 'admón.',
]);

/** The last word of the text the parts make, trailing whitespace skipped; the word may span parts. */
function lastWord(parts: string[]): string {
  const word: string[] = [];
  let inWord = false;
  for (let k = parts.length - 1; k >= 0; k--) {
    const part = parts[k]!;
    let end = part.length;
    if (!inWord) {
      while (end > 0 && /\s/.test(part[end - 1]!)) end--;
      if (end === 0) continue;
      inWord = true;
    }
    let start = end;
    while (start > 0 && !/\s/.test(part[start - 1]!)) start--;
    word.unshift(part.slice(start, end));
    if (start > 0) break;
  }
  return word.join('');
}

/**
 * Whether the sentence made of `parts` ends with an abbreviation. Scanning back, not `/(\S+)$/`,
 * which retries from every character of a long run of non-spaces (quadratic on a data URI).
 */
function endsWithAbbreviation(parts: string[]): boolean {
  const word = lastWord(parts).replace(/^[("'¿¡«[]+/, '');
  if (!word) return false;
  // A single letter and a dot is an initial (`J. Smith`, `a. m.`), not the end of a sentence.
  return ABBREVIATIONS.has(word.toLowerCase()) || /^\p{L}\.$/u.test(word);
}

/** Moves whitespace-only pieces onto the piece before (or after, for the first): a piece must hold text. */
export function joinBlankPieces(pieces: string[]): string[] {
  const out: string[] = [];
  let leading = '';
  for (const p of pieces) {
    if (p.trim() === '') {
      if (out.length > 0) out[out.length - 1] += p;
      else leading += p;
    } else {
      out.push(leading + p);
      leading = '';
    }
  }
  if (leading) out.push(leading);
  return out;
}

const segmenters = new Map<string, Intl.Segmenter>();

/**
 * V8's segmenter copies its whole input into every segment it yields (the `input` field): O(n²) over
 * a long paragraph (minutes for 1 MB of short sentences). So it is given windows of about this
 * many characters. A window's end can only change a break whose look-ahead reaches it, and look-ahead
 * stops at the next sentence terminator, so only the window's last break can differ from the whole
 * text's: the two segments around it are dropped, and the next window starts at the break before them.
 */
export const SEGMENT_WINDOW = 4096;

/** The segments of `text`, as `Intl.Segmenter` finds them in the whole text, found window by window. */
function* segmentsOf(segmenter: Intl.Segmenter, text: string, window: number): Generator<{ index: number; segment: string }> {
  let from = 0;
  let size = window;
  while (from < text.length) {
    const end = Math.min(text.length, from + size);
    // Only index and segment are kept: each segment object also holds its own copy of the input.
    const segments: Array<{ index: number; segment: string }> = [];
    for (const { index, segment } of segmenter.segment(text.slice(from, end))) segments.push({ index, segment });
    if (end < text.length && segments.length <= 2) {
      // One sentence fills the window: look further.
      size *= 2;
      continue;
    }
    const keep = end < text.length ? segments.length - 2 : segments.length;
    for (let k = 0; k < keep; k++) yield { index: from + segments[k]!.index, segment: segments[k]!.segment };
    if (end === text.length) return;
    from += segments[keep]!.index;
    size = window;
  }
}

/** Sentences of one prose unit; `window` is the segmenter's input size (tests compare with Infinity, the whole text). */
export function splitProse(text: string, locale = 'en', window = SEGMENT_WINDOW): string[] {
  let segmenter = segmenters.get(locale);
  if (!segmenter) segmenters.set(locale, (segmenter = new Intl.Segmenter(locale, { granularity: 'sentence' })));
  // ICU breaks after every line feed; doc paragraphs are hard-wrapped, so line ends are read as
  // spaces (same length, so the indexes still point into the original text).
  const flat = text.replace(/[\r\n]/g, ' ');
  const pieces: string[] = [];
  // Segments of the sentence being built, joined once it ends: appending to a growing string and
  // reading its end again would copy it at every step (quadratic over `A. A. A. …`).
  let open: string[] = [];
  for (const { index, segment } of segmentsOf(segmenter, flat, window)) {
    if (open.length > 0 && !endsWithAbbreviation(open)) {
      pieces.push(open.join(''));
      open = [];
    }
    open.push(text.slice(index, index + segment.length));
  }
  if (open.length > 0) pieces.push(open.join(''));
  return joinBlankPieces(pieces);
}

/**
 * Sentences of doc text: prose units split into sentences, code blocks and tables kept whole.
 * The pieces concatenate back to `text` exactly.
 */
export function splitSentences(text: string, locale?: string): string[] {
  return splitUnits(text).flatMap((u) => (u.kind === 'prose' ? splitProse(u.text, locale) : [u.text]));
}

/** Line pieces, each ending with its line feed; blank lines stay with the line before. */
export function splitAtLines(text: string): string[] {
  return joinBlankPieces(text.split(/(?<=\n)/));
}

/** Word pieces, each with the whitespace after it. */
export function splitAtWords(text: string): string[] {
  return joinBlankPieces(text.split(/(?<=\s)(?=\S)/));
}
