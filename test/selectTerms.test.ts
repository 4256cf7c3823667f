/** Query term selection for long BM25 queries (#14 item 4): pipeline/store/shared.ts `selectTerms`. */
import { describe, expect, it } from 'vitest';
import { prunesTerms, selectTerms } from '../pipeline/store/shared.ts';

describe('selectTerms', () => {
  const df = new Map([
    ['the', 900],
    ['test', 400],
    ['fixture', 40],
    ['monkeypatch', 3],
    ['tmp_path', 7],
    ['unheard', 0],
  ]);

  it('keeps the maxTerms rarest terms, in the order of the query', () => {
    expect(selectTerms(['the', 'monkeypatch', 'test', 'fixture', 'tmp_path'], 3, df)).toEqual(['monkeypatch', 'fixture', 'tmp_path']);
    expect(selectTerms(['the', 'monkeypatch', 'test', 'fixture', 'tmp_path'], 1, df)).toEqual(['monkeypatch']);
  });

  it('drops terms found nowhere before counting the kept ones', () => {
    expect(selectTerms(['unheard', 'never', 'the', 'test', 'fixture'], 2, df)).toEqual(['test', 'fixture']);
  });

  it('breaks equal frequencies by position', () => {
    const same = new Map([
      ['a', 5],
      ['b', 5],
      ['c', 5],
    ]);
    expect(selectTerms(['c', 'b', 'a'], 2, same)).toEqual(['c', 'b']);
  });

  it('leaves a query of at most maxTerms terms, or any query without a limit, as it is', () => {
    const terms = ['the', 'unheard', 'test'];
    expect(prunesTerms(terms, 3)).toBe(false);
    expect(prunesTerms(terms, undefined)).toBe(false);
    expect(prunesTerms(terms, 2)).toBe(true);
    // Not even the terms found nowhere go: a short query is never looked up.
    expect(selectTerms(terms, 3, df)).toBe(terms);
    expect(selectTerms(terms, undefined, df)).toBe(terms);
  });
});
