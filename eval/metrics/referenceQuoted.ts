/**
 * Whether an answer quotes the passage that holds the answer: cita's datasets give each answerable
 * question a `reference`, a verbatim line of a gold page that says the answer. `answer.right` asks
 * only that a gold page be cited; an answer can cite the right page and quote four sentences around
 * the answer but not it. This asks for the line itself: the answer holds a run of at least `MIN_RUN`
 * consecutive words of the reference (all of it, when shorter), compared as lower-case words, markup
 * and punctuation aside. Quotes are verbatim English whatever the question's language, so Spanish and
 * English answers are measured alike.
 *
 * Limits: one line per question, where a page may say the answer in several places (an answer
 * quoting another right sentence scores 0: a lower bound); a reference written with an elision
 * (`A ... B`) needs a run on one side of it.
 */

/** Six words in a row are rarely shared by two different sentences of a page. */
export const MIN_RUN = 6;

function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** 1 when the answer holds a run of `MIN_RUN` consecutive words of the reference (or all of a shorter one), else 0. */
export function referenceQuoted(answer: string, reference: string): number {
  const ref = words(reference);
  if (ref.length === 0) return 0;
  const run = Math.min(MIN_RUN, ref.length);
  const said = words(answer);
  const grams = new Set<string>();
  for (let i = 0; i + run <= said.length; i++) grams.add(said.slice(i, i + run).join(' '));
  for (let i = 0; i + run <= ref.length; i++) if (grams.has(ref.slice(i, i + run).join(' '))) return 1;
  return 0;
}
