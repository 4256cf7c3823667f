import { describe, expect, it } from 'vitest';
import { expectedAnswerType, givesAnswerType } from '../pipeline/answer/answerType.ts';

// A question that asks for a date or a price is answered only by a quote that gives one.
describe('expectedAnswerType', () => {
  it.each([
    ['On what date is pytest 9.0 going to be released?', 'date'],
    ['In which year did Genghis Khan invade Kievan Rus?', 'date'],
    ['When will the next major version be released?', 'date'],
    ['¿Para qué fecha está prevista la publicación de pytest 9.0?', 'date'],
    ['¿Cuándo saldrá la versión 9?', 'date'],
    ['How much does the hosted service cost per month?', 'price'],
    ['¿Cuánto cuesta al mes el servicio?', 'price'],
    ['Is there a pricing page for the cloud plan?', 'price'],
  ])('%s asks for a %s', (q, type) => expect(expectedAnswerType(q)).toBe(type));

  it.each([
    'When does a function-scoped fixture run its teardown?',
    'How do I extract the price of each product on the page?',
    'You may pass a reason: how do I skip a test?',
    '¿Qué satélite se usó cuando se lanzó Sky digital?',
    '¿Cómo cambio el precio de un item en la pipeline?',
  ])('%s asks for neither', (q) => expect(expectedAnswerType(q)).toBeUndefined());

  it("reads a translated question's translation too", () => {
    expect(expectedAnswerType('¿Para cuándo está prevista?', 'On what date is it planned?')).toBe('date');
  });
});

describe('givesAnswerType', () => {
  it('a year (1185, the 1950s, 2025) or a month gives a date; a version or the modal "may" does not', () => {
    for (const q of ['It was concluded in 1279.', 'It was created in the 1950s.', 'pytest 8.4.2 was released on 2025-09-03.', 'Planned for March.', 'Publicada en septiembre.'])
      expect(givesAnswerType('date', q), q).toBe(true);
    for (const q of ['It will be removed in pytest 9.0.', 'You may pass a reason.', 'Use 3.12 or later.']) expect(givesAnswerType('date', q), q).toBe(false);
  });

  it('an amount of money, or "free", gives a price; a number alone does not', () => {
    for (const q of ['Plans start at $9 a month.', 'It costs 10 EUR.', 'Es gratis para proyectos pequeños.', 'There is a free plan.']) expect(givesAnswerType('price', q), q).toBe(true);
    for (const q of ['Run 2 spiders at once.', 'Scrapy Cloud runs your spiders.']) expect(givesAnswerType('price', q), q).toBe(false);
  });
});
