import { describe, expect, it } from 'vitest';
import { splitBlockText } from '../pipeline/answer/context.ts';
import { pairXquad, paragraphChunk, spanQuoted } from '../eval/xquadAnswers.ts';

// A made-up pair of files in XQuAD's (SQuAD v1.1) format: same articles, paragraphs and ids in both.
const squad = (questions: string[], ids = ['q1', 'q2']) => ({
  data: [
    {
      title: 'Steam_engine',
      paragraphs: [
        {
          context: 'A steam engine performs work using steam. Watt improved it in 1776.',
          qas: [
            { id: ids[0]!, question: questions[0]!, answers: [{ text: '1776' }, { text: '1776' }] },
            { id: ids[1]!, question: questions[1]!, answers: [{ text: 'Watt' }] },
          ],
        },
      ],
    },
  ],
});

describe('eval/xquadAnswers.ts', () => {
  const en = squad(['When did Watt improve it?', 'Who improved it?']);
  const es = squad(['¿Cuándo lo mejoró Watt?', '¿Quién lo mejoró?']);
  es.data[0]!.paragraphs[0]!.context = 'Una máquina de vapor trabaja con vapor. Watt la mejoró en 1776.';

  it('pairs the English and Spanish questions by place and id, answers deduplicated', () => {
    const set = pairXquad(en, es);
    expect(set.paragraphs).toEqual([{ article: 0, title: 'Steam_engine', index: 0, text: en.data[0]!.paragraphs[0]!.context, textEs: 'Una máquina de vapor trabaja con vapor. Watt la mejoró en 1776.' }]);
    expect(set.questions[0]).toEqual({ id: 'q1', article: 0, paragraph: 0, question: { en: 'When did Watt improve it?', es: '¿Cuándo lo mejoró Watt?' }, answers: ['1776'] });
    expect(set.questions[1]!.question.es).toBe('¿Quién lo mejoró?');
  });

  it('refuses files that are not parallel', () => {
    expect(() => pairXquad(en, squad(['a', 'b'], ['q1', 'other']))).toThrow(/q2 .* no Spanish twin/);
    expect(() => pairXquad(en, { data: [] })).toThrow(/1 English articles, 0 Spanish/);
  });

  it('makes each paragraph a docs page whose body is the paragraph', () => {
    const chunk = paragraphChunk(pairXquad(en, es).paragraphs[0]!);
    expect(chunk.citation.path).toBe('Steam_engine/paragraph-1.md');
    expect(chunk.title).toBe('Steam engine');
    expect(splitBlockText(chunk).body).toBe('A steam engine performs work using steam. Watt improved it in 1776.');
  });

  it('finds a gold span in the answer, case and spacing aside', () => {
    expect(spanQuoted('According to the documentation:\n\n- Watt improved it in  1776. [1]', ['1776'])).toBe(1);
    expect(spanQuoted('- JAMES WATT did [1]', ['James Watt'])).toBe(1);
    expect(spanQuoted('- Watt improved it. [1]', ['1776', ''])).toBe(0);
  });
});
