import { buildSections, indentOf, isBlank, splitLines, type HeadingMark, type Section } from './section.ts';

/**
 * reStructuredText sections. A title is a line of text underlined (optionally also overlined) by
 * one punctuation character repeated at least as far as the title. Levels are not fixed per
 * character: as docutils does, each adornment style (character, with or without overline) gets
 * the next level the first time it appears in the file.
 *
 * Not titles: transitions (an adornment line between blank lines), directives and comments
 * (`.. x::`), and anything inside a literal block (`::` or a directive, then an indented block).
 */

// One printable non-alphanumeric ASCII character, repeated: the rst adornment alphabet.
const ADORNMENT = /^([!-/:-@[-`{-~])\1*[ \t]*$/;
const DIRECTIVE = /^\s*\.\.\s+[\w.:+-]+::(?:\s|$)/;

export function parseRstSections(text: string): Section[] {
  const lines = splitLines(text);
  return buildSections(lines, findRstHeadings(lines));
}

function adornment(line: string | undefined): { char: string; length: number } | undefined {
  if (line === undefined) return undefined;
  const m = ADORNMENT.exec(line);
  const body = line.trimEnd();
  // `::` alone is a literal-block marker and `..` an empty comment, never adornments.
  if (!m || body === '::' || body === '..') return undefined;
  return { char: m[1]!, length: body.length };
}

function titleWidth(title: string): number {
  return [...title.trim()].length;
}

export function findRstHeadings(lines: string[]): HeadingMark[] {
  const marks: HeadingMark[] = [];
  const styles: string[] = [];
  const levelOf = (style: string) => {
    if (!styles.includes(style)) styles.push(style);
    return styles.indexOf(style) + 1;
  };
  // Indentation of the line that opened a literal block (`::` or a directive); deeper lines belong to it.
  let literalIndent: number | undefined;
  // Only after a blank line (or another title) can a title start; otherwise it is paragraph text.
  let afterBreak = true;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (isBlank(line)) {
      afterBreak = true;
      continue;
    }
    if (literalIndent !== undefined) {
      if (indentOf(line) > literalIndent) continue;
      literalIndent = undefined;
    }
    const over = adornment(line);
    if (over && afterBreak) {
      const title = lines[i + 1];
      const under = adornment(lines[i + 2]);
      if (
        title !== undefined &&
        !isBlank(title) &&
        !adornment(title) &&
        under?.char === over.char &&
        under.length === over.length &&
        over.length >= titleWidth(title)
      ) {
        marks.push({ start: i, end: i + 2, level: levelOf(`${over.char}/over`), title: title.trim() });
        i += 2;
        afterBreak = true;
        continue;
      }
    }
    if (!over && afterBreak && indentOf(line) === 0 && !line.startsWith('..')) {
      const under = adornment(lines[i + 1]);
      if (under && under.length >= titleWidth(line)) {
        marks.push({ start: i, end: i + 1, level: levelOf(under.char), title: line.trim() });
        i += 1;
        afterBreak = true;
        continue;
      }
    }
    afterBreak = false;
    if (line.trimEnd().endsWith('::') || DIRECTIVE.test(line)) literalIndent = indentOf(line);
  }
  return marks;
}
