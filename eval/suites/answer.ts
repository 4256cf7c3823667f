import type { EvalQuestion } from '../../datasets/questions.ts';
import type { VerifiedAnswer } from '../../pipeline/answer/types.ts';
import { citedGoldShare } from '../metrics/citedGold.ts';
import { citesGoldSymbol } from '../metrics/goldSymbol.ts';
import { referenceQuoted } from '../metrics/referenceQuoted.ts';
import { referenceTermRecall } from '../metrics/referenceTerms.ts';
import type { MetricValues } from '../report/types.ts';

/**
 * Whether the answer is right, as far as a file-level gold can tell: an answerable question is
 * answered right when the answer is given and one of its verified citations is a gold file (a page
 * that holds the answer; a gold issue where the gold has no file); an unanswerable one when the generator says the sources
 * hold no answer. `citations.invalid`: answers with a marker that failed verification (must be 0).
 * `answer.referenceTerms`: where the question has a reference answer, the share of its key identifiers
 * the answer names (see metrics/referenceTerms.ts for what that can and cannot tell); an abstention
 * on an answerable question names none, so it scores 0 rather than dropping out.
 * `answer.referenceQuoted`: where the reference is a verbatim line of a gold page (cita's datasets),
 * whether the answer quotes it (metrics/referenceQuoted.ts): the passage, where `answer.right` asks
 * only for the page; an abstention scores 0.
 * `answer.firstFile`: the first file the answer cites (citations in order of first use, issues
 * skipped) is a gold file — what a reader opens first, and what a "where" answer is judged by (#15:
 * as often as the best single collection's search puts a gold file first); an abstention scores 0.
 * `answer.citedGold`: of the distinct files the answer cites (issues skipped), the share that are gold files —
 * the answer's precision, where `answer.right` is its recall of one gold page; none when it abstains or cites no file.
 * `answer.goldSymbol`: where the gold names symbols (a fix's functions), the answer cites one of them in a gold file
 * (metrics/goldSymbol.ts) — a "where" answer's symbol, beside its file; an abstention scores 0.
 */
export function answerMetrics(q: Pick<EvalQuestion, 'gold' | 'reference' | 'referenceKind'>, answer: VerifiedAnswer | undefined): MetricValues {
  if (!answer) return { 'answer.right': null, 'answer.firstFile': null, 'answer.citedGold': null, 'answer.goldSymbol': null, 'answer.abstained': null, 'answer.referenceTerms': null, 'answer.referenceQuoted': null, 'citations.invalid': null };
  const answered = !answer.noAnswer;
  const files = new Set(q.gold.files);
  const issues = new Set(q.gold.issues);
  // Where gold files exist they are the answer (a "where is the bug from #N" answer must reach the
  // code); the issue counts only for questions whose gold is an issue alone.
  const citesGold = answer.citations.some((c) => (files.size > 0 ? c.issue === undefined && files.has(c.path) : c.issue !== undefined && issues.has(c.issue)));
  const answerable = q.gold.answerable !== false;
  // Citations in order of first use, issues skipped: the first is what a reader opens first.
  const citedFiles = answer.citations.filter((c) => c.issue === undefined).map((c) => c.path);
  const firstFile = citedFiles[0];
  const citedGold = citedGoldShare(citedFiles, q.gold.files);
  const reference = answerable && q.reference ? referenceTermRecall(answered ? answer.text : '', q.reference) : null;
  const quoted = answerable && q.reference && q.referenceKind === 'quote' ? (answered ? referenceQuoted(answer.text, q.reference) : 0) : null;
  return {
    'answer.right': answerable ? (answered && citesGold ? 1 : 0) : null,
    'answer.firstFile': answerable && files.size > 0 ? (answered && firstFile !== undefined && files.has(firstFile) ? 1 : 0) : null,
    'answer.citedGold': answerable && files.size > 0 && answered ? (citedGold ?? null) : null,
    'answer.goldSymbol': answerable && q.gold.symbols.length > 0 ? (answered && citesGoldSymbol(answer.citations, q.gold.files, q.gold.symbols) ? 1 : 0) : null,
    'answer.abstained': answerable ? null : answered ? 0 : 1,
    'answer.referenceTerms': reference,
    'answer.referenceQuoted': quoted,
    'citations.invalid': answered ? (answer.invalid.length > 0 ? 1 : 0) : null,
  };
}
