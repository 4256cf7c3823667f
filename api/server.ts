import { createHash, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApolloServer, HeaderMap, type HTTPGraphQLRequest } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { unwrapResolverError } from '@apollo/server/errors';
import { asClient, Sessions } from '../pipeline/session.ts';
import { isLoopback } from './addresses.ts';
import { isClientError } from './graphql/errors.ts';
import { pricedByTokens, queryLimits } from './graphql/limits.ts';
import { knownOperationTypes } from './graphql/operations.ts';
import { LIMITS, questionTokens, type ApiContext } from './graphql/resolvers.ts';
import { citaSchema } from './graphql/schema.ts';
import { Jobs } from './jobs.ts';
import { listReports, reportFile } from './reports.ts';

/**
 * `cita serve`: the GraphQL API at /graphql (Apollo Server on Node's own http server) and the web page
 * at /. Binds 127.0.0.1 unless told otherwise; CORS is off unless origins are configured; mutations
 * need the API key, and queries too when `keyForQueries` is set.
 */

export interface ServeOptions {
  port?: number;
  host?: string;
  /** Project root (config/instances); default: found from the working directory. */
  root?: string;
  /** The API key; without one, mutations are refused. */
  apiKey?: string;
  /** Require the key for queries as well. */
  keyForQueries?: boolean;
  /** Origins allowed to call the API from a browser (exact matches, or `*`). */
  corsOrigins?: string[];
  /** How long shutdown waits for in-flight requests before cutting connections. */
  drainMs?: number;
  log?: (message: string) => void;
}

export interface RunningServer {
  url: string;
  port: number;
  /** Stops accepting, finishes in-flight requests, stops index jobs at a safe point, frees the models. */
  close(): Promise<void>;
}

