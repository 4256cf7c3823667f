/**
 * A doc section: the text between one heading and the next (of any level), with the path of
 * headings above it. Each format has a parser beside this file that only finds headings;
 * `buildSections` turns headings into sections the same way for every format.
 */

export interface Section {
  /** Heading path, outermost first; `[]` for text before the first heading. */
  headings: string[];
  /** 1-based, inclusive lines of `body` in the source (heading lines excluded, blank edges trimmed). */
  startLine: number;
  endLine: number;
  /** The source lines `startLine..endLine` joined with `\n`. Never blank. */
  body: string;
}

export type SectionParser = (text: string) => Section[];

/** A heading found by a format parser. Lines are 0-based indexes, inclusive (setext/rst titles span several). */
export interface HeadingMark {
  start: number;
  end: number;
  /** 1 is outermost. */
  level: number;
  title: string;
}

/** Source lines; line numbers must match what an editor shows, so only the BOM is dropped. */
export function splitLines(text: string): string[] {
  return text.replace(/^\uFEFF/, '').split(/\r?\n/);
}

export function isBlank(line: string): boolean {
  return line.trim() === '';
}

/** Width of leading whitespace (a tab counts as one column; good enough for relative comparisons). */
export function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}

/**
 * The non-blank section of lines `from..to` (0-based, inclusive), trimmed of blank lines at both ends,
 * or undefined when nothing but blank lines remains: empty sections are not worth a chunk.
 */
export function sectionOf(lines: string[], from: number, to: number, headings: string[]): Section | undefined {
  let a = from;
  let b = to;
  while (a <= b && isBlank(lines[a] ?? '')) a++;
  while (b >= a && isBlank(lines[b] ?? '')) b--;
  if (a > b) return undefined;
  return { headings: [...headings], startLine: a + 1, endLine: b + 1, body: lines.slice(a, b + 1).join('\n') };
}

/**
 * Sections between headings. A heading closes every open heading at its level or deeper, so a
 * skipped level (h1 → h3) still nests and a later h2 pops the h3.
 * `from`/`to` bound the lines considered (0-based, inclusive), e.g. to leave out front matter.
 */
export function buildSections(lines: string[], marks: HeadingMark[], from = 0, to = lines.length - 1): Section[] {
  const sections: Section[] = [];
  const stack: { level: number; title: string }[] = [];
  let bodyStart = from;
  const push = (end: number) => {
    const s = sectionOf(lines, bodyStart, end, stack.map((h) => h.title));
    if (s) sections.push(s);
  };
  for (const mark of [...marks].sort((x, y) => x.start - y.start)) {
    push(mark.start - 1);
    while (stack.length > 0 && stack[stack.length - 1]!.level >= mark.level) stack.pop();
    stack.push({ level: mark.level, title: mark.title });
    bodyStart = mark.end + 1;
  }
  push(to);
  return sections;
}
