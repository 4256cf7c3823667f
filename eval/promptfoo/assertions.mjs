/**
 * The offline assertions of promptfooconfig.yaml. Each reads the metadata that citaProvider.mjs puts
 * on the provider response (cita's own verification of the answer) and returns a promptfoo
 * GradingResult whose reason says what was checked and, on failure, which marker or sentence failed.
 */

function metadataOf(context) {
  return context?.metadata ?? context?.providerResponse?.metadata;
}

const missing = { pass: false, score: 0, reason: 'the provider response carries no cita metadata (not the cita provider?)' };
const list = (xs, n = 3) => xs.slice(0, n).join('; ') + (xs.length > n ? `; … (${xs.length} in all)` : '');

/** (a) Every `[n]` marker of the answer resolves to a citation that cita verified; no invalid markers. */
export function citationsVerified(_output, context) {
  const m = metadataOf(context);
  if (!m) return missing;
  const verified = new Set(m.citations.filter((c) => c.verified).map((c) => c.marker));
  const unresolved = [...new Set(m.markers.filter((n) => !verified.has(n)))];
  const problems = [
    ...unresolved.map((n) => `[${n}] has no verified citation`),
    ...m.invalid.map((i) => `[${i.marker}] ${i.problem}${i.sentence ? ` (sentence: "${i.sentence.slice(0, 80)}")` : ''}`),
  ];
  if (problems.length) return { pass: false, score: 0, reason: `citation check failed: ${list(problems)}` };
  if (m.markers.length === 0) return { pass: true, score: 1, reason: m.noAnswer ? 'explicit no-answer: no markers to check' : 'no markers in the answer' };
  return { pass: true, score: 1, reason: `${m.markers.length} markers, all resolve to ${verified.size} verified citations (${m.citations.map((c) => `[${c.marker}] ${c.path}:${c.lines}`).join(', ')})` };
}

/** (b) Offline faithfulness: every answer sentence is supported by a citation, or the answer is an explicit no-answer. */
export function sentencesSupported(_output, context) {
  const m = metadataOf(context);
  if (!m) return missing;
  if (m.noAnswer) return { pass: true, score: 1, reason: 'explicit no-answer: the generator found nothing to answer with and said so' };
  if (m.unsupported.length) return { pass: false, score: 0, reason: `${m.unsupported.length} unsupported sentence(s): ${list(m.unsupported.map((s) => `"${s.slice(0, 100)}"`))}` };
  return { pass: true, score: 1, reason: 'every sentence carries a valid citation that holds its text' };
}

/**
 * (a') The question has gold (files or an issue that hold its answer), so "not found" is a miss: it
 * fails. Without this, (a) and (b) pass an explicit no-answer, and a provider that always abstained
 * would pass the whole suite. A test whose metadata says `answerable: false` (or that has no gold)
 * passes an abstention: saying so is the right answer there.
 */
export function answersWhereGoldExists(_output, context) {
  const m = metadataOf(context);
  if (!m) return missing;
  const t = context?.test?.metadata ?? {};
  const gold = [...(t.goldFiles ?? []), ...(t.issue ? [`#${t.issue}`] : [])];
  const hasGold = t.answerable !== false && gold.length > 0;
  if (!hasGold) return { pass: true, score: 1, reason: m.noAnswer ? 'no gold answer exists, and the answer says so' : 'no gold answer to require' };
  if (m.noAnswer) return { pass: false, score: 0, reason: `no answer, but the sources hold one (gold: ${list(gold)})` };
  return { pass: true, score: 1, reason: `answered; gold exists (${list(gold)})` };
}

/** Never fails the test: retrieval is reported as a score (1 = found), not enforced. */
function goldAmong(paths, context, where) {
  const m = metadataOf(context);
  if (!m) return { ...missing, pass: true };
  const gold = context?.test?.metadata?.goldFiles ?? [];
  const found = gold.filter((g) => paths(m).includes(g));
  return found.length
    ? { pass: true, score: 1, reason: `gold ${found.join(', ')} ${where}` }
    : { pass: true, score: 0, reason: `report only, not a failure: no gold file (${list(gold)}) ${where}; ${where === 'is cited' ? 'cited' : 'in context'}: ${list(paths(m), 5) || 'nothing'}` };
}

/** (c) Retrieval as the user sees it: at least one gold file is among the cited paths. */
export function goldFileCited(_output, context) {
  return goldAmong((m) => m.citedPaths, context, 'is cited');
}

/** (c') Retrieval before generation: at least one gold file is among the context blocks. */
export function goldFileInContext(_output, context) {
  return goldAmong((m) => m.contextPaths, context, 'is in the context');
}

let promptfooAssertions;

/**
 * (d) A model-graded assertion (`config.assertion`: context-faithfulness, llm-rubric, factuality…),
 * run through promptfoo's own `runAssertion` unless the answer is an explicit no-answer: that makes
 * no claim (as in cita's offline check), and a judge would only mark it unfaithful or irrelevant.
 */
export async function judgedUnlessNoAnswer(_output, context) {
  const m = metadataOf(context);
  if (!m) return missing;
  const inner = context?.config?.assertion;
  if (!inner?.type) return { pass: false, score: 0, reason: 'judgedUnlessNoAnswer needs config.assertion with a type' };
  if (m.noAnswer) return { pass: true, score: 1, reason: `explicit no-answer: not sent to the judge (${inner.type})` };
  promptfooAssertions ??= (await import('promptfoo')).assertions;
  const r = await promptfooAssertions.runAssertion({
    prompt: context.prompt,
    provider: context.provider,
    assertion: inner,
    test: context.test,
    vars: context.vars,
    providerResponse: context.providerResponse,
  });
  return { pass: r.pass, score: r.score, reason: `${inner.type}: ${r.reason}`, ...(r.tokensUsed ? { tokensUsed: r.tokensUsed } : {}) };
}
