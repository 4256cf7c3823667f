import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cita, type TestProject } from './support/cli.ts';
import { makeDemoProject } from './support/demoRepo.ts';

/** A lexicon fixture of a few senses where `npm run setup` puts the real one (built from message catalogs). */
function writeLexicon(p: TestProject, words: Record<string, [string, number][]>): void {
  const file = path.join(p.dir, '.cita/models/lexicon-es-en.json');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify({ pairs: 2, words, stems: {} }));
}

/**
 * `retrieval.crossLingual.bm25: disambiguated` end to end (real translator, real store): Apertium
 * makes `marcador` a bookmark; the docs say marker beside test and platforms, so the lexicon's
 * marker is searched beside the translation. The lexicon is a fixture of two senses (setup builds
 * the real one from message catalogs).
 */
describe('cita search with senses chosen by the docs', () => {
  let p: TestProject;
  const question = '¿Qué marcador salta un test en algunas plataformas?';
  const search = (...extra: string[]) => cita(p, ['search', 'demo', question, '--source', 'docs', '--k', '2', '--set', 'retrieval.crossLingual.bm25=disambiguated', ...extra]);
  beforeAll(() => {
    p = makeDemoProject();
    p.write('docs/browser.md', '# Browser\n\n## Bookmarks\n\nThe widgets browser keeps a bookmark of every page you open, and a bookmark bar.\n');
    expect(cita(p, ['index', 'demo']).code).toBe(0);
  });
  afterAll(() => p.cleanup());

  it('without a lexicon searches the translation alone, and says why', () => {
    const r = search();
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/translated es → en \(apertium\): .*bookmark/i);
    expect(r.stdout).toContain('lexicon-es-en.json (`npm run setup` builds it): the translation is searched alone');
    expect(r.stdout).not.toContain('senses the docs prefer');
  });

  it('with one, searches the sense the docs keep near the question’s other words', () => {
    writeLexicon(p, { marcador: [['marker', 0.6], ['bookmark', 0.35]] });
    const r = search();
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('senses the docs prefer, searched beside it: marker');
    expect(r.stdout).toMatch(/ 1\. \[docs\] docs\/guide\.md/);
    const json = JSON.parse(search('--json').stdout);
    expect(json.translation.alternatives).toEqual(['marker']);
  });

  it('takes a lexicon sense as a candidate from `senseMin` up', () => {
    writeLexicon(p, { marcador: [['marker', 0.2], ['bookmark', 0.1]] });
    expect(search().stdout).not.toContain('senses the docs prefer');
    expect(search('--set', 'retrieval.crossLingual.senseMin=0.15').stdout).toContain('senses the docs prefer, searched beside it: marker');
  });

  it('with `senses: replace`, puts that sense in the translation in place of the translator’s', () => {
    writeLexicon(p, { marcador: [['marker', 0.6], ['bookmark', 0.35]] });
    const r = search('--set', 'retrieval.crossLingual.senses=replace');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/senses the docs prefer, put in place of the translator's: bookmark → marker/i);
    expect(r.stdout).not.toContain('searched beside it: marker');
    const json = JSON.parse(search('--set', 'retrieval.crossLingual.senses=replace', '--json').stdout);
    expect(json.translation.text).toMatch(/\bmarker\b/);
    expect(json.translation.text).not.toMatch(/bookmark/i);
    expect(json.translation.replaced).toEqual([{ from: expect.stringMatching(/^bookmark$/i), to: 'marker' }]);
    expect(json.translation.alternatives).toEqual([]);
  });
});

/**
 * `retrieval.crossLingual.phrases: compounds` end to end (real translator, real store): "código de
 * salida" is "exit code" in the docs, which hold "start code" and "output code" nowhere.
 */
describe('cita search with the compounds the docs use', () => {
  let p: TestProject;
  const question = '¿Qué significa el código de salida 5?';
  const search = (...extra: string[]) => cita(p, ['search', 'demo', question, '--source', 'docs', '--k', '2', '--set', 'retrieval.crossLingual.phrases=compounds', ...extra]);
  beforeAll(() => {
    p = makeDemoProject();
    p.write('docs/exit-codes.md', '# Exit codes\n\nRunning the tool can result in six different exit codes. Exit code 5 means no tests were collected.\n');
    p.write('docs/output.md', '# Output\n\nThe code you write can print its output, and the tool can exit early.\n');
    expect(cita(p, ['index', 'demo']).code).toBe(0);
    writeLexicon(p, { salida: [['output', 0.5], ['exit', 0.4]] });
  });
  afterAll(() => p.cleanup());

  it('searches the compound as a phrase and says so', () => {
    const r = search();
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('compounds the docs use, searched as phrases: exit code');
    expect(r.stdout).toMatch(/ 1\. \[docs\] docs\/exit-codes\.md/);
    expect(JSON.parse(search('--json').stdout).translation.phrases).toEqual(['exit code']);
  });

  it('searches none by default', () => {
    expect(cita(p, ['search', 'demo', question, '--source', 'docs', '--k', '2']).stdout).not.toContain('compounds the docs use');
  });
});
