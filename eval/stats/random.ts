import { create, randomDependencies, randomIntDependencies } from 'mathjs';

/** Seed used when a caller gives none, so a report is reproducible by default. */
export const DEFAULT_SEED = 'cita';

/** Draws for resampling; the same seed yields the same sequence of draws. */
export interface RandomSource {
  /** `count` numbers uniform in [0, 1). */
  uniforms(count: number): number[];
  /** `count` integers uniform in [0, below). */
  indices(count: number, below: number): number[];
}

/**
 * A random source backed by mathjs's seeded generator. Only the two random factories are built,
 * which keeps creation cheap; whole arrays are drawn per call because mathjs dispatches per call.
 */
export function seededRandom(seed: string = DEFAULT_SEED): RandomSource {
  // mathjs declares its dependency maps through a Record, so noUncheckedIndexedAccess adds
  // `undefined` to their types; both are always defined at run time.
  const math = create(
    { randomDependencies: randomDependencies!, randomIntDependencies: randomIntDependencies! },
    { randomSeed: seed },
  );
  return {
    uniforms: (count) => (count === 0 ? [] : math.random([count])),
    indices: (count, below) => {
      if (!Number.isInteger(below) || below < 1) {
        throw new RangeError(`indices: 'below' must be a positive integer, got ${below}`);
      }
      return count === 0 ? [] : math.randomInt([count], 0, below);
    },
  };
}
