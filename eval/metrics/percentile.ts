/**
 * Nearest-rank percentile: the smallest value with at least a share `p` (0–1] of the values at or
 * below it, i.e. the ⌈p·n⌉-th smallest. NaN for no values. The input is not modified.
 */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}
