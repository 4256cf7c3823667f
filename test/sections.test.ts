import { describe, expect, it } from 'vitest';
import { parseAsciidocSections } from '../pipeline/chunking/sections/asciidoc.ts';
import { parseMarkdownSections } from '../pipeline/chunking/sections/markdown.ts';
import { parsePlainTextSections } from '../pipeline/chunking/sections/plaintext.ts';
import { parseRstSections } from '../pipeline/chunking/sections/rst.ts';
import type { Section } from '../pipeline/chunking/sections/section.ts';

/** Sections as `[headings joined by ' / ', startLine, endLine]`: one line per expected section. */
type Outline = [string, number, number][];
const outline = (sections: Section[]): Outline => sections.map((s) => [s.headings.join(' / '), s.startLine, s.endLine]);
const lines = (...ls: string[]) => ls.join('\n');

describe('parseMarkdownSections', () => {
  it.each<[string, string, Outline]>([
    ['ATX levels nest and pop', lines('# A', 'a', '## B', 'b', '# C', 'c'), [['A', 2, 2], ['A / B', 4, 4], ['C', 6, 6]]],
    ['text before the first heading has no headings', lines('intro', '', '# A', 'a'), [['', 1, 1], ['A', 4, 4]]],
    ['closing hashes are not part of the title', lines('## Title ##', 'x'), [['Title', 2, 2]]],
    ['#word is not a heading', lines('#hashtag', '#5 issue'), [['', 1, 2]]],
    ['# inside a ``` fence is code', lines('# A', '```python', '# comment', '```', 'after'), [['A', 2, 5]]],
    ['# inside a ~~~ fence is code', lines('# A', '~~~', '# comment', '~~~~', '## B', 'b'), [['A', 2, 4], ['A / B', 6, 6]]],
    ['a shorter fence does not close a longer one', lines('# A', '````', '```', '# no', '````', 'x'), [['A', 2, 6]]],
    ['setext = and -', lines('Title', '=====', 'a', '', 'Sub', '---', 'b'), [['Title', 3, 3], ['Title / Sub', 7, 7]]],
    ['a --- after a blank line is a thematic break', lines('# A', 'a', '', '---', 'b'), [['A', 2, 5]]],
    ['a --- under a list item is not a setext heading', lines('# A', '- item', '---', 'b'), [['A', 2, 4]]],
    ['a multi-line paragraph becomes one setext title', lines('one', 'two', '===', 'x'), [['one two', 4, 4]]],
    ['skipped levels still nest', lines('# A', '### C', 'c', '## B', 'b'), [['A / C', 3, 3], ['A / B', 5, 5]]],
    ['front matter is its own section', lines('---', 'title: T', '---', '# A', 'a'), [['', 2, 2], ['A', 5, 5]]],
    ['heading-only sections and blank edges are dropped', lines('# A', '', '## B', '', 'b', '', ''), [['A / B', 5, 5]]],
    ['CRLF line ends', '# A\r\na\r\n# B\r\nb\r\n', [['A', 2, 2], ['B', 4, 4]]],
  ])('%s', (_name, text, expected) => {
    expect(outline(parseMarkdownSections(text))).toEqual(expected);
  });

  it('keeps the exact body lines', () => {
    const [s] = parseMarkdownSections(lines('# A', '', 'first', '', '    indented', ''));
    expect(s).toEqual({ headings: ['A'], startLine: 3, endLine: 5, body: 'first\n\n    indented' });
  });
});

describe('parseRstSections', () => {
  it.each<[string, string, Outline]>([
    [
      'levels follow the order in which adornment styles first appear',
      lines('Top', '###', '', 'a', '', 'Mid', '***', '', 'b', '', 'Low', '===', '', 'c', '', 'Mid2', '****', '', 'd'),
      [['Top', 4, 4], ['Top / Mid', 9, 9], ['Top / Mid / Low', 14, 14], ['Top / Mid2', 19, 19]],
    ],
    [
      'the same character with and without overline are two styles',
      lines('=====', 'Title', '=====', '', 'a', '', 'Sub', '=====', '', 'b', '', '=====', 'Next', '=====', 'c'),
      [['Title', 5, 5], ['Title / Sub', 10, 10], ['Next', 15, 15]],
    ],
    ['an overlined title may be inset', lines('-------', ' Inset ', '-------', 'x'), [['Inset', 4, 4]]],
    ['an underline shorter than the title is not a title', lines('Long title', '=====', 'x'), [['', 1, 3]]],
    ['a transition between blank lines is not a title', lines('T', '=', '', 'a', '', '----------', '', 'b'), [['T', 4, 8]]],
    ['a directive is not a title', lines('.. note::', '=========', 'x'), [['', 1, 3]]],
    ['indented text under a rule is not a title', lines('T', '=', '', '   quoted', '   ======', 'x'), [['T', 4, 6]]],
    [
      'a literal block is not searched for titles',
      lines('T', '=', '', 'Example::', '', '    Fake', '    ----', '', 'after', '', 'U', '-', 'u'),
      [['T', 4, 9], ['T / U', 13, 13]],
    ],
    [
      'a code-block body is not searched for titles',
      lines('.. code-block:: text', '', '    Fake', '    ====', '', 'T', '=', 't'),
      [['', 1, 4], ['T', 8, 8]],
    ],
    ['a title needs a blank line before it', lines('para', 'Title', '=====', 'x'), [['', 1, 4]]],
    ['labels before a title stay with the previous section', lines('.. _label:', '', 'T', '=', 't'), [['', 1, 1], ['T', 5, 5]]],
    ['a line of :: is not an underline', lines('ab', '::', '', '    code'), [['', 1, 4]]],
  ])('%s', (_name, text, expected) => {
    expect(outline(parseRstSections(text))).toEqual(expected);
  });
});

describe('parseAsciidocSections', () => {
  it.each<[string, string, Outline]>([
    ['levels by number of =', lines('= Doc', 'intro', '== A', 'a', '=== B', 'b', '== C', 'c'), [['Doc', 2, 2], ['Doc / A', 4, 4], ['Doc / A / B', 6, 6], ['Doc / C', 8, 8]]],
    ['symmetric trailing = is allowed', lines('== A ==', 'a'), [['A', 2, 2]]],
    ['== inside a ---- listing block is code', lines('== A', '----', '== not a title', '----', 'after'), [['A', 2, 5]]],
    ['== inside a .... literal block is code', lines('== A', '....', '== no', '....', '== B', 'b'), [['A', 2, 4], ['B', 6, 6]]],
    ['==== without a title is an example block delimiter', lines('== A', '====', 'ex', '===='), [['A', 2, 4]]],
    ['=word is not a heading', lines('==nope', 'x'), [['', 1, 2]]],
  ])('%s', (_name, text, expected) => {
    expect(outline(parseAsciidocSections(text))).toEqual(expected);
  });
});

describe('parsePlainTextSections', () => {
  it.each<[string, string, Outline]>([
    ['the whole file is one section', lines('# not a heading', 'Title', '=====', 'x'), [['', 1, 4]]],
    ['blank edges are trimmed', lines('', '', 'a', '', 'b', ''), [['', 3, 5]]],
    ['whitespace only gives no section', '  \n\n\t\n', []],
  ])('%s', (_name, text, expected) => {
    expect(outline(parsePlainTextSections(text))).toEqual(expected);
  });
});
