import { COLLECTIONS, type Collection, type SearchHit } from '../types.ts';
import { collectionFits, type CollectionFit } from './fusion/proportional.ts';
import type { Route } from './router.ts';

/**
 * Evidence-based routing: whether a question is answered by the docs or by the code, decided by a
 * logistic model over what the router saw (which rules fired) and what retrieval
 * found (how well each collection fits the question), instead of by the rules' fixed multipliers.
 * The rules guess from words; the fits are evidence, but weak alone (BM25 scores run higher in code
 * for most questions, docs questions included, and a Spanish question is as close to English code as
 * to English docs), so the model weighs both, with coefficients fitted on labelled questions
 * (`eval/trainRouter.ts`, dev split only) and kept in config (`retrieval.router.model`). Pure: same
 * inputs, same route.
 */

export interface RouterModel {
  /** Feature name → coefficient; a feature the model does not name counts 0. */
  coefficients: Record<string, number>;
  intercept: number;
  /**
   * γ: docs and code weigh p^γ and (1 − p)^γ (default 1: p and 1 − p). The probability is fitted to
   * say which collection answers, not how to split the slots: the fits it read also set each
   * collection's share in fusion, so at γ = 1 a docs question at p = 0.7 still gives code about a
   * third of the slots, and code files push the docs' own top 5 down. γ > 1 lets the likelier
   * collection keep more of them while an unsure route (p near 0.5) still splits evenly.
   */
  sharpness?: number;
}

/** How many chunks the docs and the code hold, and how many of each mention each name a question asks about (`Store.matchCounts`). */
export interface NameMentions {
  chunks: { docs: number; code: number };
  names: { name: string; docs: number; code: number }[];
}

/**
 * Whether the names a question asks about are the docs' names or the code's: for each name either
 * collection mentions, the log of the share of docs chunks that mention it less the log of the share
 * of code chunks (ln((1 + docs) / (1 + docs chunks)) − ln((1 + code) / (1 + code chunks))), averaged;
 * undefined when there is none. A public name the docs explain (`pytest.raises`, `PYTEST_CURRENT_TEST`,
 * `yield_fixture`) is asked about in a docs question as often as in a code one, so "names an
 * identifier" alone sent such questions to code; an internal one (`FixtureFunctionMarker.__call__`,
 * `_format_repr_exception`) the docs never mention. Shares, not counts, so a repository whose code
 * outweighs its docs tenfold reads the same as one where they are even. Pure.
 */
export function documentedNames(mentions: NameMentions | undefined): number | undefined {
  const known = (mentions?.names ?? []).filter((m) => m.docs + m.code > 0);
  if (!mentions || known.length === 0) return undefined;
  const share = (n: number, of: number) => Math.log((1 + n) / (1 + of));
  const mean = known.reduce((s, m) => s + share(m.docs, mentions.chunks.docs) - share(m.code, mentions.chunks.code), 0) / known.length;
  return Math.max(-DOCUMENTED_RANGE, Math.min(DOCUMENTED_RANGE, mean));
}

/**
 * Where `documentedNames` is clipped: the shipped coefficients were fitted on values from −3.95 to 2.5
 * (pytest's dev half), and a collection of a few chunks (a README alone) gives shares far beyond that,
 * where a linear model's extrapolation is not evidence.
 */
export const DOCUMENTED_RANGE = 4;

/**
 * What the model reads, by name: one per router rule (1 when it fired), the error words asked about
 * and pasted text (below), the fit differences, and whether the names it asks about are documented
 * (`names:documented`, `documentedNames`; absent when it gives none either collection mentions, and
 * for pasted text, whose names are mentioned, not asked about). Not
 * the language: which collection answers is a matter of what is asked, and a language feature would
 * learn only how a dataset happens to mix its questions.
 */
