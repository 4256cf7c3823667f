import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { githubFromRemote, proposeConfig, surveyCheckout } from '../pipeline/config/init.ts';
import { loadConfig } from '../pipeline/config/load.ts';
import { cita, makeProject } from './support/cli.ts';
import { root } from './support/paths.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('cita init', () => {
  it.each([
    ['https://github.com/pytest-dev/pytest.git', 'pytest-dev/pytest'],
    ['git@github.com:pytest-dev/pytest.git', 'pytest-dev/pytest'],
    ['https://github.com/owner/name', 'owner/name'],
    ['https://gitlab.com/owner/name.git', undefined],
  ])('reads the GitHub repository from %s', (url, expected) => {
    expect(githubFromRemote(url)).toBe(expected);
  });

  it('surveys a checkout and writes a config that validates', () => {
    const project = fs.mkdtempSync(path.join(os.tmpdir(), 'cita-init-'));
    dirs.push(project);
    const checkout = path.join(project, 'My Repo');
    const files: Record<string, string> = {
      '.git/config': '[remote "origin"]\n\turl = git@github.com:acme/widgets.git\n',
      '.git/HEAD': 'ref: refs/heads/trunk\n',
      'docs/index.md': '# Widgets\n',
      'docs/api.rst': 'API\n===\n',
      'README.md': '# Widgets\n',
      'src/app.ts': 'export const x = 1;\n',
      'src/util.py': 'x = 1\n',
      'node_modules/dep/index.js': 'module.exports = 1;\n',
    };
    for (const [rel, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(checkout, rel)), { recursive: true });
      fs.writeFileSync(path.join(checkout, rel), text);
    }
    const survey = surveyCheckout(checkout);
    expect(survey).toMatchObject({ name: 'my-repo', github: 'acme/widgets', ref: 'trunk', docFolders: ['docs'] });
    expect(survey.languages).toEqual({ typescript: 1, python: 1, 'docs:markdown': 2, 'docs:rst': 1 });

    fs.mkdirSync(path.join(project, 'config/instances'), { recursive: true });
    fs.copyFileSync(path.join(root, 'config/defaults.yaml'), path.join(project, 'config/defaults.yaml'));
    fs.writeFileSync(path.join(project, 'config/instances/my-repo.yaml'), proposeConfig(survey, 'My Repo'));
    const { config } = loadConfig('my-repo', { root: project });
    expect(config.repository).toEqual({ path: 'My Repo', github: 'acme/widgets', ref: 'trunk' });
    // Every extension of a language found, so new files of that language are taken too.
    expect(config.sources.code?.include).toEqual(['**/*.py', '**/*.pyi', '**/*.ts', '**/*.mts', '**/*.cts']);
    expect(config.sources.docs?.include).toEqual(['docs/**/*.md', 'docs/**/*.markdown', 'docs/**/*.rst', '/*.md', '/*.markdown', '/*.rst']);
  });

  it('refuses the filesystem root and stops on a folder far larger than a checkout, with a message, before walking it whole', () => {
    expect(() => surveyCheckout('/')).toThrow(/filesystem root, not a repository checkout/);
    const checkout = fs.mkdtempSync(path.join(os.tmpdir(), 'cita-init-big-'));
    dirs.push(checkout);
    for (let i = 0; i < 30; i++) fs.writeFileSync(path.join(checkout, `f${i}.py`), '');
    expect(() => surveyCheckout(checkout, 20)).toThrow(/more than 20 files and folders/);
    expect(surveyCheckout(checkout, 30).languages).toEqual({ python: 30 });
  });

  it.each(['../../escaped', '../x', 'a/b', '.hidden', 'Upper'])('refuses --name %j: it would not be a file under config/instances/', (name) => {
    const p = makeProject();
    dirs.push(p.dir);
    p.write('docs/index.md', '# Docs\n');
    const r = cita(p, ['init', p.repo, '--name', name]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`--name ${JSON.stringify(name)}: an instance name is lowercase letters, digits`);
    expect(fs.existsSync(path.resolve(p.dir, 'config/instances', `${name}.yaml`))).toBe(false);
    expect(fs.readdirSync(path.join(p.dir, 'config/instances'))).toEqual(['demo.yaml']);
  });
});
