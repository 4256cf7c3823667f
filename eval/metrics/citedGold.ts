/**
 * An answer's precision: of the distinct files it cites, the share that are gold; undefined when it cites none.
 * `answer.citedGold` (eval/suites/answer.ts) and eval/calibrate-extractive.ts both read it.
 */
export function citedGoldShare(cited: Iterable<string>, gold: readonly string[]): number | undefined {
  const files = [...new Set(cited)];
  return files.length > 0 ? files.filter((f) => gold.includes(f)).length / files.length : undefined;
}