export function routeFeatures(
  route: Pick<Route, 'fired' | 'pasted'>,
  fits: Record<Collection, CollectionFit>,
  topDense: Record<Collection, number | null>,
  mentions?: NameMentions,
): Record<string, number> {
  const features: Record<string, number> = {};
  for (const name of route.fired) features[`rule:${name}`] = 1;
  // Error words asked about, apart from those of pasted text (an issue, a traceback: mentioned, not
  // asked about) and of a question that references an issue ("where is the bug from #N?": the issue's
  // words). Counted together, the pasted issues and issue references of the training questions teach
  // the model that error words mean code, and a typed how-to question about tracebacks or failing
  // tests goes to code; a model that names these two features instead of `rule:error phrasing` tells
  // them apart (eval/trainRouter.ts --exclude "rule:error phrasing").
  if (route.fired.includes('error phrasing') && !route.pasted && !route.fired.includes('issue reference')) features['rule:error phrasing, asked'] = 1;
  if (route.pasted) features['pasted'] = 1;
  // Differences docs − code: > 0 when the docs fit the question better. A part absent on one side
  // (no candidates with that score) says nothing, so it counts 0.
  const diff = (a: number | null, b: number | null) => (a === null || b === null ? 0 : a - b);
  features['fit:dense'] = diff(fits.docs.dense, fits.code.dense);
  features['fit:bm25'] = diff(fits.docs.bm25, fits.code.bm25);
  // Raw cosine of each collection's best hit, ×20 so a typical gap (0.01–0.05) is of order one.
  features['top:dense'] = 20 * diff(topDense.docs, topDense.code);
  // Only names asked about: pasted text mentions the reporter's own (`test_b`, `AssertionError`), documented or not.
  const documented = route.pasted ? undefined : documentedNames(mentions);
  if (documented !== undefined) features['names:documented'] = documented;
  return features;
}

/**
 * How many of each collection's hybrid hits the evidence is read from: a constant, so the route (and
 * with it the ranking) never depends on `answer.budget`; 12, the default budget, is what the shipped
 * coefficients were fitted on.
 */
export const EVIDENCE_DEPTH = 12;

/** Each collection's first `EVIDENCE_DEPTH` hits: what the features are measured on. */
export function evidenceOf(lists: Partial<Record<Collection, SearchHit[]>>): Partial<Record<Collection, SearchHit[]>> {
  return Object.fromEntries(Object.entries(lists).map(([c, hits]) => [c, hits.slice(0, EVIDENCE_DEPTH)]));
}

/** The dense similarity of each collection's best hit, or null when it has none with one. */
export function topDense(lists: Partial<Record<Collection, SearchHit[]>>): Record<Collection, number | null> {
  const best = (hits: SearchHit[] = []) => hits.reduce<number | null>((m, h) => (h.dense === null ? m : Math.max(m ?? -Infinity, h.dense)), null);
  return Object.fromEntries(COLLECTIONS.map((c) => [c, best(lists[c])])) as Record<Collection, number | null>;
}

/** The model's features for a question whose collections were searched: measured on each list's first `EVIDENCE_DEPTH` hits, and on its names' mentions. */
export function evidenceFeatures(route: Pick<Route, 'fired' | 'pasted'>, lists: Partial<Record<Collection, SearchHit[]>>, mentions?: NameMentions): Record<string, number> {
  const evidence = evidenceOf(lists);
  return routeFeatures(route, collectionFits(evidence), topDense(evidence), mentions);
}

/** P(the docs answer the question) under the model. */
export function docsProbability(model: RouterModel, features: Record<string, number>): number {
  let z = model.intercept;
  for (const [name, x] of Object.entries(features)) z += (model.coefficients[name] ?? 0) * x;
  return 1 / (1 + Math.exp(-z));
}

/**
 * The route's weights with docs and code set by the model: docs p^γ, code (1 − p)^γ (γ: the model's
 * `sharpness`), issues kept at its ratio to the larger of the router's docs and code weights (an
 * issue reference stays the router's call, and a lookup brings the issue in anyway), then
 * max-normalised as the router's are. The reason line names the probability and the three features
 * that moved it most.
 */
