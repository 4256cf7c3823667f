import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cita, type TestProject } from './support/cli.ts';
import { makeDemoProject } from './support/demoRepo.ts';

/** `cita ask` end to end: real model, real store, routed and fused retrieval, extractive answer, verified citations. */

describe('cita ask', () => {
  let p: TestProject;
  beforeAll(() => {
    p = makeDemoProject();
    expect(cita(p, ['index', 'demo']).code).toBe(0);
  });
  afterAll(() => p.cleanup());

  const askJson = (q: string, ...extra: string[]) => {
    const r = cita(p, ['ask', 'demo', q, '--json', ...extra]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    return JSON.parse(r.stdout);
  };

  it.each([
    ['How do I skip a test on Windows?', 'en', 'According to'],
    ['¿Cómo omito un test en Windows?', 'es', 'Según'],
  ])('answers a how-to question from the docs with verified citations: %s', (q, lang, lead) => {
    const r = askJson(q);
    expect(r.route.language).toBe(lang);
    expect(r.route.top).toBe('docs');
    expect(r.answer.text.startsWith(lead)).toBe(true);
    expect(r.answer.text).toContain('skipif');
    expect(r.answer.invalid).toEqual([]);
    expect(r.answer.unsupported).toEqual([]);
    const cited = r.answer.citations.find((c: any) => c.path === 'docs/guide.md');
    expect(cited).toMatchObject({ verified: true, headings: ['Guide', 'Skipping tests'] });
    expect(cited.url).toMatch(/^https:\/\/github\.com\/acme\/widgets\/blob\/v1\.0\/docs\/guide\.md#L\d+-L\d+$/);
  });

  it('routes an issue question to the issue and hops from it to the code it names', () => {
    const r = askJson('Where is the bug from issue #42?');
    expect(r.route.top).toBe('issues');
    expect(r.route.lookups.issues).toEqual([42]);
    expect(r.context.blocks[0].citation.issue).toBe(42);
    expect(r.queries.code).toContain('Issue #42');
    // The names the issue mentions are looked up as a pasted issue's are, and the route says so.
    expect(r.route.reasons.find((x: string) => x.startsWith('second hop:'))).toMatch(/text of issue #42 \(\d+ characters\); the names it mentions are looked up after the best search results \(.*parse_config/);
    const unnamed = askJson('Where is the bug from issue #42?', '--set', 'retrieval.secondHop.names=none');
    expect(unnamed.route.reasons.find((x: string) => x.startsWith('second hop:'))).toMatch(/text of issue #42 \(\d+ characters\)$/);
    expect(r.context.blocks.some((b: any) => b.citation.path === 'src/loader.py')).toBe(true);
    // The answer: the issue in its own words, then where to look in the code, every span verified.
    expect(r.answer.text).toMatch(/^According to issue #42:\n\n- “Calling parse_config on an empty JSON file raises a JSONDecodeError/);
    expect(r.answer.text).toMatch(/\n\nWhere to look:\n\n- `src\/loader\.py` \(parse_config\): `[^`]+` \[\d+\]/);
    expect(r.answer.invalid).toEqual([]);
    expect(r.answer.unsupported).toEqual([]);
  });

  it('says that an issue the index lacks is not there, in the route and in the answer', () => {
    const r = askJson('Where is the bug from issue #4242?');
    expect(r.route.lookups.issues).toEqual([4242]);
    expect(r.route.reasons).toContain('issue #4242 is not in the index');
    expect(r.answer.text).toBe('I could not find the answer in the indexed sources: #4242 is not among the indexed issues.');
    expect(r.answer.citations).toEqual([]);
  });

  it("searches a pasted issue without its environment (retrieval.environment), and says what was left out", () => {
    const pasted = [
      'parse_config raises on an empty JSON file',
      '<!-- Thanks for submitting an issue! -->',
      '```',
      'Package      Version',
      '------------ -------',
      'fastparquet  0.3.2',
      'geopandas    0.6.1',
      'widgets      1.0.0',
      '```',
    ].join('\n');
    const r = askJson(pasted);
    expect(r.route.reasons).toContain('environment left out of the search: an HTML comment, 3 lines of a package list');
    expect(r.queries.code).toContain('parse_config');
    expect(r.queries.code).not.toMatch(/fastparquet|geopandas|Thanks/);
    expect(r.question).toBe(pasted);
    const kept = askJson(pasted, '--set', 'retrieval.environment=keep');
    expect(kept.queries.code).toMatch(/fastparquet/);
    expect(kept.route.reasons.some((x: string) => x.startsWith('environment left out'))).toBe(false);
    // cita search searches it the same way, and says so.
    const searched = cita(p, ['search', 'demo', pasted]);
    expect(searched.code).toBe(0);
    expect(searched.stdout.split('\n')[0]).toBe('environment left out of the search: an HTML comment, 3 lines of a package list');
  });

  it("places the definition a pasted traceback's innermost frame in the sources is in first (retrieval.traceback)", () => {
    const pasted = [
      'Traceback (most recent call last):',
      '  File "/home/me/app.py", line 3, in <module>',
      '    settings = parse_config("empty.json")',
      '  File "/venv/lib/python3.11/site-packages/loader.py", line 7, in parse_config',
      '    return json.load(fh)',
      '  File "/usr/lib/python3.11/json/__init__.py", line 293, in load',
      'json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)',
    ].join('\n');
    const r = askJson(pasted);
    expect(r.route.reasons).toContain('traceback: its innermost frame in the sources is src/loader.py, in parse_config (line 7 as written); that definition is placed first');
    expect(r.context.blocks[0].citation).toMatchObject({ path: 'src/loader.py', symbol: 'parse_config' });
    expect(r.context.blocks[0].scores.via).toBe('lookup');
    const none = askJson(pasted, '--set', 'retrieval.traceback=none');
    expect(none.route.reasons.some((x: string) => x.startsWith('traceback:'))).toBe(false);
  });

  it('re-ranks a typed question’s first docs candidates by late interaction when asked (retrieval.lateInteraction), and says so', () => {
    const on = ['--set', 'retrieval.lateInteraction.weight=2'];
    const note = (r: any) => r.route.reasons.find((x: string) => x.startsWith('late interaction'));
    const r = askJson('¿Cómo omito un test en Windows?', ...on);
    expect(note(r)).toBe("late interaction: the first 30 docs candidates re-ranked by each question word's closest word in them");
    expect(r.answer.text).toContain('skipif');
    expect(note(askJson('¿Cómo omito un test en Windows?'))).toBeUndefined();
    // Only questions in another language, when so configured; never pasted text.
    expect(note(askJson('How do I skip a test on Windows?', ...on, '--set', 'retrieval.lateInteraction.questions=translated'))).toBeUndefined();
    expect(note(askJson('How do I skip a test on Windows?', ...on))).toBeDefined();
    expect(note(askJson(`parse_config fails:\n\n    def parse_config(path):\n        return json.load(open(path))\n`, ...on))).toBeUndefined();
    // cita search re-ranks the same way and still gives k hits.
    const searched = cita(p, ['search', 'demo', '¿Cómo omito un test en Windows?', '--source', 'docs', '--k', '2', ...on]);
    expect(searched.code).toBe(0);
    expect(searched.stdout.match(/^ \d\. \[docs\]/gm)).toHaveLength(2);
    expect(searched.stdout).toContain("late interaction: the first 30 docs candidates re-ranked by each question word's closest word in them\n");
    // Both tell typed from pasted text once the environment is left out: a line under a long issue template's comment is typed.
    const withEnvironment = `parse_config raises on an empty JSON file\n<!-- ${'Thanks for submitting an issue! Please fill in the checklist below and describe the bug. '.repeat(8)}-->`;
    expect(note(askJson(withEnvironment, ...on))).toBeDefined();
    expect(cita(p, ['search', 'demo', withEnvironment, '--source', 'docs', ...on]).stdout).toContain('late interaction: the first 30 docs candidates');
  });

  it('re-ranks a typed question’s first docs candidates by query likelihood when asked (retrieval.queryLikelihood), and says so', () => {
    const on = ['--set', 'retrieval.queryLikelihood.weight=2'];
    const note = (r: any) => r.route.reasons.find((x: string) => x.startsWith('query likelihood'));
    const r = askJson('¿Cómo omito un test en Windows?', ...on);
    expect(note(r)).toBe('query likelihood: the first 10 docs candidates re-ranked by how likely model:gemma-3-270m finds the question after each');
    expect(r.answer.text).toContain('skipif');
    expect(note(askJson('¿Cómo omito un test en Windows?'))).toBeUndefined();
    expect(note(askJson('How do I skip a test on Windows?', ...on, '--set', 'retrieval.queryLikelihood.questions=translated'))).toBeUndefined();
    expect(note(askJson(`parse_config fails:\n\n    def parse_config(path):\n        return json.load(open(path))\n`, ...on))).toBeUndefined();
    // cita search re-ranks the same way and still gives k hits.
    const searched = cita(p, ['search', 'demo', '¿Cómo omito un test en Windows?', '--source', 'docs', '--k', '2', ...on]);
    expect(searched.code).toBe(0);
    expect(searched.stdout.match(/^ \d\. \[docs\]/gm)).toHaveLength(2);
    expect(searched.stdout).toContain('query likelihood: the first 10 docs candidates re-ranked by how likely model:gemma-3-270m finds the question after each\n');
    // A model that cannot be opened leaves the ranking as it was, and the route says why.
    const broken = askJson('How do I skip a test on Windows?', ...on, '--set', 'languages.modelTranslator.model=missing.gguf');
    expect(note(broken)).toMatch(/^query likelihood: not run \(.*missing\.gguf/);
    expect(broken.answer.text).toContain('skipif');
    const searchedBroken = cita(p, ['search', 'demo', 'How do I skip a test on Windows?', '--source', 'docs', ...on, '--set', 'languages.modelTranslator.model=missing.gguf']);
    expect(searchedBroken.code).toBe(0);
    expect(searchedBroken.stdout).toMatch(/^query likelihood: not run \(.*missing\.gguf/m);
    expect(searchedBroken.stdout).toMatch(/^ 1\. \[docs\]/m);
  });

  it('translates a Spanish question into the corpus language for retrieval, and says so in the route', () => {
    const r = askJson('¿Cómo instalo el paquete?');
    expect(r.translation).toMatchObject({ from: 'es', to: 'en', translator: 'apertium' });
    expect(r.translation.text).toMatch(/install/i);
    expect(r.queries.docs).toBe(r.translation.text);
    expect(r.route.reasons.some((x: string) => x.startsWith('translated es → en (apertium)'))).toBe(true);
    expect(r.context.translation).toBe(r.translation.text);
    const plain = askJson('¿Cómo instalo el paquete?', '--set', 'languages.translator.kind=none');
    expect(plain.translation).toBeUndefined();
    expect(plain.queries.docs).toBe('¿Cómo instalo el paquete?');
    // English questions are never translated.
    expect(askJson('How do I install widgets?').translation).toBeUndefined();
  });

  it('cita search translates a Spanish query the same way', () => {
    const r = cita(p, ['search', 'demo', '¿Cómo instalo el paquete?', '--source', 'docs', '--json']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.translation).toMatchObject({ from: 'es', to: 'en', translator: 'apertium' });
    expect(out.translation.text).toMatch(/install/i);
    expect(out.results.docs[0].chunk.citation.headings).toEqual(['Guide', 'Installing']);
    const text = cita(p, ['search', 'demo', '¿Cómo instalo el paquete?', '--source', 'docs']);
    expect(text.stdout.split('\n')[0]).toMatch(/^translated es → en \(apertium\): .*install/i);
  });

  it('searches untranslated, and says why, when the translator is missing', () => {
    const r = askJson('¿Cómo instalo el paquete?', '--set', 'languages.translator.command=apertium-not-installed-here');
    expect(r.translation.error).toMatch(/apertium-not-installed-here not found/);
    expect(r.queries.docs).toBe('¿Cómo instalo el paquete?');
    expect(r.route.reasons.some((x: string) => x.startsWith('not translated (apertium-not-installed-here not found'))).toBe(true);
    expect(r.answer).toBeDefined();
    // Its quotes are not glossed either, and the answer says why.
    expect(r.answer.noAnswer).toBeUndefined();
    expect(r.answer.glosses).toBeUndefined();
    expect(r.answer.glossedBy).toMatch(/^gloss failed: apertium-not-installed-here not found/);
  });

  it("glosses a Spanish question's English quotes into Spanish beside the answer, never in it", () => {
    const r = askJson('¿Cómo omito un test en Windows?');
    expect(r.answer.glossedBy).toBe('apertium');
    expect(r.answer.glosses.length).toBeGreaterThan(0);
    const markers = new Set(r.answer.citations.map((c: any) => c.marker));
    for (const g of r.answer.glosses) {
      expect(markers.has(g.marker)).toBe(true);
      // The quote is the answer's own line, as the sources say it; the gloss is Spanish.
      expect(r.answer.text).toContain(`- ${g.quote} [${g.marker}]`);
      expect(g.text).not.toBe(g.quote);
      expect(g.text).toMatch(/(?<![\p{L}])(?:el|la|los|las|una?|de|para|prueba|en)(?![\p{L}])/u);
    }
    expect(r.answer.text).not.toContain(r.answer.glosses[0].text);
    // The question's own English word stays as the user wrote it: `test`, not `prueba`.
    const quoting = r.answer.glosses.filter((g: { quote: string }) => /\btests?\b/.test(g.quote));
    expect(quoting.length).toBeGreaterThan(0);
    for (const g of quoting) expect(g.text).toMatch(/\btests?\b/);
    // The same answer without them: glosses add nothing to the text, its citations or its checks.
    const plain = askJson('¿Cómo omito un test en Windows?', '--set', 'answer.glosses=none');
    expect(plain.answer.glosses).toBeUndefined();
    expect(plain.answer.text).toBe(r.answer.text);
    expect(plain.answer.citations).toEqual(r.answer.citations);
    // English questions over English sources have nothing to gloss.
    expect(askJson('How do I skip a test on Windows?').answer.glosses).toBeUndefined();
    const text = cita(p, ['ask', 'demo', '¿Cómo omito un test en Windows?']);
    expect(text.stdout).toMatch(/\n\nTraducción automática de las citas \(apertium; para orientarse, no es una cita\):\n {2}\[\d+\] \S/);
  });

  it('looks up a symbol directly for a code question', () => {
    const r = askJson('what does parse_config do?');
    expect(r.route.top).toBe('code');
    expect(r.route.lookups.symbols).toContain('parse_config');
    expect(r.context.blocks[0]).toMatchObject({ citation: { path: 'src/loader.py', symbol: 'parse_config' }, scores: { via: 'lookup' } });
  });

  it('looks a qualified name up only where its qualifier leads (retrieval.definitions)', () => {
    const byModule = askJson('what does `loader.parse_config` do?');
    expect(byModule.route.lookups.symbols).toEqual(['loader.parse_config', 'parse_config']);
    expect(byModule.context.blocks[0]).toMatchObject({ citation: { path: 'src/loader.py', symbol: 'parse_config' }, scores: { via: 'lookup' } });
    // Another module's parse_config is not this one: nothing is placed ahead of search…
    const other = askJson('what does `yaml.parse_config` do?');
    expect(other.context.blocks.filter((b: { scores: { via: string } }) => b.scores.via === 'lookup')).toEqual([]);
    // …as the earlier rule did, taking the last part alone.
    expect(askJson('what does `yaml.parse_config` do?', '--set', 'retrieval.definitions=first').context.blocks[0].scores.via).toBe('lookup');
  });

  it('with retrieval.lookupsAfter=1 puts the definition after the first file search finds', () => {
    const r = askJson('what does parse_config do?', '--set', 'retrieval.lookupsAfter=1');
    const blocks = r.context.blocks as { citation: { path: string; symbol?: string }; scores: { via: string; collection: string } }[];
    expect(blocks[0]!.scores.via).toBe('search');
    // The definition is among the first two file blocks: search's first (a block is never repeated,
    // so a definition search found first stays where search put it) or right after it.
    const files = blocks.filter((b) => b.scores.collection !== 'issues');
    expect(files.slice(0, 2).some((b) => b.citation.path === 'src/loader.py' && b.citation.symbol === 'parse_config')).toBe(true);
    // With the default (0) the definition leads, as a lookup.
    expect(askJson('what does parse_config do?').context.blocks[0].scores.via).toBe('lookup');
  });

  it('puts the definitions after the first file search finds where the route leans to the docs (retrieval.lookupsAfterDocsLed), and says so', () => {
    // The rules weigh how-to phrasing (docs) and a name (code) alike: a route that leans to the docs.
    const q = 'How do I install widgets so that I can call parse_config?';
    const r = askJson(q, '--set', 'retrieval.router.kind=rules');
    expect(r.route.weights.docs).toBeGreaterThanOrEqual(r.route.weights.code);
    expect(r.context.blocks[0].scores.via).toBe('search');
    expect(r.route.reasons).toContain('the route leans to the docs: the definitions of the names asked about come after the first file search finds');
    const first = askJson(q, '--set', 'retrieval.router.kind=rules', '--set', 'retrieval.lookupsAfterDocsLed=0');
    expect(first.context.blocks[0]).toMatchObject({ citation: { path: 'src/loader.py', symbol: 'parse_config' }, scores: { via: 'lookup' } });
    expect((first.route.reasons as string[]).some((x) => x.startsWith('the route leans to the docs: the definitions'))).toBe(false);
  });

  it("opens a docs-led route's files with the docs' best page (retrieval.docsLedFirst: docs, the default), and says so", () => {
    // How-to phrasing leans the rules' route to the docs; the loader's docstring says the question's words.
    const q = 'How do I read a JSON configuration file?';
    const files = (r: any) => (r.context.blocks as any[]).filter((b) => b.scores.collection !== 'issues').map((b) => b.citation.path);
    const fused = askJson(q, '--set', 'retrieval.router.kind=rules', '--set', 'retrieval.docsLedFirst=fused');
    expect(fused.route.weights.docs).toBeGreaterThan(fused.route.weights.code);
    expect(files(fused)[0]).toBe('src/loader.py');
    expect((fused.route.reasons as string[]).some((x) => x.includes("the docs' best page"))).toBe(false);
    const docs = askJson(q, '--set', 'retrieval.router.kind=rules');
    expect(files(docs)[0]).toBe('docs/guide.md');
    expect(docs.ranking.files[0]).toBe('docs/guide.md');
    expect(docs.route.reasons).toContain("the route leans to the docs: the docs' best page comes before the code fusion put first");
  });

  it('by default (retrieval.router.kind=learned) weighs docs against code by the model, and says so', () => {
    const rules = askJson('How do I skip a test on Windows?', '--set', 'retrieval.router.kind=rules');
    const r = askJson('How do I skip a test on Windows?');
    const reason = (r.route.reasons as string[]).at(-1)!;
    const p = Number(/^learned route: P\(docs\) (\d\.\d\d)/.exec(reason)?.[1]);
    expect(p).toBeGreaterThan(0.5);
    expect(r.route.weights.docs).toBe(1);
    expect(r.route.weights.code).toBeCloseTo((1 - p) / p, 1);
    expect(r.route.top).toBe('docs');
    expect(rules.route.reasons.some((x: string) => x.startsWith('learned route'))).toBe(false);
  });

  it('counts how often the docs and the code mention the names a question asks about (names:documented), and shows it in --json reasons', () => {
    const r = askJson('Can I use `skipif` with a condition?');
    const reason = (r.route.reasons as string[]).at(-1)!;
    // `skipif` is in the guide and nowhere in the code: documented, so the learned route leans to the docs for it.
    expect(reason).toMatch(/^learned route: P\(docs\) \d\.\d\d \(.*names:documented \+\d\.\d\d/);
    expect(r.route.top).toBe('docs');
    expect(r.route.reasons).toContainEqual(expect.stringMatching(/^names asked about, chunks that mention each in the docs \(of \d+\) \/ the code \(of \d+\): skipif [1-9]\d* \/ 0$/));
    const internal = askJson('Can I use `parse_config` with a condition?');
    expect((internal.route.reasons as string[]).at(-1)).toMatch(/names:documented -\d\.\d\d/);
    // Pasted text mentions its names rather than asking about them: none are counted.
    const pasted = askJson(`skipif fails here\n${'Traceback (most recent call last): File "t.py", line 3, in test_b\n'.repeat(12)}AssertionError`);
    expect(pasted.route.pasted).toBe(true);
    expect((pasted.route.reasons as string[]).some((x) => x.startsWith('names asked about'))).toBe(false);
    expect((pasted.route.reasons as string[]).at(-1)).not.toMatch(/names:documented/);
  });

  it('reports the slot distribution of the fusion method in config, or of one set per question', () => {
    const proportional = askJson('How do I install widgets?');
    const rrf = askJson('How do I install widgets?', '--set', 'fusion.method=rrf');
    expect(proportional.fusion.method).toBe('proportional');
    expect(rrf.fusion.method).toBe('rrf');
    const total = (s: Record<string, number>) => Object.values(s).reduce((a, b) => a + b, 0);
    expect(total(proportional.fusion.slots)).toBeGreaterThan(0);
    expect(total(rrf.fusion.slots)).toBeGreaterThan(0);
  });

  it('prints the answer, numbered sources, route and slots on a terminal', () => {
    const r = cita(p, ['ask', 'demo', 'How do I skip a test on Windows?']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Sources:\n\s+\[\d\] docs\/guide\.md:\d+-\d+/);
    expect(r.stdout).toMatch(/Route: docs/);
    expect(r.stdout).toMatch(/Slots \(proportional\): docs \d+, code \d+, issues \d+/);
  });
});

describe('cita ask: file names among the names asked about (retrieval.router.counted)', () => {
  let p: TestProject;
  beforeAll(() => {
    p = makeDemoProject();
    p.write('docs/settings.md', '# Settings\n\n## The settings file\n\nPut the settings in widgets.toml at the root of the project; widgets.toml is read when the widgets command starts.\n');
    expect(cita(p, ['index', 'demo']).code).toBe(0);
  });
  afterAll(() => p.cleanup());

  const reasons = (...extra: string[]): string[] => {
    const r = cita(p, ['ask', 'demo', 'Can I keep my options in widgets.toml?', '--json', ...extra]);
    expect(r.code).toBe(0);
    return JSON.parse(r.stdout).route.reasons;
  };

  it('counts them by default (symbols-and-files), so the learned route reads that the docs talk about the file', () => {
    const counted = reasons();
    expect(counted).toContainEqual(expect.stringMatching(/^names asked about, chunks that mention each in the docs \(of \d+\) \/ the code \(of \d+\): widgets\.toml [1-9]\d* \/ 0$/));
    expect(counted.at(-1)).toMatch(/names:documented \+\d\.\d\d/);
  });

  it('leaves them out with symbols', () => {
    const symbols = reasons('--set', 'retrieval.router.counted=symbols');
    expect(symbols.some((x) => x.startsWith('names asked about'))).toBe(false);
    expect(symbols.at(-1)).not.toMatch(/names:documented/);
  });
});

describe('cita ask: tests and examples after the library in a code-led route (retrieval.supportCode)', () => {
  let p: TestProject;
  beforeAll(() => {
    p = makeDemoProject();
    // An example and a test that repeat the issue's words more than the module the bug is in.
    p.write(
      'tests/test_empty_config.py',
      '"""Reading an empty JSON configuration file."""\nfrom loader import parse_config\n\n\ndef test_empty_file_gives_empty_settings(tmp_path):\n    """Reading an empty JSON configuration file should return an empty dict of settings, not raise a JSONDecodeError."""\n    (tmp_path / "empty.json").write_text("")\n    assert parse_config(tmp_path / "empty.json") == {}\n',
    );
    p.write(
      'examples/empty_config.py',
      '"""Example: parse_config on an empty JSON file."""\nfrom loader import parse_config\n\n\ndef show_empty_file():\n    """Calling parse_config on an empty JSON file: a JSONDecodeError, or an empty dict?"""\n    return parse_config("empty.json")\n',
    );
    expect(cita(p, ['index', 'demo']).code).toBe(0);
  });
  afterAll(() => p.cleanup());

  const ask = (...extra: string[]) => {
    const r = cita(p, ['ask', 'demo', 'Reading an empty JSON configuration file raises a JSONDecodeError instead of returning an empty dict of settings. Which file?', '--json', ...extra]);
    expect(r.code).toBe(0);
    return JSON.parse(r.stdout);
  };

  it("opens with the library's module and says so; as-found keeps a test or the example first", () => {
    const found = ask('--set', 'retrieval.supportCode=as-found');
    expect(found.route.top).toBe('code');
    expect(['examples/empty_config.py', 'tests/test_empty_config.py']).toContain(found.ranking.files[0]);
    const after = ask('--set', 'retrieval.supportCode=after-library');
    expect(after.ranking.files[0]).toBe('src/loader.py');
    expect(after.route.reasons).toContain("the route leans to the code: the library's code comes before its tests, examples and benchmarks");
    expect(found.route.reasons.some((x: string) => x.includes('its tests, examples'))).toBe(false);
  });
});

describe('cita ask: pasted text led by the code has the docs after its first code files and its code spread by file (retrieval.pastedDocsAfter, pastedPerFile)', () => {
  let p: TestProject;
  beforeAll(() => {
    p = makeDemoProject();
    // A changelog that repeats a pasted issue's words, and more modules than the one the bug is in.
    p.write(
      'docs/changelog.md',
      '# Changelog\n\n## 1.2\n\n- parse_config no longer raises a JSONDecodeError on an empty JSON configuration file: it returns an empty dict of settings.\n- The widgets command reads its settings with parse_config.\n',
    );
    p.write('src/settings.py', '"""Settings: the dict parse_config returns, with defaults."""\nfrom loader import parse_config\n\n\ndef load_settings(path):\n    """Read the JSON configuration file into settings, with defaults for missing keys."""\n    return {"verbose": False, **parse_config(path)}\n');
    p.write('src/cli.py', '"""The widgets command."""\nfrom settings import load_settings\n\n\ndef main(path="widgets.json"):\n    """Run the widgets command with the settings of a JSON configuration file."""\n    print(load_settings(path))\n');
    expect(cita(p, ['index', 'demo']).code).toBe(0);
  });
  afterAll(() => p.cleanup());

  const pasted = 'parse_config raises on an empty configuration file\n\n```\njson.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)\n```\n\nReading an empty JSON configuration file raises a JSONDecodeError instead of returning an empty dict of settings.';
  const ask = (...extra: string[]) => {
    const r = cita(p, ['ask', 'demo', pasted, '--json', ...extra]);
    expect(r.code).toBe(0);
    return JSON.parse(r.stdout);
  };

  it('puts the changelog after the code files by default, and the code one chunk per file first, and says so; 0 keeps where fusion put them', () => {
    const note = 'pasted text the route leans to the code for: the docs come after the first 5 code files search finds';
    const fused = ask('--set', 'retrieval.pastedDocsAfter=0');
    expect(fused.route.weights.code).toBeGreaterThan(fused.route.weights.docs);
    expect(fused.ranking.files.indexOf('docs/changelog.md')).toBeLessThan(fused.ranking.files.indexOf('src/cli.py'));
    expect(fused.route.reasons).not.toContain(note);
    const after = ask();
    const code = (files: string[]) => files.filter((f) => f.startsWith('src/'));
    expect(after.ranking.files.slice(0, 3)).toEqual(code(fused.ranking.files));
    expect(after.ranking.files).toContain('docs/changelog.md');
    expect(after.route.reasons).toContain(note);
    // The code one chunk per file first (retrieval.pastedPerFile: 1, the default); 0 leaves it as found.
    const spread = "pasted text the route leans to the code for: one chunk of each code file before another file's next";
    expect(after.route.reasons).toContain(spread);
    expect(ask('--set', 'retrieval.pastedPerFile=0').route.reasons).not.toContain(spread);
    const blocks = (r: any) => (r.context.blocks as any[]).filter((b) => b.scores.collection !== 'issues').map((b) => b.citation.path);
    expect(blocks(after).slice(0, 3).every((f: string) => f.startsWith('src/'))).toBe(true);
  });
});
