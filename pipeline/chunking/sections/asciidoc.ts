import { buildSections, splitLines, type HeadingMark, type Section } from './section.ts';

/**
 * AsciiDoc sections: `= Document title`, `== Section`, … (level = number of `=`; a trailing run of
 * `=` is allowed, as Asciidoctor does). Lines inside delimited listing (`----`), literal (`....`),
 * passthrough (`++++`), comment (`////`) and fenced (```) blocks are never headings.
 */

const HEADING = /^(={1,6})[ \t]+(\S.*?)(?:[ \t]+=+)?[ \t]*$/;
// A block closes at the same delimiter line that opened it (same character, same length).
const VERBATIM_DELIMITER = /^(-{4,}|\.{4,}|\+{4,}|\/{4,}|`{3,})[ \t]*$/;

export function parseAsciidocSections(text: string): Section[] {
  const lines = splitLines(text);
  return buildSections(lines, findAsciidocHeadings(lines));
}

export function findAsciidocHeadings(lines: string[]): HeadingMark[] {
  const marks: HeadingMark[] = [];
  let open: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const delimiter = VERBATIM_DELIMITER.exec(line)?.[1];
    if (open !== undefined) {
      if (delimiter === open) open = undefined;
      continue;
    }
    if (delimiter !== undefined) {
      open = delimiter;
      continue;
    }
    const h = HEADING.exec(line);
    if (h) marks.push({ start: i, end: i, level: h[1]!.length, title: h[2]! });
  }
  return marks;
}
