import { leafOf } from '../../pipeline/store/shared.ts';

/**
 * Whether an answer cites a gold symbol: a code citation in a gold file whose symbol (`Class.method`) ends in the name
 * a gold symbol ends in — what a "where" answer names beside each file. Gold symbols are as of the issue's fix, so one
 * renamed or moved since (pytest's `_showfixtures_main`) is never matched: the metric's ceiling is below 1. Pure.
 */
export function citesGoldSymbol(citations: readonly { path: string; symbol?: string; issue?: number }[], goldFiles: readonly string[], goldSymbols: readonly string[]): boolean {
  const names = new Set(goldSymbols.map(leafOf));
  return citations.some((c) => c.issue === undefined && c.symbol !== undefined && goldFiles.includes(c.path) && names.has(leafOf(c.symbol)));
}
