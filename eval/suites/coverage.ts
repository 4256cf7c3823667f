import type { Store } from '../../pipeline/store/store.ts';
import type { Embedder } from '../../pipeline/types.ts';
import type { CoverageRow, Lang, MetricValues, QuestionResult } from '../report/types.ts';

/**
 * Honest coverage: what the index and the model can reach at all, so a retrieval figure is read
 * against its ceiling. A gold file the index does not hold (pytest's `testing/` is not indexed) can
 * never be retrieved; a question longer than the model window is embedded from its first tokens only.
 */

/** Every file path the index holds (code and docs; issues are not files), read once per run in pages. */
export async function indexedPaths(store: Pick<Store, 'ids' | 'get'>): Promise<Set<string>> {
  const paths = new Set<string>();
  for (const c of ['docs', 'code'] as const) {
    const ids = await store.ids(c);
    for (let i = 0; i < ids.length; i += 500) for (const chunk of await store.get(ids.slice(i, i + 500))) paths.add(chunk.citation.path);
  }
  return paths;
}

/** The question's gold files split by whether the index holds them. */
export function goldReachability(goldFiles: readonly string[], indexed: ReadonlySet<string>): { reachable: string[]; unreachable: string[] } {
  return { reachable: goldFiles.filter((f) => indexed.has(f)), unreachable: goldFiles.filter((f) => !indexed.has(f)) };
}

/** Tokens of the question as the model reads it as a query (query prefix and specials included). */
export function queryTokens(embedder: Pick<Embedder, 'countTokens' | 'countQueryTokens'>, question: string): number {
  return embedder.countQueryTokens ? embedder.countQueryTokens(question) : embedder.countTokens(question);
}

/**
 * Per question: `gold.reachable` is the share of its gold files the index holds (its own ceiling of
 * file recall at any depth; null without gold files); `query.overWindow` is 1 when the question is
 * longer than the model window as a query.
 */
export function coverageMetrics(goldFiles: readonly string[], reachable: readonly string[], tokens: number, window: number): MetricValues {
  return {
    'gold.reachable': goldFiles.length ? reachable.length / goldFiles.length : null,
    'query.overWindow': tokens > window ? 1 : 0,
  };
}

/**
 * The coverage table: per dataset and language (and over all), how many questions have gold files,
 * how many have none of them indexed (unreachable: no retrieval can find them; they stay in the
 * retrieval means, counted as misses, and are counted here apart), how many have some but not all,
 * the recall ceiling (mean share of gold indexed over the questions with gold files, the highest
 * mean file recall the index allows), and the questions over the model window.
 */
export function coverageRows(results: readonly QuestionResult[]): CoverageRow[] {
  // Results written before coverage was recorded have neither field: they are left out, not guessed.
  const questions = results.filter((q) => q.gold.reachable && q.query);
  if (questions.length === 0) return [];
  const keys: { dataset?: string; lang?: Lang }[] = [{}];
  for (const d of [...new Set(questions.map((q) => q.dataset))].sort()) {
    keys.push({ dataset: d });
    for (const lang of ['en', 'es'] as const) if (questions.some((q) => q.dataset === d && q.lang === lang)) keys.push({ dataset: d, lang });
  }
  return keys.map((k) => {
    const sel = questions.filter((q) => (k.dataset === undefined || q.dataset === k.dataset) && (k.lang === undefined || q.lang === k.lang));
    const withGold = sel.filter((q) => q.gold.files.length > 0);
    const reachable = (q: QuestionResult) => q.gold.reachable!.length;
    return {
      ...k,
      questions: sel.length,
      withGoldFiles: withGold.length,
      unreachable: withGold.filter((q) => reachable(q) === 0).length,
      partlyReachable: withGold.filter((q) => reachable(q) > 0 && reachable(q) < q.gold.files.length).length,
      recallCeiling: withGold.length ? withGold.reduce((s, q) => s + reachable(q) / q.gold.files.length, 0) / withGold.length : null,
      overWindow: sel.filter((q) => q.query!.tokens > q.query!.window).length,
      maxQueryTokens: sel.reduce((m, q) => Math.max(m, q.query!.tokens), 0),
      window: sel[0]?.query?.window ?? null,
    };
  });
}
