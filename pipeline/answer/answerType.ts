/**
 * The kind of answer a question asks for, when its words say so, and whether a quote gives one: a question that
 * asks for a date ("On what date is 9.0 released?", "¿Para qué fecha está prevista…?") or a price ("How much does
 * the hosted service cost per month?", "¿Cuánto cuesta…?"; not a `price` field a scraper extracts) is not answered
 * by sentences that give neither, however close in meaning (expected answer types, as question answering has
 * checked them since Li & Roth 2002). Only explicit asks count: "when does the fixture run" asks for a moment of a
 * run, not a date. Pure.
 */

export type AnswerType = 'date' | 'price';

/** `\b` for any script: JavaScript's is ASCII's even under `u` (no boundary after `saldrá`). */
const B = String.raw`(?<![\p{L}\p{N}_])`;
const E = String.raw`(?![\p{L}\p{N}_])`;
const words = (alternatives: string[]) => new RegExp(alternatives.map((a) => `${B}(?:${a})${E}`).join('|'), 'iu');

/** The question's own words (English or Spanish) or its translation's that ask for each type. */
const ASKS: Record<AnswerType, RegExp> = {
  date: words([
    String.raw`(?:on |by |in |for )?(?:what|which) (?:date|day|year)`,
    'release date',
    String.raw`when (?:is|will|was|does|did)${E}[^?.]*${B}(?:released|come out|ship|shipped|published)`,
    'qu[eé] (?:fecha|d[ií]a|a[nñ]o)',
    'fecha de (?:publicaci[oó]n|lanzamiento|salida)',
    // `cuándo` accented: unaccented, `cuando se lanzó` is "when it was launched", a clause, not a question.
    'cuándo (?:sale|saldr[aá]|sali[oó]|se publica|se publicar[aá]|se public[oó]|se lanza|se lanzar[aá]|se lanz[oó])',
  ]),
  price: words([
    String.raw`how much (?:does|do|will|would|is|are)${E}[^?.]*${B}cost`,
    'pricing',
    String.raw`costs? per (?:month|year|user|seat)`,
    'cu[aá]nto (?:cuesta|cuestan|costar[aá])',
    String.raw`(?:coste|costo|precio) (?:mensual|anual|al mes|al a[nñ]o|por mes)`,
  ]),
};

const MONTHS =
  // Not `may`, English's modal verb.
  'january|february|march|april|june|july|august|september|october|november|december|enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|setiembre|octubre|noviembre|diciembre';

/** What a quote must hold to give each type: a year or a month; an amount of money, or "free". */
const GIVES: Record<AnswerType, RegExp> = {
  // A year (1185, 1774, 2025, the 1950s) or a month.
  date: words([String.raw`[12]\d{3}s?`, MONTHS]),
  price: new RegExp(String.raw`[$€£¥]\s?\d|\d\s?(?:USD|EUR|GBP|dollars?|euros?|d[oó]lares)${E}|${B}(?:USD|EUR|GBP)\s?\d|${B}(?:free|gratis|gratuit[oa]s?)${E}`, 'iu'),
};

/** The type the question (or its translation) explicitly asks for; undefined for most questions. */
export function expectedAnswerType(question: string, translation?: string): AnswerType | undefined {
  const texts = [question, ...(translation !== undefined ? [translation] : [])];
  return (Object.keys(ASKS) as AnswerType[]).find((t) => texts.some((x) => ASKS[t].test(x)));
}

/** Whether a quote gives an answer of the type. */
export function givesAnswerType(type: AnswerType, quote: string): boolean {
  return GIVES[type].test(quote);
}
