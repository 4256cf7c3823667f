import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { OpenAiError, OpenAiGenerator } from '../pipeline/answer/generators/openai.ts';
import { NO_ANSWER } from '../pipeline/answer/generators/prompt.ts';
import type { Context, ContextBlock, Language } from '../pipeline/answer/types.ts';
import type { Citation, Collection } from '../pipeline/types.ts';

// A server on 127.0.0.1 that speaks the OpenAI chat completions format; each test scripts its replies.

interface Seen {
  headers: http.IncomingHttpHeaders;
  body: { model: string; messages: { role: string; content: string }[]; stream?: boolean; max_tokens?: number; temperature?: number };
}

type Reply = (req: http.IncomingMessage, res: http.ServerResponse, seen: Seen) => void;

const servers: http.Server[] = [];

async function serve(replies: Reply[]): Promise<{ baseUrl: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      const s: Seen = { headers: req.headers, body: JSON.parse(raw || '{}') as Seen['body'] };
      seen.push(s);
      if (req.url !== '/v1/chat/completions') return json(res, 404, { error: { message: `no route ${req.url}` } });
      const reply = replies[Math.min(seen.length - 1, replies.length - 1)]!;
      reply(req, res, s);
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, seen };
}

afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

function json(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function completion(text: string): Reply {
  return (_req, res, seen) =>
    json(res, 200, {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      model: seen.body.model,
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 120, completion_tokens: 9, total_tokens: 129 },
    });
}

