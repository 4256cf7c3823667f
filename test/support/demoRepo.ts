import fs from 'node:fs';
import path from 'node:path';
import { makeProject, type TestProject } from './cli.ts';
import { modelDir } from './paths.ts';

/** The small repository (docs, code, one issue) that the answer, server and browser tests index. */

export const GUIDE = `# Guide

## Skipping tests

Use the skip marker to skip a test unconditionally. Use skipif with a condition to skip a test only on
some platforms, for example on Windows. Skipped tests are reported in the summary.

## Installing

Install the package with pip install widgets. Then run the widgets command from any folder.
`;

export const LOADER = `"""Reading configuration files."""
import json


def parse_config(path):
    """Read a JSON configuration file and return a dict of settings."""
    with open(path) as fh:
        return json.load(fh)
`;

export const ISSUES = [
  {
    number: 42,
    title: 'parse_config crashes on an empty file',
    body: 'Calling parse_config on an empty JSON file raises a JSONDecodeError instead of returning an empty dict.',
    state: 'open',
    html_url: 'https://github.com/acme/widgets/issues/42',
    labels: [{ name: 'bug' }],
    user: { login: 'reporter' },
    created_at: '2024-01-01T00:00:00Z',
    updated_at: '2024-01-01T00:00:00Z',
  },
];

/** A project holding the demo repository and its `demo` instance (real model); `extra` lines are appended to the YAML. */
export function makeDemoProject(extra: string[] = []): TestProject {
  const p = makeProject();
  p.write('docs/guide.md', GUIDE);
  p.write('src/loader.py', LOADER);
  fs.writeFileSync(path.join(p.dir, 'issues.json'), JSON.stringify(ISSUES));
  p.setInstance(
    [
      'name: demo',
      'repository:',
      '  path: repo',
      '  github: acme/widgets',
      '  ref: v1.0',
      'sources:',
      '  issues:',
      '    kind: file',
      '    file: issues.json',
      'embedding:',
      `  dir: ${path.dirname(modelDir)}`,
      ...extra,
      '',
    ].join('\n'),
  );
  return p;
}
