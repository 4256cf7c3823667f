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
