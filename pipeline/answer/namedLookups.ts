import { sharedSuffix, type Frame } from '../text/traceback.ts';
import type { Chunk } from '../types.ts';

/**
 * Which definition a name the question wrote leads to. A store finds every chunk that defines a name
 * or a qualified name ending in it, ordered by path; that first one is not the one meant when the
 * name is defined in several files (`runpytest_subprocess`: pytest's `Pytester` and its legacy
 * `Testdir` wrapper) or when the question qualified it and only the last part was found (`os.sep` is
 * not `TerminalWriter.sep`). Pure: the store's rows and the search's ranking in, one chunk out.
 */

/** A name to look up and the qualifier the question wrote before it (`pytester` of `pytester.getitem`), if any. */
export interface WrittenName {
  name: string;
  qualifier?: string;
  /** The dotted name this one is the last part of: looked up only when that one found nothing. */
  fallbackOf?: string;
}

/**
 * The router's symbol lookups as written names: a dotted name comes with its last part after it
 * (`a.b`, then `b`); that last part carries the qualifier and is a fallback of the whole.
 */
export function writtenNames(symbols: readonly string[]): WrittenName[] {
  return symbols.map((name, i) => {
    const whole = symbols.slice(0, i).find((s) => s.includes('.') && s.endsWith(`.${name}`));
    return whole === undefined ? { name } : { name, qualifier: whole.slice(0, -name.length - 1), fallbackOf: whole };
  });
}

/** Python's builtins (`dir(builtins)` of Python 3.11, dunder names left out). */
const PYTHON_BUILTINS = new Set(
  (
    'ArithmeticError AssertionError AttributeError BaseException BaseExceptionGroup BlockingIOError BrokenPipeError BufferError ' +
    'BytesWarning ChildProcessError ConnectionAbortedError ConnectionError ConnectionRefusedError ConnectionResetError ' +
    'DeprecationWarning EOFError Ellipsis EncodingWarning EnvironmentError Exception ExceptionGroup False FileExistsError ' +
    'FileNotFoundError FloatingPointError FutureWarning GeneratorExit IOError ImportError ImportWarning IndentationError ' +
    'IndexError InterruptedError IsADirectoryError KeyError KeyboardInterrupt LookupError MemoryError ModuleNotFoundError ' +
    'NameError None NotADirectoryError NotImplemented NotImplementedError OSError OverflowError PendingDeprecationWarning ' +
    'PermissionError ProcessLookupError RecursionError ReferenceError ResourceWarning RuntimeError RuntimeWarning ' +
    'StopAsyncIteration StopIteration SyntaxError SyntaxWarning SystemError SystemExit TabError TimeoutError True TypeError ' +
    'UnboundLocalError UnicodeDecodeError UnicodeEncodeError UnicodeError UnicodeTranslateError UnicodeWarning UserWarning ' +
    'ValueError Warning ZeroDivisionError abs aiter all anext any ascii bin bool breakpoint bytearray bytes callable chr ' +
    'classmethod compile complex copyright credits delattr dict dir divmod enumerate eval exec exit filter float format ' +
    'frozenset getattr globals hasattr hash help hex id input int isinstance issubclass iter len license list locals map max ' +
    'memoryview min next object oct open ord pow print property quit range repr reversed round set setattr slice sorted ' +
    'staticmethod str sum super tuple type vars zip'
  ).split(' '),
);

/**
 * The definitions a written name can mean. A bare name of Python's builtins (`str()`, `format`, `open`) is the
 * language's: of Python's definitions only one of the name itself at a module's top level (a project's own
 * `open()`) can be meant, never a method that shares the name (pytest #5413's "str() on the pytest.raises context
 * variable" looked up `LineMatcher.str`, and its answer listed pytester.py); a qualified one (`LineMatcher.str`) is
 * looked up as written. Other languages' definitions are kept. Pure.
 */
export function definitionsMeant(written: WrittenName, definitions: readonly Chunk[]): readonly Chunk[] {
  if (written.qualifier !== undefined || !PYTHON_BUILTINS.has(written.name)) return definitions;
  return definitions.filter((d) => !/\.pyi?$/.test(d.citation.path ?? '') || d.citation.symbol === written.name);
}

/** A word of a qualifier or path as compared: lower case, leading underscores off (`_pytest` → `pytest`). */
const word = (s: string) => s.toLowerCase().replace(/^_+/, '');

/** The words a definition can be qualified by: the parts before `name` in its qualified names, and its path's folders and file stem. */
function qualifiersOf(chunk: Chunk, name: string): Set<string> {
  const words = new Set<string>();
  for (const s of [...(chunk.symbols ?? []), chunk.citation.symbol ?? '']) {
    const parts = s.split('.');
    if (parts.at(-1) === name) for (const p of parts.slice(0, -1)) words.add(word(p));
  }
  for (const p of (chunk.citation.path ?? '').split('/')) words.add(word(p.replace(/\.[^.]*$/, '')));
  return words;
}

/**
 * The definition to place for a written name: among the store's `definitions`, those the qualifier
 * (its last part) names, when there is one — none when none does; of those, the one whose file the
 * search ranked highest (`searched`: the files of the definition's collection in search order), the
 * store's order breaking ties and placing files the search did not find.
 */
export function pickDefinition(written: WrittenName, definitions: readonly Chunk[], searched: (chunk: Chunk) => readonly string[]): Chunk | undefined {
  const qualifier = written.qualifier === undefined ? undefined : word(written.qualifier.split('.').at(-1)!);
  const kept = qualifier === undefined ? definitions : definitions.filter((d) => qualifiersOf(d, written.name).has(qualifier));
  if (kept.length <= 1) return kept[0];
  const rankOf = (d: Chunk) => {
    const at = searched(d).indexOf(d.citation.path ?? '');
    return at < 0 ? Number.POSITIVE_INFINITY : at;
  };
  return kept.map((d, order) => ({ d, order, rank: rankOf(d) })).sort((a, b) => a.rank - b.rank || a.order - b.order)[0]!.d;
}

/**
 * The definition a traceback frame is in: of the code chunks defining its function, those in a file of the frame's
 * name, the one sharing the most folders with the frame's path (`sharedSuffix`: the traceback writes the installed
 * copy, `site-packages/_pytest/…`, of `src/_pytest/…`), the store's order breaking ties (exact names first).
 */
export function frameDefinition(frame: Frame, definitions: readonly Chunk[]): Chunk | undefined {
  const shared = (c: Chunk) => sharedSuffix(frame.path, c.citation.path ?? '');
  return definitions.filter((c) => c.collection === 'code' && shared(c) > 0).reduce<Chunk | undefined>((best, c) => (best === undefined || shared(c) > shared(best) ? c : best), undefined);
}