/** SSE in the shape OpenAI sends: a role delta, content deltas, a finish event, then `[DONE]`. */
function streamed(pieces: string[]): Reply {
  return (_req, res, seen) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const event = (delta: object, finish: string | null = null) =>
      `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', model: seen.body.model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    res.write(': keep-alive\n\n');
    res.write(event({ role: 'assistant', content: '' }));
    for (const p of pieces) res.write(event({ content: p }));
    res.write(event({}, 'stop'));
    res.end('data: [DONE]\n\n');
  };
}

function block(marker: number, collection: Collection, citation: Citation, text: string): ContextBlock {
  return {
    marker,
    citation,
    text,
    chunk: { id: `c${marker}`, collection, text, title: citation.path, citation, tokens: 50 },
    scores: { collection, fused: 1, bm25: 1, dense: 0.8, via: 'search' },
  };
}

function makeContext(question: string, language: Language): Context {
  const blocks = [
    block(1, 'docs', { path: 'doc/en/how-to/skipping.rst', startLine: 10, endLine: 14, headings: ['How to use skip and xfail'] }, 'Use pytest.mark.skip(reason=...) to skip a test unconditionally.'),
    block(2, 'code', { path: 'src/_pytest/skipping.py', startLine: 160, endLine: 172, symbol: 'evaluate_skip_marks' }, 'def evaluate_skip_marks(item):\n    """Evaluate skip and skipif marks on item."""'),
  ];
  return Object.freeze({ question, language, budget: { chunks: 12, chars: 2400 }, blocks, chars: blocks.reduce((n, b) => n + b.text.length, 0) });
}

const KEY = 'sk-test-SECRET-0123456789abcdef';
const quiet = { backoffMs: 10, timeoutMs: 5_000 };

describe('OpenAiGenerator', () => {
  it('sends the context blocks and the language instruction, returns the answer', async () => {
    const { baseUrl, seen } = await serve([completion('  Usa pytest.mark.skip [1].  ')]);
    const q = '¿Cómo salto un test?';
    const gen = new OpenAiGenerator({ baseUrl, model: 'test-model', apiKey: KEY, maxTokens: 64, ...quiet });
    const answer = await gen.generate(q, makeContext(q, 'es'));

    expect(gen.id).toBe('openai:test-model');
    expect(answer).toEqual({ text: 'Usa pytest.mark.skip [1].', language: 'es', generator: 'openai:test-model' });
    expect(gen.lastStats).toMatchObject({ promptTokens: 120, completionTokens: 9 });
    expect(seen).toHaveLength(1);
    const { body, headers } = seen[0]!;
    expect(headers.authorization).toBe(`Bearer ${KEY}`);
    expect(body).toMatchObject({ model: 'test-model', temperature: 0, max_tokens: 64, stream: false });
    const [system, user] = body.messages;
    expect(system!.role).toBe('system');
    expect(system!.content).toContain('Answer in Spanish');
    expect(system!.content).toContain(NO_ANSWER.es);
    expect(user!.role).toBe('user');
    expect(user!.content).toContain('[1] doc/en/how-to/skipping.rst:10-14 › How to use skip and xfail\nUse pytest.mark.skip(reason=...)');
    expect(user!.content).toContain('[2] src/_pytest/skipping.py:160-172 | evaluate_skip_marks\ndef evaluate_skip_marks(item):');
    expect(user!.content.trimEnd().endsWith(`Question: ${q}`)).toBe(true);
  });

  it('asks for English when the question is English, and sends no key when there is none', async () => {
    const { baseUrl, seen } = await serve([completion('Use pytest.mark.skip [1].')]);
    const gen = new OpenAiGenerator({ baseUrl, model: 'm', apiKeyEnv: 'CITA_TEST_UNSET_KEY_VAR', ...quiet });
    await gen.generate('How do I skip a test?', makeContext('How do I skip a test?', 'en'));
    expect(seen[0]!.body.messages[0]!.content).toContain('Answer in English');
    expect(seen[0]!.headers.authorization).toBeUndefined();
  });

  it('flags the no-answer statement, in either language, but not a statement followed by claims', async () => {
    const { baseUrl } = await serve([completion(`${NO_ANSWER.es}`), completion(`${NO_ANSWER.en}.`), completion(`${NO_ANSWER.en} But skip works [1].`)]);
    const gen = new OpenAiGenerator({ baseUrl, model: 'm', ...quiet });
    expect((await gen.generate('q', makeContext('q', 'es'))).noAnswer).toBe(true);
    expect((await gen.generate('q', makeContext('q', 'en'))).noAnswer).toBe(true);
    expect((await gen.generate('q', makeContext('q', 'en'))).noAnswer).toBeUndefined();
  });

  it('reads the key from the environment variable named in the config', async () => {
    const { baseUrl, seen } = await serve([completion('ok [1]')]);
    process.env.CITA_TEST_KEY = KEY;
    try {
      await new OpenAiGenerator({ baseUrl, model: 'm', apiKeyEnv: 'CITA_TEST_KEY', ...quiet }).generate('q', makeContext('q', 'en'));
    } finally {
      delete process.env.CITA_TEST_KEY;
    }
    expect(seen[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('streams server-sent events to onToken and returns the whole text', async () => {
    const { baseUrl, seen } = await serve([streamed(['Use ', 'pytest.mark.skip', ' [1].'])]);
    const tokens: string[] = [];
    const gen = new OpenAiGenerator({ baseUrl, model: 'm', stream: true, onToken: (t) => tokens.push(t), ...quiet });
    const answer = await gen.generate('How do I skip a test?', makeContext('How do I skip a test?', 'en'));
    expect(seen[0]!.body.stream).toBe(true);
    expect(seen[0]!.headers.accept).toBe('text/event-stream');
    expect(tokens).toEqual(['Use ', 'pytest.mark.skip', ' [1].']);
    expect(answer.text).toBe('Use pytest.mark.skip [1].');
  });

  it('waits as long as retry-after says after a 429, then succeeds', async () => {
    const { baseUrl, seen } = await serve([
      (_req, res) => json(res, 429, { error: { message: 'Rate limit reached' } }, { 'retry-after': '1' }),
      completion('after the wait [1]'),
    ]);
    const logs: string[] = [];
    const gen = new OpenAiGenerator({ baseUrl, model: 'm', apiKey: KEY, log: (m) => logs.push(m), ...quiet });
    const t = performance.now();
    const answer = await gen.generate('q', makeContext('q', 'en'));
    expect(performance.now() - t).toBeGreaterThanOrEqual(950);
    expect(answer.text).toBe('after the wait [1]');
    expect(seen).toHaveLength(2);
    expect(logs.join('\n')).toMatch(/HTTP 429.*retrying in 1\.0 s \(attempt 2 of 4\)/);
  });

  it('retries a 500 with backoff, then succeeds', async () => {
    const { baseUrl, seen } = await serve([(_req, res) => json(res, 500, { error: { message: 'internal' } }), completion('second time [2]')]);
    const answer = await new OpenAiGenerator({ baseUrl, model: 'm', ...quiet }).generate('q', makeContext('q', 'en'));
    expect(answer.text).toBe('second time [2]');
    expect(seen).toHaveLength(2);
  });

  it('gives up after the configured retries with the last status', async () => {
    const { baseUrl, seen } = await serve([(_req, res) => json(res, 503, { error: { message: 'overloaded' } })]);
    const err = await new OpenAiGenerator({ baseUrl, model: 'm', retries: 2, ...quiet }).generate('q', makeContext('q', 'en')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAiError);
    expect((err as OpenAiError).status).toBe(503);
    expect((err as Error).message).toMatch(/HTTP 503: overloaded \(after 3 attempts\)/);
    expect(seen).toHaveLength(3);
  });

  it('fails when a response takes longer than timeoutMs, without retrying', async () => {
    const { baseUrl, seen } = await serve([() => {}]); // never answers
    const gen = new OpenAiGenerator({ baseUrl, model: 'm', ...quiet, timeoutMs: 300 });
    const t = performance.now();
    await expect(gen.generate('q', makeContext('q', 'en'))).rejects.toThrow(/no answer from .*\/v1\/chat\/completions within 300 ms/);
    expect(performance.now() - t).toBeLessThan(3_000);
    expect(seen).toHaveLength(1);
  });

  it('a timeout also cuts a stream that stalls', async () => {
    const { baseUrl } = await serve([
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'Half' } }] })}\n\n`);
      },
    ]);
    const gen = new OpenAiGenerator({ baseUrl, model: 'm', stream: true, ...quiet, timeoutMs: 300 });
    await expect(gen.generate('q', makeContext('q', 'en'))).rejects.toThrow(/within 300 ms/);
  });

  it('names the variable on a 401 and never shows the key, even when the server echoes it', async () => {
    const echo: Reply = (req, res) =>
      json(res, 401, { error: { message: `Incorrect API key provided: ${String(req.headers.authorization).slice(7)}`, type: 'invalid_request_error' } });
    const { baseUrl, seen } = await serve([echo]);
    const logs: string[] = [];
    const err = (await new OpenAiGenerator({ baseUrl, model: 'm', apiKey: KEY, log: (m) => logs.push(m), ...quiet })
      .generate('q', makeContext('q', 'en'))
      .catch((e: unknown) => e)) as OpenAiError;
    expect(err).toBeInstanceOf(OpenAiError);
    expect(err.status).toBe(401);
    expect(err.message).toContain('the endpoint rejected the API key in $OPENAI_API_KEY');
    expect(err.message).toContain('Incorrect API key provided: ***');
    expect(err.message).not.toContain(KEY);
    expect(err.stack ?? '').not.toContain(KEY);
    expect(seen).toHaveLength(1); // a wrong key is not retried
    expect(logs.join('\n')).not.toContain(KEY);
  });

  it('keeps the key out of retry logs and the final error when a 5xx echoes it', async () => {
    const { baseUrl } = await serve([(req, res) => json(res, 502, { error: { message: `upstream saw ${req.headers.authorization}` } })]);
    const logs: string[] = [];
    const err = (await new OpenAiGenerator({ baseUrl, model: 'm', apiKey: KEY, retries: 1, log: (m) => logs.push(m), ...quiet })
      .generate('q', makeContext('q', 'en'))
      .catch((e: unknown) => e)) as Error;
    expect(logs.length).toBe(1);
    expect(logs[0]).toContain('Bearer ***');
    expect(`${logs.join('\n')}\n${err.message}\n${err.stack}`).not.toContain(KEY);
  });

  it('says which model was not found on a 404', async () => {
    const { baseUrl } = await serve([(_req, res, seen) => json(res, 404, { error: { message: `model '${seen.body.model}' not found` } })]);
    await expect(new OpenAiGenerator({ baseUrl, model: 'qwen9:99b', ...quiet }).generate('q', makeContext('q', 'en'))).rejects.toThrow(
      /HTTP 404: model 'qwen9:99b' not found: the model "qwen9:99b" was not found there/,
    );
  });

  it('says the server is not running when the connection is refused', async () => {
    const { baseUrl } = await serve([completion('unused')]);
    const s = servers.pop()!;
    await new Promise((r) => s.close(r)); // the port is now closed
    const err = (await new OpenAiGenerator({ baseUrl, model: 'm', apiKey: KEY, retries: 1, ...quiet })
      .generate('q', makeContext('q', 'en'))
      .catch((e: unknown) => e)) as Error;
    expect(err.message).toContain(`cannot reach ${baseUrl}: is the server running?`);
    expect(err.message).toContain('ECONNREFUSED');
  });
});
