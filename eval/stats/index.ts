export { bootstrapCI, type BootstrapOptions, type MeanCI } from './bootstrap.ts';
export {
  pairedBootstrapDiffCI,
  pairedPermutationTest,
  type DiffCI,
  type PairedTestResult,
  type PermutationOptions,
} from './paired.ts';
export { DEFAULT_SEED, seededRandom, type RandomSource } from './random.ts';
export { holmAdjust } from './holm.ts';
export { bhAdjust } from './bh.ts';
export { isBinary, newcombePairedDiffCI, normalQuantile, wilsonCI, wilsonInterval, type ProportionOptions } from './proportion.ts';
export { meanInterval, pairedDiffInterval, type IntervalMethod } from './interval.ts';
export { comparePaired, type PairedComparison } from './comparePaired.ts';
