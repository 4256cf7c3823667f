/**
 * Random `cita` argument lists for `bench/fuzz.ts`, drawn with fast-check: a command, then its own
 * options and arguments mixed with other commands' options, hostile values and random strings.
 * `serve` (runs until stopped; fuzzed through GraphQL instead) and `model pull` (provisions the model
 * over the network) are left out; `eval` always gets `--limit 1` so a run stays small.
 * Values never name a writable absolute path: a fuzz run must not write outside its temp project.
 */
import fc from 'fast-check';

type Gen = fc.GeneratorValue;

const INSTANCES = ['demo', 'demo', 'demo', 'nope', '../demo', 'config/instances/demo.yaml', '/etc/hostname', '', '.', 'DEMO', 'demo\u0000x', '-demo'];
const QUESTIONS = ['How do I skip a test on Windows?', '¿Cómo omito un test en Windows?', 'what does parse_config do?', 'Where is the bug from issue #42?', '#42', '#999999999999', '', ' ', 'NEAR(a b) OR "x" AND * -', '\u202e\ud83d\ude00', 'a'.repeat(5000), 'parse_config '.repeat(400)];
const SET_KEYS = ['fusion.method', 'fusion.rrfK', 'fusion.minFit', 'answer.budget.chunks', 'answer.budget.chars', 'retrieval.hybrid.alpha', 'retrieval.hybrid.candidates', 'retrieval.crossLingual.bm25', 'retrieval.crossLingual.dense', 'store.kind', 'answer.generator.kind', 'answer.generator.minRelevance', 'chunking.maxTokens', 'chunking.lineWindow', 'embedding.batchSize', 'embedding.provider', 'sources.maxFileBytes', 'languages.corpus', 'no.such.key', '', '__proto__.polluted', 'constructor.prototype.polluted', 'fusion', 'answer'];
const SET_VALUES = ['1', '0', '-1', '1e9', 'NaN', 'Infinity', 'true', 'false', 'null', 'rrf', 'proportional', 'elasticsearch', 'sqlite', 'extractive', 'en', 'es', '', 'x', '[]', '{a: 1}', '[1, 2', 'translated', 'both', '0.5'];
const OPTIONS: Record<string, string[]> = {
  init: ['--name', '--force'],
  index: ['--dry-run', '--json', '--rebuild', '--set'],
  search: ['--source', '--k', '--alpha', '--json', '--set'],
  ask: ['--json', '--set'],
  issue: ['--json', '--set'],
  eval: ['--config', '--vs', '--set', '--base-set', '--lang', '--dataset', '--split', '--name'],
  model: [],
};
const ANY_OPTION = [...new Set(Object.values(OPTIONS).flat()), '--help', '-h', '--version', '-V', '--', '-', '--unknown', '-x', '--port', '--host'];
const VALUES = ['docs', 'code', 'issues', 'all', '0', '1', '-1', '3.5', '1e400', 'NaN', '0x10', '99999999999', 'en', 'es', 'fr', 'dev', 'test', 'x', '', 'demo', 'config/instances/demo.yaml', 'nope.yaml', '../x', '.'];
const CHECKOUTS = ['repo', '.', 'config', 'nope', '', 'repo/docs', '/nonexistent', '/proc/self', '../', '/'];

function value(g: Gen): string {
  return g(() => fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...VALUES) }, { weight: 1, arbitrary: fc.string({ maxLength: 12 }) }, { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 8 }) }));
}

function setPair(g: Gen): string {
  const key = g(() => fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...SET_KEYS) }, { weight: 1, arbitrary: fc.stringMatching(/^[a-zA-Z_.]{0,20}$/) }));
  const val = g(() => fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...SET_VALUES) }, { weight: 1, arbitrary: fc.string({ maxLength: 10 }).filter((s) => !s.includes('/')) }));
  return g(() => fc.integer({ min: 0, max: 9 })) === 0 ? key : `${key}=${val}`;
}

function optionWithValue(g: Gen, option: string): string[] {
  switch (option) {
    case '--set':
    case '--base-set':
      return [option, setPair(g)];
    case '--json':
    case '--dry-run':
    case '--rebuild':
    case '--force':
    case '--help':
    case '-h':
    case '--version':
    case '-V':
    case '--':
    case '-':
      return [option];
    case '--config':
    case '--vs':
      // Partial YAML files: the demo config itself, a missing one, a non-YAML one.
      return [option, g(() => fc.constantFrom('config/instances/demo.yaml', 'nope.yaml', 'issues.json', 'repo/src/loader.py'))];
    default:
      return g(() => fc.integer({ min: 0, max: 5 })) === 0 ? [option] : [option, value(g)];
  }
}

export interface CliCase {
  argv: string[];
  /** Commands that run the model (embed a question, index, evaluate) get a longer deadline than a lookup. */
  heavy: boolean;
}

export function cliCase(g: Gen): CliCase {
  const command: string = g(() => fc.constantFrom('init', 'index', 'search', 'search', 'ask', 'ask', 'ask', 'issue', 'eval', 'model', '', 'help', 'nope'));
  const argv: string[] = command ? [command] : [];
  const positional = (): string => {
    switch (command) {
      case 'init':
        return g(() => fc.constantFrom(...CHECKOUTS));
      case 'search':
      case 'ask':
        return argv.length === 1 ? g(() => fc.constantFrom(...INSTANCES)) : g(() => fc.oneof(fc.constantFrom(...QUESTIONS), fc.string({ maxLength: 60 })));
      case 'issue':
        return argv.length === 1 ? g(() => fc.constantFrom(...INSTANCES)) : g(() => fc.constantFrom('42', '#42', '0', '-1', '1e3', 'x', '99999999999999999999', ''));
      case 'model':
        return g(() => fc.constantFrom('list', 'nope', '--help'));
      default:
        return g(() => fc.constantFrom(...INSTANCES));
    }
  };
  const tokens = g(() => fc.integer({ min: 0, max: 6 }));
  const own = OPTIONS[command] ?? [];
  for (let i = 0; i < tokens; i++) {
    const pick = g(() => fc.integer({ min: 0, max: 9 }));
    if (pick < 1) argv.push(positional());
    else if (pick < 8 && own.length) argv.push(...optionWithValue(g, g(() => fc.constantFrom(...own))));
    else if (pick < 9) argv.push(...optionWithValue(g, g(() => fc.constantFrom(...ANY_OPTION))));
    else argv.push(g(() => fc.string({ maxLength: 15 })));
  }
  // Mostly well-formed: the positionals a command needs come first, so the command really runs.
  if (g(() => fc.integer({ min: 0, max: 3 })) > 0) {
    const needs = ({ init: 1, index: 1, search: 2, ask: 2, issue: 2, eval: 1 } as Record<string, number>)[command] ?? 0;
    const head: string[] = [command];
    for (let i = 0; i < needs; i++) head.push(i === 0 && command !== 'init' ? 'demo' : positional());
    argv.splice(0, 1, ...head);
  }
  // eval stays small, and its reports stay inside the temp project.
  if (command === 'eval') argv.push('--limit', '1', '--out', 'fuzz-reports');
  return { argv, heavy: ['index', 'eval', 'ask', 'search'].includes(command) };
}
