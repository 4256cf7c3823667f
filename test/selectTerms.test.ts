/** Query term selection for BM25 at scale (#14 item 4): pipeline/store/shared.ts `selectTerms` and `commonTerms`. */
import { describe, expect, it } from 'vitest';
import { commonTerms, prunesTerms, selectTerms } from '../pipeline/store/shared.ts';

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

describe('commonTerms', () => {
  const df = new Map([
    ['the', 900],
    ['test', 100],
    ['fixture', 40],
    ['monkeypatch', 3],
  ]);

  it('marks the terms found in more than the cutoff share of the rows', () => {
    // 1,000 rows at 10%: test (100) is at the cutoff, not above it.
    expect(commonTerms(['the', 'test', 'fixture', 'monkeypatch'], 0.1, df, 1000)).toEqual([true, false, false, false]);
    expect(commonTerms(['monkeypatch', 'the', 'test'], 0.05, df, 1000)).toEqual([false, true, true]);
    // 1 and above: a number of rows, whatever the collection's size.
    expect(commonTerms(['the', 'test', 'fixture'], 100, df, 1000)).toEqual([true, false, false]);
    expect(commonTerms(['the', 'test', 'fixture', 'monkeypatch'], 39, df, 1_000_000)).toEqual([true, true, true, false]);
  });

  it('leaves the query whole without a cutoff, or when its terms are all rare or all common', () => {
    expect(commonTerms(['the', 'monkeypatch'], undefined, df, 1000)).toBeUndefined();
    expect(commonTerms(['fixture', 'monkeypatch', 'unheard'], 0.1, df, 1000)).toBeUndefined();
    expect(commonTerms(['the', 'test'], 0.01, df, 1000)).toBeUndefined();
    expect(commonTerms(['the'], 0.01, df, 1000)).toBeUndefined();
  });
});
