import { describe, expect, it } from 'vitest';
import { findRoot, loadConfig } from '../pipeline/config/load.ts';
import { configSchema } from '../pipeline/config/schema.ts';
import { docsProbability, DOCUMENTED_RANGE, documentedNames, learnedRoute, routeFeatures, topDense, trainRouter, type RouteExample } from '../pipeline/retrieval/learnedRoute.ts';
import { COUNTED_NAMES, mentionsNote, nameMentions } from '../pipeline/retrieval/nameMentions.ts';
import { route } from '../pipeline/retrieval/router.ts';
import type { CollectionFit } from '../pipeline/retrieval/fusion/proportional.ts';
import type { Collection, SearchHit } from '../pipeline/types.ts';

const fit = (dense: number | null, bm25: number | null): CollectionFit => ({ dense, bm25, fit: 0 });

describe('trainRouter', () => {
  // x = 1: docs 8 times in 10; x = 0: docs 2 times in 10. The maximum-likelihood fit is known in
  // closed form: intercept log(2/8), coefficient log(8/2) − log(2/8) = 2·log 4.
  const examples: RouteExample[] = [
    ...Array.from({ length: 10 }, (_, i) => ({ features: { x: 1 }, docs: i < 8 })),
    ...Array.from({ length: 10 }, (_, i) => ({ features: { x: 0 }, docs: i < 2 })),
  ];

  it('finds the maximum-likelihood coefficients when unregularised', () => {
    const m = trainRouter(examples, 1e-12);
    expect(m.intercept).toBeCloseTo(Math.log(0.25), 5);
    expect(m.coefficients.x).toBeCloseTo(2 * Math.log(4), 5);
    expect(docsProbability(m, { x: 1 })).toBeCloseTo(0.8, 5);
  });

  it('shrinks coefficients as the penalty grows, not the intercept, and is deterministic', () => {
    const weak = trainRouter(examples, 0.01);
    const strong = trainRouter(examples, 1);
    expect(Math.abs(strong.coefficients.x!)).toBeLessThan(Math.abs(weak.coefficients.x!));
    expect(trainRouter(examples, 0.01)).toEqual(weak);
  });

  it('refuses to fit nothing', () => {
    expect(() => trainRouter([])).toThrow('no examples');
  });
});

