import type { Context, GeneratedAnswer, Generator } from '../types.ts';
import { chatMessages, makeStats, toAnswer, type ChatMessage, type GenerationStats } from './prompt.ts';

/**
 * A generator for any OpenAI-compatible chat completions endpoint (OpenAI, Ollama, vLLM, llama.cpp
 * server). Plain `fetch`: the protocol is one POST, and every one of those servers speaks it.
 * Transient failures (429, 5xx, dropped connections) are retried with backoff, honouring
 * `retry-after`; everything else fails at once with a message that says what to fix.
 * The API key never appears in an error or a log line, even when a server echoes it back.
 */

export interface OpenAiGeneratorOptions {
  /** e.g. `https://api.openai.com/v1`, `http://127.0.0.1:11434/v1` (Ollama), `http://127.0.0.1:8080/v1` (llama.cpp). */
  baseUrl: string;
  model: string;
  /** The key itself; default: the value of the environment variable `apiKeyEnv`. Local servers need none. */
  apiKey?: string;
  /** The environment variable that holds the key (named in errors, never its value). Default `OPENAI_API_KEY`. */
  apiKeyEnv?: string;
  /** Per attempt, response body included. Default 60 s. */
  timeoutMs?: number;
  /** Further attempts after a 429, a 5xx or a network failure. Default 3. */
  retries?: number;
  /** Default 0: the same context should give the same answer. */
  temperature?: number;
  /** Default 512. */
  maxTokens?: number;
  /** Ask for server-sent events and report text as it arrives through `onToken`. */
  stream?: boolean;
  onToken?: (text: string) => void;
  /** First backoff step; doubled per attempt, with jitter. Default 500 ms. */
  backoffMs?: number;
  /** Longest wait between attempts; a `retry-after` beyond it fails instead of stalling. Default 30 s. */
  maxBackoffMs?: number;
  /** Retry and progress lines. */
  log?: (msg: string) => void;
}

/** A failure of the endpoint, with the HTTP status when there was one. */
export class OpenAiError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'OpenAiError';
  }
}

/** Worth another attempt: the server may answer next time. */
class Transient extends Error {
  constructor(
    message: string,
    readonly status: number | undefined,
    /** Server-requested wait, in ms. */
    readonly retryAfterMs: number | undefined,
  ) {
    super(message);
  }
}

const RETRY_STATUSES = new Set([408, 409, 429, 500, 502, 503, 504]);

interface ChatCompletion {
  choices?: { message?: { content?: string | null }; delta?: { content?: string | null }; finish_reason?: string | null }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number };
  error?: { message?: string } | string;
}

export class OpenAiGenerator implements Generator {
  readonly id: string;
  /** Tokens and time of the last `generate` (token counts as the server reported them). */
  lastStats: GenerationStats | undefined;

  private readonly url: string;
  private readonly baseUrl: string;
  private readonly apiKey: string | undefined;
  private readonly apiKeyEnv: string;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly log: (msg: string) => void;

  constructor(private readonly options: OpenAiGeneratorOptions) {
    if (!options.baseUrl) throw new Error('openai generator: answer.generator.baseUrl is required (e.g. http://127.0.0.1:11434/v1)');
    if (!options.model) throw new Error('openai generator: answer.generator.model is required (e.g. gpt-4o-mini, qwen2.5:0.5b)');
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.url = `${this.baseUrl}/chat/completions`;
    this.apiKeyEnv = options.apiKeyEnv ?? 'OPENAI_API_KEY';
    // An empty variable is treated as unset: sending `Bearer ` only earns a confusing 401.
    this.apiKey = options.apiKey || process.env[this.apiKeyEnv] || undefined;
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.retries = options.retries ?? 3;
    this.log = options.log ?? (() => {});
    this.id = `openai:${options.model}`;
  }

  async generate(question: string, context: Context): Promise<GeneratedAnswer> {
    const started = performance.now();
    const { text, usage } = await this.chat(chatMessages(question, context));
    this.lastStats = makeStats(usage?.prompt_tokens ?? null, usage?.completion_tokens ?? null, performance.now() - started);
    return toAnswer(text, context, this.id);
  }

