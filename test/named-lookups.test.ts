import { describe, expect, it } from 'vitest';
import { definitionsMeant, pickDefinition, writtenNames } from '../pipeline/answer/namedLookups.ts';
import type { Chunk } from '../pipeline/types.ts';

/** A code chunk defining `symbol` in `path`. */
const def = (path: string, symbol: string): Chunk => ({
  id: `${path}:${symbol}`,
  collection: 'code',
  text: symbol,
  title: `${path}:${symbol}`,
  citation: { path, startLine: 1, endLine: 9, symbol },
  tokens: 1,
  symbols: [symbol],
});

// As a store returns them: by path.
const LEGACY = def('src/_pytest/legacypath.py', 'Testdir.getitem');
const PYTESTER = def('src/_pytest/pytester.py', 'Pytester.getitem');
const SEP = def('src/_pytest/_io/terminalwriter.py', 'TerminalWriter.sep');
const RAISES = def('src/_pytest/python_api.py', 'raises');
const noSearch = () => [];

describe('writtenNames', () => {
  it('gives a dotted name’s last part the qualifier written before it, as a fallback of the whole', () => {
    expect(writtenNames(['pytester.getitem', 'getitem', 'tmp_path'])).toEqual([
      { name: 'pytester.getitem' },
      { name: 'getitem', qualifier: 'pytester', fallbackOf: 'pytester.getitem' },
      { name: 'tmp_path' },
    ]);
    expect(writtenNames(['pytest.mark.skipif', 'skipif'])[1]).toEqual({ name: 'skipif', qualifier: 'pytest.mark', fallbackOf: 'pytest.mark.skipif' });
  });
});

describe('pickDefinition', () => {
  it('takes the definition the written qualifier names, whatever the store’s order', () => {
    const [, getitem] = writtenNames(['pytester.getitem', 'getitem']);
    expect(pickDefinition(getitem!, [LEGACY, PYTESTER], noSearch)).toBe(PYTESTER);
    expect(pickDefinition({ name: 'getitem', qualifier: 'Testdir' }, [LEGACY, PYTESTER], noSearch)).toBe(LEGACY);
  });

  it('matches a qualifier against the path too, leading underscores aside (a module, a package)', () => {
    expect(pickDefinition({ name: 'raises', qualifier: 'pytest' }, [RAISES], noSearch)).toBe(RAISES);
    expect(pickDefinition({ name: 'raises', qualifier: 'python_api' }, [RAISES], noSearch)).toBe(RAISES);
  });

  it('places nothing when no definition has the qualifier written (os.sep is not TerminalWriter.sep)', () => {
    expect(pickDefinition({ name: 'sep', qualifier: 'os' }, [SEP], noSearch)).toBeUndefined();
    expect(pickDefinition({ name: 'path', qualifier: 'sys' }, [SEP, RAISES], noSearch)).toBeUndefined();
  });

  it('of several definitions takes the one whose file search ranks highest, the store’s order otherwise', () => {
    const searched = () => ['src/_pytest/main.py', 'src/_pytest/pytester.py', 'src/_pytest/legacypath.py'];
    expect(pickDefinition({ name: 'getitem' }, [LEGACY, PYTESTER], searched)).toBe(PYTESTER);
    expect(pickDefinition({ name: 'getitem' }, [LEGACY, PYTESTER], () => ['src/_pytest/legacypath.py'])).toBe(LEGACY);
    expect(pickDefinition({ name: 'getitem' }, [LEGACY, PYTESTER], noSearch)).toBe(LEGACY);
    expect(pickDefinition({ name: 'getitem' }, [LEGACY, PYTESTER], () => ['src/_pytest/pytester.py'])).toBe(PYTESTER);
  });

  it('keeps a single unqualified definition as the store gave it, and has none to give for none', () => {
    expect(pickDefinition({ name: 'raises' }, [RAISES], noSearch)).toBe(RAISES);
    expect(pickDefinition({ name: 'raises' }, [], noSearch)).toBeUndefined();
  });
});

describe('definitionsMeant', () => {
  const STR = def('src/_pytest/pytester.py', 'LineMatcher.str');
  const OPEN = def('src/click/utils.py', 'open');
  const FORMAT_TS = def('web/format.ts', 'Printer.format');

  it("does not take a method for a bare name of Python's builtins: `str()` is the language's", () => {
    expect(definitionsMeant({ name: 'str' }, [STR])).toEqual([]);
    // A module-level definition of the name itself is the project's own; another language's definitions are kept.
    expect(definitionsMeant({ name: 'open' }, [def('src/click/termui.py', 'Editor.open'), OPEN])).toEqual([OPEN]);
    expect(definitionsMeant({ name: 'format' }, [FORMAT_TS])).toEqual([FORMAT_TS]);
  });

  it('looks a qualified builtin name, and any other name, up as before', () => {
    const [, str] = writtenNames(['LineMatcher.str', 'str']);
    expect(definitionsMeant(str!, [STR])).toEqual([STR]);
    expect(definitionsMeant({ name: 'getitem' }, [LEGACY, PYTESTER])).toEqual([LEGACY, PYTESTER]);
  });
});