const WEB = path.join(path.dirname(fileURLToPath(import.meta.url)), 'web');
const STATIC: Record<string, { file: string; type: string }> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  '/app.css': { file: 'app.css', type: 'text/css; charset=utf-8' },
};
const SECURITY_HEADERS = {
  'content-security-policy': "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};
/** A report is shown in a frame of the page: its inline styles, no script, nothing fetched. */
const REPORT_HEADERS = {
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'self'; sandbox",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};
const MAX_BODY = 64 * 1024;

const digest = (s: string) => createHash('sha256').update(s).digest();

function keyMatches(req: http.IncomingMessage, key: string | undefined): boolean {
  if (!key) return false;
  const auth = req.headers.authorization;
  const given = auth?.startsWith('Bearer ') ? auth.slice('Bearer '.length).trim() : req.headers['x-api-key'];
  return typeof given === 'string' && timingSafeEqual(digest(given), digest(key));
}

/**
 * Who a request comes from, for taking turns at the model: its remote address. Not the API key: there
 * is one, shared by everyone who holds it, so it tells no client from another. Behind a reverse proxy
 * every request has the proxy's address, and all its clients share one turn (forwarded headers are
 * not trusted: any client can write them).
 */
export function clientOf(req: http.IncomingMessage): string {
  const address = req.socket.remoteAddress ?? 'unknown';
  return address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
}

class BodyTooLarge extends Error {}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on('data', (d: Buffer) => {
      size += d.length;
      if (size > MAX_BODY) {
        reject(new BodyTooLarge(`request body over ${MAX_BODY} bytes`));
        req.resume();
      } else parts.push(d);
    });
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}

const errorBody = (code: string, message: string) => ({ errors: [{ message, extensions: { code } }] });

/** The listen backlog the server asks for (Node's default): the most connections the kernel queues for it. */
const LISTEN_BACKLOG = 511;

export async function startServer(o: ServeOptions = {}): Promise<RunningServer> {
  const log = o.log ?? ((m: string) => process.stderr.write(`${m}\n`));
  const sessions = new Sessions(o.root, log);
  const reportsDir = path.join(sessions.root, 'reports');
  const jobs = new Jobs(sessions, log);
  const cors = new Set(o.corsOrigins ?? []);
  // The price of a question's text, for the cost check: what the resolver refuses (over 2,000
  // characters or the window) costs a full window here, so its own error is the one the client sees.
  const tokens = async (instance: string, text: string): Promise<number> => {
    // No index, no model to load: the resolver's own error (no index yet) answers at once.
    if (!(await sessions.hasIndex(instance).catch(() => false))) return 0;
    const s = await sessions.load(instance).catch(() => undefined);
    const t = text.trim();
    if (!s || !t) return 0;
    return t.length > LIMITS.questionChars ? s.embedder.window : Math.min(questionTokens(s.embedder, t), s.embedder.window);
  };

  const apollo = new ApolloServer<ApiContext>({
    schema: await citaSchema(),
    validationRules: [knownOperationTypes, queryLimits()],
    includeStacktraceInErrorResponses: false,
    allowBatchedHttpRequests: false,
    // cita's drain owns shutdown (`close` below): Apollo's own SIGINT/SIGTERM handler stops Apollo and
    // re-sends the signal, which killed the process with requests in flight (off only under NODE_ENV=test).
    stopOnTerminationSignals: false,
    plugins: [ApolloServerPluginLandingPageDisabled(), pricedByTokens(tokens)],
    formatError: (formatted, error) => {
      const ext = formatted.extensions ?? {};
      const code = ext.limit ? 'BAD_USER_INPUT' : ext.code;
      if (isClientError(code)) {
        const { stacktrace: _s, http: _h, ...rest } = ext as Record<string, unknown>;
        return { ...formatted, extensions: { ...rest, code } };
      }
      const original = unwrapResolverError(error);
      log(`internal error: ${original instanceof Error ? (original.stack ?? original.message) : String(original)}`);
      return { message: 'internal server error', path: formatted.path, extensions: { code: 'INTERNAL_SERVER_ERROR' } };
    },
  });
  await apollo.start();

  /** Responses not yet sent in full: the requests in flight. */
  const open = new Set<http.ServerResponse>();
  let closing = false;
  // While draining, each response ends its connection (`Connection: close`: Node closes the socket once
  // it is sent), so a client stops sending requests on it.
  const lastOnConnection = (res: http.ServerResponse) => {
    if (!res.headersSent) res.setHeader('connection', 'close');
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (closing) lastOnConnection(res);
    const origin = req.headers.origin;
    if (origin && (cors.has(origin) || cors.has('*'))) {
      res.setHeader('access-control-allow-origin', cors.has('*') ? '*' : origin);
      res.setHeader('vary', 'Origin');
      res.setHeader('access-control-allow-headers', 'content-type, authorization, x-api-key, apollo-require-preflight');
      res.setHeader('access-control-allow-methods', 'GET, POST, OPTIONS');
    }
    if (req.method === 'OPTIONS') {
      res.writeHead(204).end();
      return;
    }
    const page = STATIC[url.pathname];
    if (page && (req.method === 'GET' || req.method === 'HEAD')) {
      res.writeHead(200, { 'content-type': page.type, 'cache-control': 'no-cache', ...SECURITY_HEADERS });
      res.end(req.method === 'HEAD' ? undefined : fs.readFileSync(path.join(WEB, page.file)));
      return;
    }
    // The evaluation reports, read-only: the list with verdicts, and each file (behind the key when queries are).
    const isReports = url.pathname === '/api/reports' || url.pathname.startsWith('/reports/');
    if (isReports && (req.method === 'GET' || req.method === 'HEAD')) {
      if (o.keyForQueries && !keyMatches(req, o.apiKey)) {
        sendJson(res, 401, errorBody('UNAUTHENTICATED', 'this server needs the API key (Authorization: Bearer <key>)'));
        return;
      }
      if (url.pathname === '/api/reports') {
        sendJson(res, 200, { reports: listReports(reportsDir) });
        return;
      }
      const found = reportFile(reportsDir, url.pathname.slice('/reports/'.length));
      if (!found) {
        sendJson(res, 404, errorBody('NOT_FOUND', `no such report: ${url.pathname} (the list is at /api/reports)`));
        return;
      }
      res.writeHead(200, { 'content-type': found.type, 'cache-control': 'no-cache', ...REPORT_HEADERS });
      res.end(req.method === 'HEAD' ? undefined : fs.readFileSync(found.file));
      return;
    }
    if (url.pathname === '/healthz') {
      sendJson(res, closing ? 503 : 200, { ok: !closing });
      return;
    }
    if (url.pathname !== '/graphql') {
      sendJson(res, 404, errorBody('NOT_FOUND', `no such page: ${url.pathname} (the API is at /graphql)`));
      return;
    }
    const authenticated = keyMatches(req, o.apiKey);
    if (o.keyForQueries && !authenticated) {
      sendJson(res, 401, errorBody('UNAUTHENTICATED', 'this server needs the API key (Authorization: Bearer <key>)'));
      return;
    }
    let body: unknown;
    if (req.method === 'POST') {
      const raw = await readBody(req);
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        sendJson(res, 400, errorBody('BAD_REQUEST', 'the request body is not valid JSON'));
        return;
      }
    }
    const headers = new HeaderMap();
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
    const request: HTTPGraphQLRequest = { method: (req.method ?? 'GET').toUpperCase(), headers, search: url.search, body };
    const response = await asClient(clientOf(req), () =>
      apollo.executeHTTPGraphQLRequest({
        httpGraphQLRequest: request,
        context: async () => ({ sessions, jobs, authenticated, keyConfigured: Boolean(o.apiKey) }),
      }),
    );
    for (const [k, v] of response.headers) res.setHeader(k, v);
    res.statusCode = response.status ?? 200;
    if (response.body.kind === 'complete') {
      res.end(response.body.string);
    } else {
      for await (const chunk of response.body.asyncIterator) res.write(chunk);
      res.end();
    }
  };

  const server = http.createServer((req, res) => {
    open.add(res);
    res.on('close', () => open.delete(res));
    handle(req, res).catch((err: unknown) => {
      if (err instanceof BodyTooLarge) {
        if (!res.headersSent) sendJson(res, 413, errorBody('BAD_REQUEST', err.message));
        return;
      }
      log(`internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      if (!res.headersSent) sendJson(res, 500, errorBody('INTERNAL_SERVER_ERROR', 'internal server error'));
      else res.end();
    });
  });
  server.requestTimeout = 120_000;
  server.headersTimeout = 30_000;
  /** Connections accepted so far: the drain reads the listen backlog until a turn of the event loop accepts none. */
  let accepted = 0;
  server.on('connection', () => accepted++);

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 4000, o.host ?? '127.0.0.1', LISTEN_BACKLOG, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  if (!o.keyForQueries && !isLoopback(address.address)) {
    log(
      `cita: warning: listening on ${host}, which other machines can reach, and queries need no API key: anyone who can connect ` +
        'can ask questions and read the indexed sources. Pass --require-key (with CITA_API_KEY), or bind 127.0.0.1.',
    );
  }

  let closed: Promise<void> | undefined;
  const close = () =>
    (closed ??= (async () => {
      closing = true;
      for (const res of open) lastOnConnection(res);
      const deadline = Date.now() + (o.drainMs ?? 30_000);
      // Turns of the event loop (it polls the sockets in between) until one accepts nothing: connections the
      // kernel has already completed are accepted, and bytes that had arrived on a connection are read and
      // parsed, so a request on its way counts as in flight, not idle — and is not reset with the listener.
      // Node 20's libuv (1.46) accepts one queued connection per iteration of the loop (measured 2026-12-05: 10
      // connections queued while the loop was busy were accepted over 10 iterations), so a single turn left
      // most of a burst in the backlog, reset with the listener: 16 of 20 asks sent before the signal.
      const turn = () => new Promise((r) => setImmediate(r)).then(() => new Promise((r) => setImmediate(r)));
      // At most as many turns as the backlog holds (Node's default, 511): what was queued at the signal is then
      // read, and a steady stream of new connections cannot hold the listener open for the whole drain.
      let before: number;
      let turns = 0;
      do {
        before = accepted;
        await turn();
      } while (accepted > before && ++turns < LISTEN_BACKLOG && Date.now() < deadline);
      // Stop accepting, and nothing more: http.Server#close also destroys the idle kept-alive
      // connections at once (Node >= 19), and "idle" includes one whose client has already sent a
      // request the server has not read yet (the event loop was busy): that client saw ECONNRESET.
      // Open connections stay open for the drain; their requests are answered (with Connection: close).
      const stopped = new Promise<void>((resolve) => net.Server.prototype.close.call(server, () => resolve()));
      let allClosed = false;
      void stopped.then(() => (allClosed = true));
      while (!allClosed && Date.now() < deadline) {
        // Idle connections are closed only once nothing is in flight: what is left is the race that no
        // server can close (a request sent in the instant the connection is closed).
        if (open.size === 0) await turn();
        if (open.size === 0) server.closeIdleConnections();
        await Promise.race([stopped, new Promise((r) => setTimeout(r, 50))]);
      }
      // The deadline: cut what is left.
      server.closeAllConnections();
      await stopped;
      await jobs.stop();
      await apollo.stop();
      await sessions.close();
    })());

  return { url: `http://${host}:${address.port}`, port: address.port, close };
}