describe('routeFeatures', () => {
  it('names the rules that fired and the docs − code differences; an absent part says nothing', () => {
    const r = route('what does parse_config do?');
    const fits = { docs: fit(0.2, null), code: fit(0.9, 0.5), issues: fit(0, 0) } as Record<Collection, CollectionFit>;
    const f = routeFeatures(r, fits, { docs: 0.85, code: 0.88, issues: null });
    expect(Object.keys(f).filter((k) => k.startsWith('rule:'))).toEqual(['rule:identifier', 'rule:code vocabulary']);
    expect(f['fit:dense']).toBeCloseTo(-0.7, 10);
    expect(f['fit:bm25']).toBe(0);
    expect(f['top:dense']).toBeCloseTo(20 * (0.85 - 0.88), 10);
  });

  it('tells error words asked about from those of pasted text and of an issue reference', () => {
    const fits = { docs: fit(0.5, 0.5), code: fit(0.5, 0.5), issues: fit(0, 0) } as Record<Collection, CollectionFit>;
    const features = (q: string) => routeFeatures(route(q), fits, { docs: null, code: null, issues: null });
    const asked = features('How do I show local variables in the traceback when a test fails?');
    expect(asked).toMatchObject({ 'rule:error phrasing': 1, 'rule:error phrasing, asked': 1 });
    expect(asked.pasted).toBeUndefined();
    const issue = features('Where is the bug from issue #5103 fixed?');
    expect(issue).toMatchObject({ 'rule:error phrasing': 1, 'rule:issue reference': 1 });
    expect(issue['rule:error phrasing, asked']).toBeUndefined();
    const pasted = features(`assert fails with a traceback\n${'Traceback (most recent call last): File "t.py", line 3, in test_x\n'.repeat(12)}AssertionError`);
    expect(pasted).toMatchObject({ 'rule:error phrasing': 1, pasted: 1 });
    expect(pasted['rule:error phrasing, asked']).toBeUndefined();
    // A model that does not name the new features reads the same as before them.
    const old = { intercept: 0.5, coefficients: { 'rule:error phrasing': -1.5, 'fit:dense': 1 } };
    expect(docsProbability(old, asked)).toBeCloseTo(1 / (1 + Math.exp(-(0.5 - 1.5))), 12);
  });

  it('names:documented: the log share of docs chunks less that of code chunks mentioning each name, averaged, absent without one', () => {
    const fits = { docs: fit(0.5, 0.5), code: fit(0.5, 0.5), issues: fit(0, 0) } as Record<Collection, CollectionFit>;
    const none = { docs: null, code: null, issues: null };
    const r = route('Is it safe to use pytest.raises from threads?');
    const chunks = { docs: 99, code: 999 };
    const mentions = {
      chunks,
      names: [
        { name: 'pytest.raises', docs: 49, code: 99 },
        { name: 'NotThere', docs: 0, code: 0 }, // neither mentions it: it says nothing either way
        { name: '_internal_helper', docs: 0, code: 9 },
      ],
    };
    // pytest.raises: half the docs, a tenth of the code; _internal_helper: no docs chunk, 1% of the code.
    const expected = (Math.log(50 / 100) - Math.log(100 / 1000) + (Math.log(1 / 100) - Math.log(10 / 1000))) / 2;
    expect(documentedNames(mentions)).toBeCloseTo(expected, 12);
    expect(routeFeatures(r, fits, none, mentions)['names:documented']).toBeCloseTo(expected, 12);
    // Shares, not counts: the same mentions in a repository with ten times the code read more documented.
    const moreCode = { ...mentions, chunks: { docs: 99, code: 9999 } };
    expect(documentedNames(moreCode)! - documentedNames(mentions)!).toBeCloseTo(Math.log(10), 12);
    // A README of 10 chunks that names it once, against 5,000 code chunks of which 3 do: clipped, not +4.8.
    expect(documentedNames({ chunks: { docs: 10, code: 5000 }, names: [{ name: 'foo', docs: 1, code: 3 }] })).toBe(DOCUMENTED_RANGE);
    expect(documentedNames({ chunks: { docs: 5000, code: 10 }, names: [{ name: 'foo', docs: 3, code: 1 }] })).toBe(-DOCUMENTED_RANGE);
    expect(documentedNames({ chunks, names: [{ name: 'NotThere', docs: 0, code: 0 }] })).toBeUndefined();
    expect(documentedNames(undefined)).toBeUndefined();
    expect(routeFeatures(r, fits, none)).not.toHaveProperty('names:documented');
    // Pasted text mentions its names (the reporter's test_b, AssertionError); they say nothing of what is asked.
    const pasted = route(`assert fails\n${'Traceback (most recent call last): File "t.py", line 3, in test_b\n'.repeat(12)}AssertionError`);
    expect(pasted.pasted).toBe(true);
    expect(routeFeatures(pasted, fits, none, mentions)).not.toHaveProperty('names:documented');
  });

  it('nameMentions counts each name once in docs and in code, at most COUNTED_NAMES of them', async () => {
    const asked: [string, string[][]][] = [];
    const store = {
      matchCounts: async (collection: Collection, sets: string[][]) => {
        asked.push([collection, sets]);
        return sets.map(([w]) => (collection === 'docs' ? w!.length : 1));
      },
    };
    const chunks = { docs: 10, code: 20 };
    expect(await nameMentions(store, [], chunks)).toBeUndefined();
    expect(asked).toEqual([]); // no request for a question that names nothing
    const names = ['raises', 'raises', ...Array.from({ length: 30 }, (_, i) => `n${i}`)];
    const m = (await nameMentions(store, names, chunks))!;
    expect(m.chunks).toEqual(chunks);
    expect(m.names).toHaveLength(COUNTED_NAMES);
    expect(m.names[0]).toEqual({ name: 'raises', docs: 6, code: 1 });
    expect(m.names[1]!.name).toBe('n0');
    expect(asked.map(([c, sets]) => [c, sets.length])).toEqual([
      ['docs', COUNTED_NAMES],
      ['code', COUNTED_NAMES],
    ]);
    expect(mentionsNote(m)).toBe('names asked about, chunks that mention each in the docs (of 10) / the code (of 20): raises 6 / 1, n0 2 / 1, n1 2 / 1, n2 2 / 1, n3 2 / 1, and 15 more');
  });

  it('topDense takes each collection’s best dense similarity, null without one', () => {
    const hit = (dense: number | null) => ({ dense }) as SearchHit;
    expect(topDense({ docs: [hit(0.8), hit(0.9)], code: [hit(null)] })).toEqual({ docs: 0.9, code: null, issues: null });
  });
});

