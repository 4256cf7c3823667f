import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { expect } from 'vitest';
import { cita, citaAsync, makeProject, type TestProject } from './cli.ts';
import { GUIDE, ISSUES, LOADER } from './demoRepo.ts';
import { modelDir } from './paths.ts';

/** A small indexed project (docs, code, one issue) and a running `cita serve` over it. */

/** `demo` (indexed, real model) and `empty` (configured, never indexed). */
export function makeServedProject(): TestProject {
  const p = makeProject();
  p.write('docs/guide.md', GUIDE);
  p.write('src/loader.py', LOADER);
  fs.writeFileSync(path.join(p.dir, 'issues.json'), JSON.stringify(ISSUES));
  const model = `embedding:\n  dir: ${path.dirname(modelDir)}\n`;
  p.setInstance(
    ['name: demo', 'repository:', '  path: repo', '  github: acme/widgets', '  ref: v1.0', 'sources:', '  issues:', '    kind: file', '    file: issues.json', model].join('\n'),
  );
  p.setInstance(['name: empty', 'repository:', '  path: repo', model].join('\n'), 'empty');
  const r = cita(p, ['index', 'demo']);
  expect(r.stderr.includes('Error')).toBe(false);
  expect(r.code).toBe(0);
  return p;
}

export interface Served {
  url: string;
  child: ChildProcess;
  stderr: () => string;
  /** SIGTERM, then the exit code (once all its output is read). */
  stop(): Promise<number | null>;
}

/** Starts `cita serve --port 0 …` and waits for the address it prints. */
export async function serve(p: TestProject, args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<Served> {
  const child = citaAsync(p, ['serve', '--port', '0', ...args], env);
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += String(d)));
  // 'close', not 'exit': by then stdout and stderr are read to the end (a test may check what was said).
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`cita serve did not start: ${stderr}`)), 60_000);
    child.stdout.on('data', (d) => {
      stdout += String(d);
      const m = /serving on (http:\/\/[^\s]+)/.exec(stdout);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    void exited.then((code) => reject(new Error(`cita serve exited with ${code}: ${stderr}`)));
  });
  return {
    url,
    child,
    stderr: () => stderr,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

export interface GqlResponse {
  status: number;
  headers: Headers;
  body: any;
}

export async function gql(url: string, query: string, variables: Record<string, unknown> = {}, headers: Record<string, string> = {}): Promise<GqlResponse> {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query, variables }),
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

/**
 * `gql` from a chosen local address: the server tells clients apart by address, and every 127.x.y.z
 * is this machine (Linux routes all of 127.0.0.0/8 to loopback), so two addresses are two clients.
 */
export function gqlFrom(localAddress: string, url: string, query: string, variables: Record<string, unknown> = {}): Promise<GqlResponse> {
  return gqlSent(url, query, variables, localAddress).response;
}

/**
 * `gql` on a connection of its own, with the moment the request is sent: `sent` resolves once the
 * whole request is written to the socket (so it is connected), and `response` is the answer. A test
 * that stops the server "with requests in flight" must know they left, and fetch does not say.
 */
export function gqlSent(url: string, query: string, variables: Record<string, unknown> = {}, localAddress?: string): { sent: Promise<void>; response: Promise<GqlResponse> } {
  const body = JSON.stringify({ query, variables });
  let sent!: Promise<void>;
  const response = new Promise<GqlResponse>((resolve, reject) => {
    const req = http.request(`${url}/graphql`, { method: 'POST', localAddress, agent: false, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => {
        const headers = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') headers.set(k, v);
        try {
          resolve({ status: res.statusCode ?? 0, headers, body: JSON.parse(text) });
        } catch (err) {
          reject(err);
        }
      });
    });
    sent = new Promise<void>((resolveSent, rejectSent) => {
      req.on('finish', () => resolveSent());
      req.on('error', rejectSent);
    });
    // A caller that only wants the response (gqlFrom) hears of a failure there, not as an unhandled rejection.
    sent.catch(() => undefined);
    req.on('error', reject);
    req.end(body);
  });
  return { sent, response };
}

export const ASK = `query Ask($instance: String!, $question: String!, $options: AskOptionsInput) {
  ask(instance: $instance, question: $question, options: $options) {
    question language
    answer { text language generator noAnswer unsupported invalid { marker problem } glossedBy glosses { marker quote text }
      citations { marker collection path startLine endLine headings symbol issue commentId url snippet verified } }
    route { top language reasons translation weights { collection weight } issueLookups symbolLookups }
    fusionMethod
    slots { collection slots fit query }
    blocks { marker title text cut citation { collection path startLine endLine url issue } scores { bm25 dense fused via } }
    timings { step ms }
  }
}`;
