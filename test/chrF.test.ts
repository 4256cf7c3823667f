import { describe, expect, it } from 'vitest';
import { chrf, corpusChrf } from '../eval/metrics/chrF.ts';

// Expected values from sacreBLEU 2.6.0 (`sacrebleu.sentence_chrf` / `corpus_chrf`, defaults), the reference implementation.
describe('chrF', () => {
  it('scores segments as sacreBLEU does', () => {
    expect(chrf('the cat sat on the mat', 'the cat is on the mat')).toBeCloseTo(64.577942, 5);
    expect(chrf('El niño comió', 'el nino comio')).toBeCloseTo(36.076239, 5);
    expect(chrf('Árbol   grande', 'Árbol grande!')).toBeCloseTo(91.096666, 5);
    expect(chrf('same words', 'same words')).toBe(100);
  });

  it('gives 0 when nothing matches or one side is empty', () => {
    expect(chrf('a', 'b')).toBe(0);
    expect(chrf('', 'abc')).toBe(0);
  });

  it('sums the counts over a corpus before scoring, not the segment scores', () => {
    const pairs = [
      { hypothesis: 'the cat sat on the mat', reference: 'the cat is on the mat' },
      { hypothesis: 'El niño comió', reference: 'el nino comio' },
    ];
    expect(corpusChrf(pairs)).toBeCloseTo(53.869705, 5);
    expect(corpusChrf(pairs)).not.toBeCloseTo((64.577942 + 36.076239) / 2, 1);
  });

  it('reads characters as code points, and a byte-order mark as a character, as Python does', () => {
    expect(chrf('𝒜bc', '𝒜bd')).toBeCloseTo(38.888889, 5);
    expect(chrf('Los gatos', '\ufeffLos gatos')).toBeCloseTo(86.269171, 5);
  });
});
