import { describe, expect, it } from 'vitest';
import { sharedSuffix, tracebackFrames } from '../pipeline/text/traceback.ts';

// Where a pasted traceback failed: its frames innermost first, and which file of the sources a frame is in.
describe('tracebackFrames', () => {
  it("reads Python's frames, innermost first, without <module> names", () => {
    const text = [
      'Traceback (most recent call last):',
      '  File "/home/me/app.py", line 3, in <module>',
      '    main()',
      '  File "/venv/lib/python3.11/site-packages/widgets/loader.py", line 12, in parse_config',
      '    return json.loads(text)',
      'json.decoder.JSONDecodeError: Expecting value',
    ].join('\n');
    expect(tracebackFrames(text)).toEqual([
      { path: '/venv/lib/python3.11/site-packages/widgets/loader.py', line: 12, name: 'parse_config' },
      { path: '/home/me/app.py', line: 3 },
    ]);
  });

  it("reads pytest's `path:N: in name` frames and INTERNALERROR's, each path and function once", () => {
    const text = [
      '/usr/lib/python3.8/site-packages/_pytest/runner.py:341: in from_call',
      '    result: Optional[TResult] = func()',
      '/usr/lib/python3.8/site-packages/_pytest/assertion/rewrite.py:695: in run',
      '    if self.is_rewrite_disabled(doc):',
      '/usr/lib/python3.8/site-packages/_pytest/assertion/rewrite.py:760: in is_rewrite_disabled',
      '    return "PYTEST_DONT_REWRITE" in docstring',
      "E   TypeError: argument of type 'int' is not iterable",
      'INTERNALERROR>   File "C:\\py\\site-packages\\_pytest\\_io\\saferepr.py", line 23, in _format_repr_exception',
      'INTERNALERROR>   File "C:\\py\\site-packages\\_pytest\\_io\\saferepr.py", line 23, in _format_repr_exception',
    ].join('\n');
    expect(tracebackFrames(text).map((f) => `${f.path}:${f.line} ${f.name}`)).toEqual([
      'C:/py/site-packages/_pytest/_io/saferepr.py:23 _format_repr_exception',
      '/usr/lib/python3.8/site-packages/_pytest/assertion/rewrite.py:760 is_rewrite_disabled',
      '/usr/lib/python3.8/site-packages/_pytest/assertion/rewrite.py:695 run',
      '/usr/lib/python3.8/site-packages/_pytest/runner.py:341 from_call',
    ]);
  });

  it('finds none in prose, code without a traceback, or a failure line without a function', () => {
    expect(tracebackFrames('The file rewrite.py, line 3, in the docs says so.\n../test_path_error.py:29: AssertionError\nx = f("a.py")')).toEqual([]);
  });
});

describe('sharedSuffix', () => {
  it('counts the trailing folders a frame shares with a file of the sources, 0 when the file names differ', () => {
    expect(sharedSuffix('/usr/lib/site-packages/_pytest/assertion/rewrite.py', 'src/_pytest/assertion/rewrite.py')).toBe(3);
    expect(sharedSuffix('/venv/site-packages/loader.py', 'src/loader.py')).toBe(1);
    expect(sharedSuffix('/usr/lib/python3.8/importlib/__init__.py', 'src/_pytest/__init__.py')).toBe(1);
    expect(sharedSuffix('/usr/lib/site-packages/_pytest/python.py', 'src/_pytest/python_api.py')).toBe(0);
  });
});
