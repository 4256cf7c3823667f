import { bootstrapCI, type BootstrapOptions, type MeanCI } from './bootstrap.ts';
import { pairedBootstrapDiffCI, type DiffCI } from './paired.ts';
import { isBinary, newcombePairedDiffCI, wilsonCI } from './proportion.ts';

/** How an interval was computed: a score interval for proportions, the percentile bootstrap otherwise. */
export type IntervalMethod = 'wilson' | 'newcombe' | 'bootstrap';

/**
 * The interval of a mean, chosen by the data: values that are all 0 or 1 are a proportion and get
 * the (continuity-corrected) Wilson interval; anything else (MRR, nDCG, latency, recall over several
 * gold files) keeps the percentile bootstrap.
 */
export function meanInterval(values: readonly number[], opts: BootstrapOptions = {}): MeanCI & { method: IntervalMethod } {
  if (isBinary(values)) return { ...wilsonCI(values, opts.confidence === undefined ? {} : { confidence: opts.confidence }), method: 'wilson' };
  return { ...bootstrapCI(values, opts), method: 'bootstrap' };
}

/** The interval of a paired difference b − a: Newcombe's paired score interval when both sides are 0/1, else the paired bootstrap. */
export function pairedDiffInterval(a: readonly number[], b: readonly number[], opts: BootstrapOptions = {}): DiffCI & { method: IntervalMethod } {
  if (isBinary(a) && isBinary(b)) return { ...newcombePairedDiffCI(a, b, opts.confidence === undefined ? {} : { confidence: opts.confidence }), method: 'newcombe' };
  return { ...pairedBootstrapDiffCI(a, b, opts), method: 'bootstrap' };
}