describe('learnedRoute', () => {
  const model = { intercept: 0, coefficients: { 'rule:identifier': -2, 'fit:dense': 3 } };

  it('sets docs and code from P(docs), keeps the issues ratio, and says why', () => {
    const r = route('See issue #42: what does parse_config do?');
    const ratio = r.weights.issues / Math.max(r.weights.docs, r.weights.code);
    const features = { 'rule:identifier': 1, 'fit:dense': 1, 'rule:issue reference': 1 };
    const l = learnedRoute(r, model, features);
    const p = 1 / (1 + Math.exp(-1)); // −2 + 3
    expect(l.weights.issues / Math.max(l.weights.docs, l.weights.code)).toBeCloseTo(ratio, 10);
    expect(l.weights.code / l.weights.docs).toBeCloseTo((1 - p) / p, 10);
    expect(Math.max(...Object.values(l.weights))).toBe(1);
    expect(l.reasons.at(-1)).toMatch(/^learned route: P\(docs\) 0\.73 \(fit:dense \+3\.00, rule:identifier -2\.00\) → docs /);
    expect(r.reasons.at(-1)).not.toMatch(/^learned/); // the rules' route is left as it was
  });

  it('favours code when the evidence says code', () => {
    const l = learnedRoute(route('How do I skip a test?'), model, { 'rule:identifier': 1, 'fit:dense': -0.5 });
    expect(l.weights.code).toBe(1);
    expect(l.weights.docs).toBeLessThan(0.1);
    expect(l.top).toBe('code');
  });

  it('sharpness raises the odds to its power, keeps the issues ratio, and an even route even', () => {
    const r = route('See issue #42: what does parse_config do?');
    const ratio = r.weights.issues / Math.max(r.weights.docs, r.weights.code);
    const features = { 'rule:identifier': 1, 'fit:dense': 1 };
    const p = 1 / (1 + Math.exp(-1));
    const sharp = learnedRoute(r, { ...model, sharpness: 2 }, features);
    expect(sharp.weights.code / sharp.weights.docs).toBeCloseTo(((1 - p) / p) ** 2, 10);
    expect(sharp.weights.issues / Math.max(sharp.weights.docs, sharp.weights.code)).toBeCloseTo(ratio, 10);
    expect(sharp.reasons.at(-1)).toMatch(/, sharpness 2 → docs 1\.00, code 0\.14/);
    // P(docs) = 0.5: docs and code weigh the same whatever the sharpness.
    const even = learnedRoute(r, { ...model, sharpness: 3 }, { 'rule:identifier': 1.5, 'fit:dense': 1 });
    expect(even.weights.docs).toBeCloseTo(even.weights.code, 10);
  });
});

describe('config', () => {
  const root = findRoot();
  it('a learned router needs a model', () => {
    const { config } = loadConfig('pytest', { root, overrides: ['retrieval.router.kind=learned'] });
    expect(config.retrieval.router.model?.coefficients['rule:identifier']).toBeLessThan(0);
    const { model: _model, ...withoutModel } = config.retrieval.router;
    const parsed = configSchema.safeParse({ ...config, retrieval: { ...config.retrieval, router: withoutModel } });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]).toMatchObject({ path: ['retrieval', 'router'], message: expect.stringMatching(/needs a model/) });
  });
});