  /** One chat completion with this generator's endpoint, retries and errors (the LLM judge uses it too). */
  async complete(messages: ChatMessage[]): Promise<string> {
    return (await this.chat(messages)).text;
  }

  private async chat(messages: ChatMessage[]): Promise<{ text: string; usage?: ChatCompletion['usage'] }> {
    const body = JSON.stringify({
      model: this.options.model,
      messages,
      temperature: this.options.temperature ?? 0,
      max_tokens: this.options.maxTokens ?? 512,
      stream: this.options.stream ?? false,
    });
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.attempt(body);
      } catch (err) {
        if (!(err instanceof Transient)) throw err;
        const wait = this.backoff(attempt, err.retryAfterMs);
        if (attempt >= this.retries) throw this.finalError(err, attempt + 1);
        if (wait === null)
          throw new OpenAiError(
            this.redact(`${err.message}; the server asks to wait ${Math.ceil(err.retryAfterMs! / 1000)} s, longer than the ${this.maxBackoffMs() / 1000} s allowed`),
            err.status,
          );
        this.log(this.redact(`openai: ${err.message}; retrying in ${(wait / 1000).toFixed(1)} s (attempt ${attempt + 2} of ${this.retries + 1})`));
        await new Promise((r) => setTimeout(r, wait));
      }
    }
  }

  private maxBackoffMs(): number {
    return this.options.maxBackoffMs ?? 30_000;
  }

  /** Milliseconds to wait before the next attempt; null when the server asks for longer than allowed. */
  private backoff(attempt: number, retryAfterMs: number | undefined): number | null {
    const max = this.maxBackoffMs();
    if (retryAfterMs !== undefined) return retryAfterMs <= max ? retryAfterMs : null;
    const base = (this.options.backoffMs ?? 500) * 2 ** attempt;
    // Jitter keeps parallel clients from retrying in lockstep.
    return Math.min(max, base * (0.75 + Math.random() * 0.5));
  }

  private finalError(err: Transient, attempts: number): OpenAiError {
    const tries = attempts > 1 ? ` (after ${attempts} attempts)` : '';
    if (err.status === undefined && /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH/.test(err.message))
      return new OpenAiError(this.redact(`cannot reach ${this.baseUrl}: is the server running? (${err.message})${tries}`));
    return new OpenAiError(this.redact(`${err.message}${tries}`), err.status);
  }

  /** One request; throws `Transient` for what a retry may fix, `OpenAiError` for what it will not. */
  private async attempt(body: string): Promise<{ text: string; usage?: ChatCompletion['usage'] }> {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: this.options.stream ? 'text/event-stream' : 'application/json' };
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    let res: Response;
    try {
      res = await fetch(this.url, { method: 'POST', headers, body, signal: AbortSignal.timeout(this.timeoutMs) });
      if (!res.ok) throw await this.httpError(res);
      return this.options.stream ? await this.readStream(res) : await this.readJson(res);
    } catch (err) {
      if (err instanceof Transient || err instanceof OpenAiError) throw err;
      const e = err as Error & { cause?: { code?: string; message?: string } };
      // A timeout is not retried: a server that was too slow once will likely be too slow again.
      if (e.name === 'TimeoutError' || e.name === 'AbortError')
        throw new OpenAiError(`no answer from ${this.url} within ${this.timeoutMs} ms; raise answer.generator.timeoutMs or use a smaller model`);
      const cause = e.cause?.code ?? e.cause?.message;
      throw new Transient(`POST ${this.url} failed: ${cause ?? e.message}`, undefined, undefined);
    }
  }

  private async httpError(res: Response): Promise<Error> {
    const detail = serverMessage(await res.text().catch(() => ''));
    const said = detail ? `: ${detail}` : '';
    const status = res.status;
    if (RETRY_STATUSES.has(status)) return new Transient(`${this.url} answered HTTP ${status}${said}`, status, retryAfter(res.headers));
    if (status === 401 || status === 403)
      return new OpenAiError(
        this.redact(
          this.apiKey
            ? `the endpoint rejected the API key in $${this.apiKeyEnv} (HTTP ${status}${said}); check the key, or set answer.generator.apiKeyEnv to the variable that holds the right one`
            : `the endpoint requires an API key (HTTP ${status}${said}); set $${this.apiKeyEnv}, or answer.generator.apiKeyEnv to the variable that holds it`,
        ),
        status,
      );
    if (status === 404)
      return new OpenAiError(
        this.redact(
          `${this.url} answered HTTP 404${said}: the model "${this.options.model}" was not found there, or the base URL lacks its API path (OpenAI-compatible servers usually end in /v1)`,
        ),
        status,
      );
    return new OpenAiError(this.redact(`${this.url} rejected the request with HTTP ${status}${said}`), status);
  }

  private async readJson(res: Response): Promise<{ text: string; usage?: ChatCompletion['usage'] }> {
    const raw = await res.text();
    let data: ChatCompletion;
    try {
      data = JSON.parse(raw) as ChatCompletion;
    } catch {
      throw new OpenAiError(`${this.url} did not answer with JSON (got ${JSON.stringify(raw.slice(0, 120))}); is it an OpenAI-compatible endpoint?`);
    }
    if (data.error) throw new OpenAiError(this.redact(`${this.url} reported an error: ${serverMessage(raw)}`));
    const content = data.choices?.[0]?.message?.content;
    if (typeof content !== 'string') throw new OpenAiError(`${this.url} answered without choices[0].message.content; is it an OpenAI-compatible chat endpoint?`);
    return { text: content, usage: data.usage };
  }

  /** Server-sent events: `data: {json}` lines, ended by `data: [DONE]` (or the end of the body). */
  private async readStream(res: Response): Promise<{ text: string; usage?: ChatCompletion['usage'] }> {
    if (!res.body) throw new OpenAiError(`${this.url} answered a streaming request without a body`);
    const decoder = new TextDecoder();
    let pending = '';
    let text = '';
    let usage: ChatCompletion['usage'];
    let done = false;
    const onLine = (line: string) => {
      if (!line.startsWith('data:')) return; // comments (`: ping`), `event:` and `id:` lines carry no text
      const payload = line.slice(5).trim();
      if (payload === '[DONE]') {
        done = true;
        return;
      }
      if (!payload) return;
      let event: ChatCompletion;
      try {
        event = JSON.parse(payload) as ChatCompletion;
      } catch {
        throw new OpenAiError(`${this.url} sent a stream event that is not JSON: ${JSON.stringify(payload.slice(0, 120))}`);
      }
      if (event.error) throw new OpenAiError(this.redact(`${this.url} reported an error mid-stream: ${serverMessage(payload)}`));
      if (event.usage) usage = event.usage;
      const delta = event.choices?.[0]?.delta?.content;
      if (delta) {
        text += delta;
        this.options.onToken?.(delta);
      }
    };
    for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
      pending += decoder.decode(chunk, { stream: true });
      const lines = pending.split(/\r?\n/);
      pending = lines.pop()!;
      for (const line of lines) {
        onLine(line);
        if (done) return { text, usage };
      }
    }
    onLine(pending + decoder.decode());
    return { text, usage };
  }

  /** Never let the key out, whatever a server puts in its error text. */
  private redact(text: string): string {
    return this.apiKey ? text.split(this.apiKey).join('***') : text;
  }
}

/** `retry-after` (seconds or an HTTP date) or `retry-after-ms`, in milliseconds. */
function retryAfter(headers: Headers): number | undefined {
  const ms = Number(headers.get('retry-after-ms'));
  if (headers.get('retry-after-ms') && Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** The `error.message` of an OpenAI-shaped error body, else the start of the body. */
function serverMessage(raw: string): string {
  try {
    const data = JSON.parse(raw) as { error?: { message?: string } | string; message?: string };
    const msg = typeof data.error === 'string' ? data.error : (data.error?.message ?? data.message);
    if (msg) return msg.slice(0, 300);
  } catch {
    // not JSON: fall through to the raw text
  }
  return raw.trim().slice(0, 300);
}