export function learnedRoute(route: Route, model: RouterModel, features: Record<string, number>): Route {
  const p = docsProbability(model, features);
  const g = model.sharpness ?? 1;
  const issues = route.weights.issues / Math.max(route.weights.docs, route.weights.code);
  const raw: Record<Collection, number> = { docs: p ** g, code: (1 - p) ** g, issues: issues * Math.max(p, 1 - p) ** g };
  const max = Math.max(...COLLECTIONS.map((c) => raw[c]));
  const weights = Object.fromEntries(COLLECTIONS.map((c) => [c, raw[c] / max])) as Record<Collection, number>;
  const top = COLLECTIONS.reduce((best, c) => (weights[c] > weights[best] ? c : best), route.top === 'issues' && weights.issues >= 1 ? 'issues' : p >= 0.5 ? 'docs' : 'code');
  const moved = Object.entries(features)
    .map(([name, x]) => [name, (model.coefficients[name] ?? 0) * x] as const)
    .filter(([, v]) => v !== 0)
    .sort((a, b) => Math.abs(b[1]) - Math.abs(a[1]))
    .slice(0, 3)
    .map(([name, v]) => `${name} ${v > 0 ? '+' : ''}${v.toFixed(2)}`);
  const reason = `learned route: P(docs) ${p.toFixed(2)}${moved.length > 0 ? ` (${moved.join(', ')})` : ''}${g !== 1 ? `, sharpness ${g}` : ''} → docs ${weights.docs.toFixed(2)}, code ${weights.code.toFixed(2)}, issues ${weights.issues.toFixed(2)}`;
  return { ...route, weights, top, reasons: [...route.reasons, reason] };
}

/** One labelled question: its features, and whether the docs answer it. */
export interface RouteExample {
  features: Record<string, number>;
  docs: boolean;
}

/**
 * Fits the model: L2-regularised logistic regression (the intercept not penalised) by Newton's
 * method, which converges in a few steps on a handful of features and, unlike a learning rate,
 * needs no tuning. Deterministic: the same examples give the same coefficients.
 */
export function trainRouter(examples: readonly RouteExample[], l2 = 0.01, iterations = 50): RouterModel {
  if (examples.length === 0) throw new Error('trainRouter: no examples');
  const names = [...new Set(examples.flatMap((e) => Object.keys(e.features)))].sort();
  const d = names.length + 1; // index 0: the intercept
  const rows = examples.map((e) => [1, ...names.map((n) => e.features[n] ?? 0)]);
  const y = examples.map((e) => (e.docs ? 1 : 0));
  const w = new Array<number>(d).fill(0);
  const n = examples.length;
  for (let it = 0; it < iterations; it++) {
    const grad = new Array<number>(d).fill(0);
    const hess = Array.from({ length: d }, () => new Array<number>(d).fill(0));
    rows.forEach((x, i) => {
      const p = 1 / (1 + Math.exp(-x.reduce((s, xj, j) => s + xj * w[j]!, 0)));
      const r = p * (1 - p);
      for (let j = 0; j < d; j++) {
        grad[j]! += ((p - y[i]!) * x[j]!) / n;
        for (let k = 0; k < d; k++) hess[j]![k]! += (r * x[j]! * x[k]!) / n;
      }
    });
    for (let j = 1; j < d; j++) {
      grad[j]! += l2 * w[j]!;
      hess[j]![j]! += l2;
    }
    hess[0]![0]! += 1e-9; // an intercept alone in a separable set stays solvable
    const step = solve(hess, grad);
    let largest = 0;
    for (let j = 0; j < d; j++) {
      w[j]! -= step[j]!;
      largest = Math.max(largest, Math.abs(step[j]!));
    }
    if (largest < 1e-10) break;
  }
  return { intercept: w[0]!, coefficients: Object.fromEntries(names.map((name, j) => [name, w[j + 1]!])) };
}

/** Solves A x = b by Gaussian elimination with partial pivoting (A is small, symmetric, positive definite). */
function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]!]);
  for (let c = 0; c < n; c++) {
    let pivot = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r]![c]!) > Math.abs(m[pivot]![c]!)) pivot = r;
    [m[c], m[pivot]] = [m[pivot]!, m[c]!];
    const diag = m[c]![c]!;
    if (diag === 0) continue;
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = m[r]![c]! / diag;
      if (f === 0) continue;
      for (let k = c; k <= n; k++) m[r]![k]! -= f * m[c]![k]!;
    }
  }
  return m.map((row, i) => (row[i] === 0 ? 0 : row[n]! / row[i]!));
}
