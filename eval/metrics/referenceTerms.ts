/**
 * Answer correctness against a reference answer, measured by its code identifiers: the share of the
 * reference's key terms that the answer contains as whole words. Identifiers are what a code answer
 * cannot paraphrase (`RunResult`, `from_item_and_call`), and they survive translation, so an answer in
 * Spanish is measured against the English reference as fairly as an English one; token F1 over prose
 * would penalise every Spanish answer and reward matching filler words.
 *
 * Limits (say them beside the figure): it checks that the answer names the right things, not that it
 * says the right things about them (a wrong claim about `RunResult` scores as well as a right one);
 * an answer that quotes much code collects identifiers it does not explain; a paraphrase ("the exit
 * code enum" for `ExitCode`) scores nothing; a reference whose text names no identifier has no key
 * terms and gets no score (null), rather than a guess.
 */

/** Too generic to show that an answer is about the right thing, even inside backticks. */
const GENERIC = new Set(['the', 'and', 'for', 'with', 'that', 'this', 'from', 'not', 'are', 'its', 'was', 'can', 'use', 'you', 'your', 'when', 'into', 'return', 'returns', 'None', 'True', 'False', 'self', 'def', 'class', 'import', 'assert', 'pytest']);

const WORD = /[A-Za-z_][A-Za-z0-9_]*/g;

/** An identifier by its shape alone: snake_case, camelCase or PascalCase with an inner capital. */
const looksLikeCode = (t: string) => t.includes('_') || /[a-z][A-Z]/.test(t) || /^[A-Z][a-z]+[A-Z]/.test(t);

/**
 * The reference's key terms: the words of its inline code spans (`` `x` ``), except file paths (a cited
 * file is measured by `answer.right`), rst role targets (`` :ref:`label` `` names a label, not code)
 * and string literals inside the span (an error message is prose); plus identifier-shaped words of
 * its prose. Words under 3 characters and generic words are left out.
 */
export function referenceTerms(reference: string): string[] {
  const out = new Set<string>();
  const add = (t: string) => {
    if (t.length >= 3 && !GENERIC.has(t)) out.add(t);
  };
  for (const m of reference.matchAll(/(:[a-z]+:)?`([^`\n]+)`/g)) {
    if (m[1] || m[2]!.includes('/')) continue;
    for (const t of m[2]!.replace(/"[^"]*"|'[^']*'/g, ' ').matchAll(WORD)) add(t[0]);
  }
  for (const t of reference.replace(/`[^`\n]+`/g, ' ').matchAll(WORD)) if (looksLikeCode(t[0])) add(t[0]);
  return [...out];
}

/** Share of the reference's key terms found in the answer as whole words (case-sensitive); null when it has none. */
export function referenceTermRecall(answer: string, reference: string): number | null {
  const terms = referenceTerms(reference);
  if (terms.length === 0) return null;
  const words = new Set([...answer.matchAll(WORD)].map((m) => m[0]));
  return terms.filter((t) => words.has(t)).length / terms.length;
}
