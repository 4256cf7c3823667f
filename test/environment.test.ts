import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readIssueExport } from '../pipeline/sources/issues/file.ts';
import { searchedText, withoutEnvironment } from '../pipeline/text/environment.ts';
import { sharedDatasets } from './support/paths.ts';

// What a pasted issue is searched with: the bug, not the reporter's environment.
describe('withoutEnvironment', () => {
  it('leaves out a pip list with its header and dashes, and keeps the prose and code around it', () => {
    const text = [
      'str() on the raises context does not behave like the exception',
      '',
      'Pip list gives',
      '```',
      'Package            Version  Location',
      '------------------ -------- ----------------',
      'apipkg             1.5',
      'boto3              1.9.51',
      'pytest             4.6.2    /home/me/src/pytest',
      '```',
      'with pytest.raises(LookupError) as e:',
    ].join('\r\n');
    const w = withoutEnvironment(text);
    expect(w.left).toEqual(['3 lines of a package list']);
    expect(w.text).not.toMatch(/boto3|apipkg|Package|-----/);
    expect(w.text).toContain('str() on the raises context');
    expect(w.text).toContain('with pytest.raises(LookupError) as e:');
  });

  it("leaves out pip freeze's name==version lines and pip's install log", () => {
    const text = ['nox > pip freeze', 'attrs==19.3.0', 'pluggy==0.13.1', 'py==1.8.1', 'Installing collected packages: zipp, six, PyYAML', 'Successfully installed zipp-3.15.0 six-1.16.0', 'nox > pytest'].join('\n');
    const w = withoutEnvironment(text);
    expect(w.text).toBe('nox > pip freeze\nnox > pytest');
    expect(w.left).toEqual(['3 lines of a package list', "2 lines of pip's install log"]);
  });

  it("leaves out the template's HTML comments, which GitHub does not show", () => {
    const w = withoutEnvironment('Title\n<!--\nThanks for submitting an issue!\n-->\n\nThe bug.');
    expect(w.text).toBe('Title\n\n\nThe bug.');
    expect(w.left).toEqual(['an HTML comment']);
    // A comment ends at the first `-->`; an unclosed one is left as written (and many of them cost a scan, not a regex's
    // quadratic search: a megabyte of `<!--` once took 43 s).
    expect(withoutEnvironment('a <!-- b <!-- c --> d <!-- e')).toEqual({ text: 'a  d <!-- e', left: ['an HTML comment'] });
    expect(withoutEnvironment('<!--'.repeat(200_000)).left).toEqual([]);
  });

  it('keeps versions a sentence names, fewer than three listed, and code and test output', () => {
    const text = [
      'Works with pytest 7.4.0 but not with',
      'pytest 8.0.0',
      'pluggy 1.2.0',
      '',
      'x = 1.5',
      'collected 1 item',
      'test_a.py F   [100%]',
      'platform linux -- Python 3.7.5, pytest-5.3.2, py-1.8.1, pluggy-0.13.1',
    ].join('\n');
    expect(withoutEnvironment(text)).toEqual({ text, left: [] });
  });

  it('is the identity under retrieval.environment: keep', () => {
    const text = 'a\nattrs==19.3.0\npluggy==0.13.1\npy==1.8.1';
    expect(searchedText(text, 'keep')).toEqual({ text, left: [] });
    expect(searchedText(text, 'leave-out').text).toBe('a');
    // Nothing but an environment: that is all there is to search.
    const only = 'attrs 1.0.0\npluggy 2.0.0\npy 3.0.0';
    expect(searchedText(only, 'leave-out')).toEqual({ text: only, left: [] });
    expect(searchedText('<!-- a comment -->', 'leave-out')).toEqual({ text: '<!-- a comment -->', left: [] });
  });

  it("a real issue (pytest #5413): its 79-line pip list goes, its example and question stay", () => {
    const { issues } = readIssueExport(path.join(sharedDatasets, 'pytest/issues.json'));
    const body = issues.find((i) => i.number === 5413)!.body;
    const w = withoutEnvironment(body);
    expect(w.left).toEqual(['79 lines of a package list']);
    expect(w.text).not.toMatch(/boto3|botocore|Jinja2/);
    for (const kept of ['with pytest.raises(LookupError) as e:', 'str(e.value)', 'Any chance the behavior could be changed']) expect(w.text).toContain(kept);
    expect(w.text.length).toBeLessThan(body.length / 3);
  });
});
