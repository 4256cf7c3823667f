/**
 * How long the GraphQL cost check takes on fragments that each spread the previous one twice
 * (2^n spreads when expanded), for n levels; prints milliseconds per validation (median of 5).
 *
 *   node --import tsx bench/graphql-cost.ts [levels…]   (default 10 20 40 80)
 */
import { buildSchema, parse, validate } from 'graphql';
import { queryLimits } from '../api/graphql/limits.ts';
import { percentile } from '../eval/metrics/percentile.ts';

const schema = buildSchema('type Query { instances: [I] } type I { name: String }');
const levels = process.argv.slice(2).map(Number).filter((n) => Number.isInteger(n) && n > 0);
for (const n of levels.length ? levels : [10, 20, 40, 80]) {
  const fragments = ['fragment G0 on Query { instances { name } }'];
  for (let i = 1; i <= n; i++) fragments.push(`fragment G${i} on Query { ...G${i - 1} ...G${i - 1} }`);
  const text = `query Fan { ...G${n} } ${fragments.join(' ')}`;
  const doc = parse(text);
  const times: number[] = [];
  let message = '';
  for (let k = 0; k < 5; k++) {
    const t = performance.now();
    message = validate(schema, doc, [queryLimits()])[0]?.message ?? 'accepted';
    times.push(performance.now() - t);
  }
  console.log(`${String(n).padStart(3)} levels, ${text.length} bytes: ${percentile(times, 0.5).toFixed(2)} ms — ${message}`);
}
