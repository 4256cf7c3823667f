import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { proposeConfig, surveyCheckout } from '../pipeline/config/init.ts';
import { loadConfig } from '../pipeline/config/load.ts';
import { chooseLanguage, findTranslationSets, languageOf } from '../pipeline/config/translations.ts';
import { formatDuration, formatEstimate, measureThroughput, recordedThroughput, recordThroughput } from '../pipeline/estimate.ts';
import { resolvePaths, scanSources } from '../pipeline/instance.ts';
import type { Chunk, Embedder } from '../pipeline/types.ts';
import { cita, makeProject } from './support/cli.ts';
import { modelDir, root } from './support/paths.ts';

/** `cita init` on translated doc trees (#16 item 3), and the estimate it prints. */

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function tmp(prefix: string): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(d);
  return d;
}

function writeTree(dir: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
}

/** FastAPI's real docs tree (paths from the repository, a line of text in each). */
const FASTAPI_DOCS = fs
  .readFileSync(path.join(root, 'test/fixtures/translations/fastapi-docs.txt'), 'utf8')
  .split('\n')
  .filter(Boolean);
const FASTAPI_LANGS = [...new Set(FASTAPI_DOCS.filter((p) => p.split('/').length > 2).map((p) => p.split('/')[1]!))].sort();

function fastapiCheckout(dir: string): void {
  const files: Record<string, string> = { 'README.md': '# FastAPI\n\nA web framework.\n', 'fastapi/__init__.py': 'def get_app():\n    return 1\n' };
  for (const p of FASTAPI_DOCS) files[p] = `# ${path.basename(p, '.md')}\n\nSome text about ${p.split('/')[1]}.\n`;
  writeTree(dir, files);
}

/** A project whose models folder is the real one, so the written config (default embedding.dir) finds the model. */
function initProject() {
  const p = makeProject();
  dirs.push(p.dir);
  fs.mkdirSync(path.join(p.dir, '.cita'), { recursive: true });
  fs.symlinkSync(path.dirname(modelDir), path.join(p.dir, '.cita/models'));
  return p;
}

