import { sectionOf, splitLines, type Section } from './section.ts';

/** Plain text has no headings: the whole file is one section (long ones are split by sentences later). */
export function parsePlainTextSections(text: string): Section[] {
  const lines = splitLines(text);
  const s = sectionOf(lines, 0, lines.length - 1, []);
  return s ? [s] : [];
}
