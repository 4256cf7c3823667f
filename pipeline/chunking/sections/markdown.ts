import { buildSections, isBlank, sectionOf, splitLines, type HeadingMark, type Section } from './section.ts';

/**
 * Markdown and MDX sections: ATX (`## Title`) and setext (`Title` over `===` / `---`) headings,
 * CommonMark rules where they matter for finding headings. Lines inside fenced code blocks
 * (``` or ~~~) are never headings. YAML/TOML front matter becomes its own section with no headings,
 * so its title and description stay searchable.
 */

const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const SETEXT_UNDERLINE = /^ {0,3}(=+|-+)[ \t]*$/;
// Fences may sit inside list items, so any indentation is accepted.
const FENCE_OPEN = /^\s*(`{3,}|~{3,})(.*)$/;
// A setext underline under these is a list/quote/table/HTML line, not a heading (CommonMark: no lazy setext).
const NOT_SETEXT_TEXT = /^\s*(?:[-*+]\s|\d{1,9}[.)]\s|>|\||<)/;

export function parseMarkdownSections(text: string): Section[] {
  const lines = splitLines(text);
  const front = frontMatterEnd(lines);
  const sections: Section[] = [];
  let from = 0;
  if (front !== undefined) {
    const s = sectionOf(lines, 1, front - 1, []);
    if (s) sections.push(s);
    from = front + 1;
  }
  sections.push(...buildSections(lines, findMarkdownHeadings(lines, from), from));
  return sections;
}

/** Index of the line closing front matter that opens the file, if any. */
function frontMatterEnd(lines: string[]): number | undefined {
  const open = lines[0]?.trimEnd();
  if (open !== '---' && open !== '+++') return undefined;
  for (let i = 1; i < lines.length; i++) {
    const l = lines[i]!.trimEnd();
    if (l === open || (open === '---' && l === '...')) return i;
  }
  return undefined;
}

export function findMarkdownHeadings(lines: string[], from = 0): HeadingMark[] {
  const marks: HeadingMark[] = [];
  let fence: { char: string; length: number } | undefined;
  // First line of the paragraph being read, or -1: a setext underline turns the whole paragraph into the title.
  let paragraphStart = -1;
  for (let i = from; i < lines.length; i++) {
    const line = lines[i]!;
    if (fence) {
      const close = /^\s*(`{3,}|~{3,})[ \t]*$/.exec(line);
      if (close && close[1]![0] === fence.char && close[1]!.length >= fence.length) fence = undefined;
      continue;
    }
    const open = FENCE_OPEN.exec(line);
    if (open && !(open[1]![0] === '`' && open[2]!.includes('`'))) {
      fence = { char: open[1]![0]!, length: open[1]!.length };
      paragraphStart = -1;
      continue;
    }
    if (isBlank(line)) {
      paragraphStart = -1;
      continue;
    }
    const atx = ATX.exec(line);
    if (atx) {
      marks.push({ start: i, end: i, level: atx[1]!.length, title: (atx[2] ?? '').trim() });
      paragraphStart = -1;
      continue;
    }
    const under = SETEXT_UNDERLINE.exec(line);
    if (under && paragraphStart >= 0 && !NOT_SETEXT_TEXT.test(lines[paragraphStart]!)) {
      const title = lines
        .slice(paragraphStart, i)
        .map((l) => l.trim())
        .join(' ');
      marks.push({ start: paragraphStart, end: i, level: under[1]![0] === '=' ? 1 : 2, title });
      paragraphStart = -1;
      continue;
    }
    // Indented code (4+ spaces) cannot carry a setext title; neither can a line after one.
    if (paragraphStart < 0 && !/^( {4}|\t)/.test(line)) paragraphStart = i;
  }
  return marks;
}