describe('translated doc trees', () => {
  it.each([
    ['en', 'en'],
    ['zh-CN', 'zh-CN'],
    ['zh_CN', 'zh-CN'],
    ['pt_BR', 'pt-BR'],
    ['zh-hant', 'zh-Hant'],
    ['ES', 'es'],
  ])('reads %s as the language %s', (name, tag) => expect(languageOf(name)).toBe(tag));

  it.each(['js', 'ui', 'src', 'api', 'docs', 'v2', 'en.md', ''])('does not take %j for a language', (name) => expect(languageOf(name)).toBeUndefined());

  it('finds the 13 languages of FastAPI docs, keeps English, and the config it writes indexes no translation', () => {
    expect(FASTAPI_LANGS).toHaveLength(13);
    const project = tmp('cita-fastapi-');
    fastapiCheckout(path.join(project, 'fastapi'));
    const survey = surveyCheckout(path.join(project, 'fastapi'));
    expect(survey.translations).toHaveLength(1);
    expect(survey.translations[0]!.parent).toBe('docs');
    expect(survey.translations[0]!.languages.map((l) => l.dir)).toEqual(FASTAPI_LANGS.map((l) => `docs/${l}`));

    const choice = chooseLanguage(survey.translations[0]!, 'en');
    expect(choice.kept).toBe('docs/en');
    expect(choice.exclude).toEqual(FASTAPI_LANGS.filter((l) => l !== 'en').map((l) => `docs/${l}/**`));
    expect(choice.excludedFiles).toBe(FASTAPI_DOCS.filter((p) => p.split('/').length > 2 && !p.startsWith('docs/en/')).length);

    fs.mkdirSync(path.join(project, 'config/instances'), { recursive: true });
    fs.copyFileSync(path.join(root, 'config/defaults.yaml'), path.join(project, 'config/defaults.yaml'));
    const yaml = proposeConfig(survey, 'fastapi');
    expect(yaml).toMatch(/^# Translations: docs: 13 language folders .*keeping docs\/en \(en\); excluding 12 translations/m);
    fs.writeFileSync(path.join(project, 'config/instances/fastapi.yaml'), yaml);
    const { config } = loadConfig('fastapi', { root: project });
    const docs = scanSources(config, resolvePaths(config, project)).documents.filter((d) => d.collection === 'docs');
    expect(docs.map((d) => d.path).sort()).toEqual(['README.md', ...FASTAPI_DOCS.filter((p) => p.startsWith('docs/en/') || p.split('/').length === 2)].sort());
  });

  it('keeps another source language when asked (--language es), and says when none matches', () => {
    const checkout = tmp('cita-fastapi-');
    fastapiCheckout(checkout);
    const set = surveyCheckout(checkout).translations[0]!;
    expect(chooseLanguage(set, 'es').kept).toBe('docs/es');
    expect(chooseLanguage(set, 'es').exclude).not.toContain('docs/es/**');
    expect(chooseLanguage(set, 'zh-Hant').kept).toBe('docs/zh-hant');
    const none = chooseLanguage(set, 'nl');
    expect(none).toMatchObject({ exclude: [], excludedFiles: 0 });
    expect(none.note).toMatch(/none is nl, so all are kept/);
  });

  it('excludes translations kept apart (i18n/, locales/) and beside the source docs (docs/zh-CN/)', () => {
    const checkout = tmp('cita-i18n-');
    writeTree(checkout, {
      'docs/intro.md': '# Intro\n',
      'docs/zh-CN/intro.md': '# 介绍\n',
      'website/i18n/fr/docusaurus-plugin-content-docs/current/intro.md': '# Intro\n',
      'website/i18n/ja/docusaurus-plugin-content-docs/current/intro.md': '# Intro\n',
      'locales/de/guide.md': '# Anleitung\n',
      'locales/de/strings.json': '{}',
      'src/js/app.js': 'x\n',
      'src/ts/app.ts': 'x\n',
    });
    const sets = surveyCheckout(checkout).translations;
    expect(sets.map((s) => [s.parent, s.languages.map((l) => l.tag)])).toEqual([
      ['docs', ['zh-CN']],
      ['locales', ['de']],
      ['website/i18n', ['fr', 'ja']],
    ]);
    expect(sets.flatMap((s) => chooseLanguage(s, 'en').exclude)).toEqual(['docs/zh-CN/**', 'locales/de/**', 'website/i18n/fr/**', 'website/i18n/ja/**']);
  });

  it('leaves a single-language tree alone (pytest: doc/en)', () => {
    const sets = findTranslationSets([
      { dir: 'doc', docFiles: 3, ownDocFiles: 0 },
      { dir: 'doc/en', docFiles: 3, ownDocFiles: 2 },
      { dir: 'doc/en/how-to', docFiles: 1, ownDocFiles: 1 },
    ]);
    expect(sets).toHaveLength(1);
    expect(chooseLanguage(sets[0]!, 'en')).toMatchObject({ exclude: [], kept: 'doc/en' });
    // Language-named folders without docs are not a doc tree.
    expect(findTranslationSets([{ dir: 'locales', docFiles: 0, ownDocFiles: 0 }, { dir: 'locales/de', docFiles: 0, ownDocFiles: 0 }])).toEqual([]);
  });
});

describe('index estimate', () => {
  it('keeps an index run figure per model and host, not from small or mostly-unchanged runs', () => {
    const file = path.join(tmp('cita-tp-'), '.cita/throughput.json');
    expect(recordedThroughput(file, 'm')).toBeUndefined();
    expect(recordThroughput(file, 'm', 10, 10, 5)).toBe(false);
    expect(recordThroughput(file, 'm', 40, 4000, 5)).toBe(false);
    expect(recordThroughput(file, 'm', 400, 500, 100, new Date('2026-12-01T00:00:00Z'))).toBe(true);
    expect(recordedThroughput(file, 'm')).toMatchObject({ chunksPerSecond: 4, source: 'last index run', at: '2026-12-01T00:00:00.000Z' });
    expect(recordedThroughput(file, 'other model')).toBeUndefined();
    const data = JSON.parse(fs.readFileSync(file, 'utf8'));
    data.m.host = 'another-machine';
    fs.writeFileSync(file, JSON.stringify(data));
    expect(recordedThroughput(file, 'm')).toBeUndefined();
  });

  it('measures by embedding real chunks once warmed up, and formats the estimate', async () => {
    const calls: number[] = [];
    let clock = 0;
    const embedder = {
      embedPassages: async (texts: string[]) => {
        calls.push(texts.length);
        clock += texts.length * 500;
        return texts.map(() => new Float32Array(2));
      },
    } as unknown as Embedder;
    const sample = Array.from({ length: 4 }, (_, i) => ({ text: `chunk ${i}` }) as Chunk);
    const t = await measureThroughput(embedder, sample, () => clock);
    expect(calls).toEqual([1, 4]);
    expect(t).toMatchObject({ chunksPerSecond: 2, source: 'measured now', chunks: 4 });
    expect(formatDuration(30)).toBe('30 s');
    expect(formatDuration(14 * 60)).toBe('14 min');
    expect(formatDuration(125 * 60)).toBe('2 h 05 min');
    const text = formatEstimate({ files: 1200, chunks: 4000, toEmbed: 3600, fromCache: 400, byCollection: [{ collection: 'docs', files: 200, chunks: 1000 }], throughput: t });
    expect(text).toBe(
      'estimate: 1,200 files, 4,000 chunks (docs 200 files / 1,000 chunks)\n  3,600 to embed, 400 from the vector cache: about 30 min at 2.0 chunks/s (4 chunks of this repository embedded just now)\n',
    );
  });

  it('cita init on a translated tree prints what it excludes and the estimate before anything is embedded; index --dry-run prints the same', () => {
    const p = initProject();
    fastapiCheckout(path.join(p.dir, 'fastapi'));
    // A recorded figure of this machine: the time is then exact arithmetic, not a measurement.
    const host = os.hostname();
    fs.writeFileSync(path.join(p.dir, '.cita/throughput.json'), JSON.stringify({}));
    const r0 = cita(p, ['init', 'fastapi', '--no-estimate']);
    expect(r0.code).toBe(0);
    const model = /with (\S+) in/.exec(cita(p, ['index', 'fastapi', '--dry-run']).stdout)?.[1];
    expect(model).toBeTruthy();
    fs.writeFileSync(path.join(p.dir, '.cita/throughput.json'), JSON.stringify({ [model!]: { chunks: 100, seconds: 50, at: '2026-12-01T00:00:00.000Z', host } }));

    const r = cita(p, ['init', 'fastapi', '--force']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(/^translations: docs: 13 language folders \(de \d+, en 155, .*\); keeping docs\/en \(en\); excluding 12 translations \(1,500 doc files\)$/);
    // English, the stray docs/missing-translation.md, and README.md.
    const docs = FASTAPI_DOCS.filter((x) => x.startsWith('docs/en/') || x.split('/').length === 2).length + 1;
    const estimate = r.stdout.slice(r.stdout.indexOf('estimate: '), r.stdout.indexOf('next: '));
    expect(estimate).toMatch(new RegExp(`^estimate: ${docs + 1} files, (\\d+) chunks \\(docs ${docs} files / \\d+ chunks, code 1 files / 1 chunks\\)\\n`));
    const chunks = Number(/files, (\d+) chunks/.exec(estimate)![1]);
    expect(estimate).toContain(`  ${chunks} to embed: about ${formatDuration(chunks / 2)} at 2.0 chunks/s (the last index run on this machine: 100 chunks in 50 s, 2026-12-01)`);
    expect(fs.existsSync(path.join(p.dir, '.cita/fastapi'))).toBe(false);

    const dry = cita(p, ['index', 'fastapi', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(estimate);
    expect(fs.existsSync(path.join(p.dir, '.cita/fastapi'))).toBe(false);
  });

  it('refuses a --language that is not a language code', () => {
    const p = initProject();
    p.write('docs/index.md', '# Docs\n');
    const r = cita(p, ['init', p.repo, '--language', 'english', '--no-estimate']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--language "english": expected a language code');
  });
});
