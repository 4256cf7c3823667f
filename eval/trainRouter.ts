/**
 * Fits the learned route's model (pipeline/retrieval/learnedRoute.ts) on the dev half of an
 * instance's datasets and reports how often it names the right source (docs or not) on both halves,
 * beside the rules' own choice. Prints the `retrieval.router` block to put in a config.
 *
 *   node --import tsx eval/trainRouter.ts [instance] [--l2 0.01] [--exclude feature ...] [--fresh]
 *
 * `--exclude`: fit without these features (learnedRoute.ts's `routeFeatures` names them), e.g. a
 * feature another one refines.
 *
 * Label: a question whose `gold.source` is `docs` is a docs question; code and issue questions are
 * not (an issue reference's files are code; its issue comes in by lookup whatever the weights).
 */
import { parseArgs } from 'node:util';
import { docsProbability, trainRouter, type RouteExample } from '../pipeline/retrieval/learnedRoute.ts';
import { route as routeQuestion } from '../pipeline/retrieval/router.ts';
import { replayedRoute, replayItems, routedText, type ReplayItem } from './replay.ts';

const { values, positionals } = parseArgs({
  args: process.argv.slice(2),
  allowPositionals: true,
  options: { l2: { type: 'string', default: '0.01' }, exclude: { type: 'string', multiple: true, default: [] }, fresh: { type: 'boolean' } },
});
const instance = positionals[0] ?? 'pytest';
const l2 = Number(values.l2);
const { config, items } = await replayItems(instance, { fresh: values.fresh ?? false });

const excluded = new Set(values.exclude);
const example = (it: ReplayItem): RouteExample => {
  const features = Object.entries(replayedRoute(config, it).features).filter(([name]) => !excluded.has(name));
  return { features: Object.fromEntries(features), docs: it.q.gold.source === 'docs' };
};
const dev = items.filter((it) => it.split === 'dev');
const model = trainRouter(dev.map(example), l2);

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
console.log(`fitted on ${dev.length} dev questions (l2 ${l2}${excluded.size ? `; without ${[...excluded].join(', ')}` : ''}); right source, learned vs rules:`);
for (const split of ['dev', 'test'] as const) {
  const groups = new Map<string, ReplayItem[]>();
  for (const it of items.filter((i) => i.split === split)) for (const key of [`${it.dataset} ${it.q.lang}`, `all ${it.q.lang}`]) groups.set(key, [...(groups.get(key) ?? []), it]);
  for (const [key, g] of [...groups].sort()) {
    const learned = g.filter((it) => docsProbability(model, example(it).features) >= 0.5 === (it.q.gold.source === 'docs')).length;
    const rules = g.filter((it) => (routeQuestion(routedText(config, it.q.question)).top === 'docs') === (it.q.gold.source === 'docs')).length;
    console.log(`  ${split.padEnd(5)} ${key.padEnd(26)} n=${String(g.length).padStart(3)}  learned ${pct(learned / g.length).padStart(6)}  rules ${pct(rules / g.length).padStart(6)}`);
  }
}
const round = (x: number) => Number(x.toFixed(4));
console.log('\nretrieval:\n  router:\n    kind: learned\n    model:');
console.log(`      intercept: ${round(model.intercept)}`);
console.log('      coefficients:');
for (const [name, c] of Object.entries(model.coefficients)) console.log(`        ${JSON.stringify(name)}: ${round(c)}`);
