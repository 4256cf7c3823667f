import { GraphQLError } from 'graphql';
import { ConfigError } from '../../pipeline/config/load.ts';
import { IndexNotReadyError } from '../../pipeline/instance.ts';
import { IndexNeedsRebuildError, InstanceNotFoundError } from '../../pipeline/session.ts';
import { IndexBusyError } from '../../pipeline/index/indexLock.ts';
import { JobAlreadyRunningError } from '../jobs.ts';
import { ModelProcessError } from '../../pipeline/modelProcess.ts';

/**
 * Errors clients can act on carry a code; anything else reaches the client as INTERNAL_SERVER_ERROR
 * with a generic message (the server logs the detail). No stack traces leave the server, and no
 * server-side detail (file paths, config values) reaches a caller without the API key.
 */

export const CODES = ['BAD_USER_INPUT', 'NOT_FOUND', 'INDEX_NOT_READY', 'INDEX_DAMAGED', 'MODEL_UNAVAILABLE', 'UNAUTHENTICATED', 'CONFLICT'] as const;
export type ErrorCode = (typeof CODES)[number];

/**
 * INDEX_DAMAGED is 503: the server cannot answer for that instance until its operator rebuilds the index.
 * MODEL_UNAVAILABLE is 503 too, but passing: the model's process stopped during the request, and the
 * next request starts a new one (a retry works).
 */
const STATUS: Record<ErrorCode, number> = { BAD_USER_INPUT: 400, NOT_FOUND: 404, INDEX_NOT_READY: 409, INDEX_DAMAGED: 503, MODEL_UNAVAILABLE: 503, UNAUTHENTICATED: 401, CONFLICT: 409 };

/** Who is asking: details of server-side failures are for callers with the API key. */
export interface Caller {
  authenticated: boolean;
}

const CONFIG_DETAILS_HIDDEN =
  'the config of this instance is invalid; the file, line and value are shown to callers with the API key, and by any cita command for this instance on the server';

export function apiError(code: ErrorCode, message: string, extra: Record<string, unknown> = {}): GraphQLError {
  return new GraphQLError(message, { extensions: { code, ...extra, http: { status: STATUS[code] } } });
}

/** Pipeline failures with a meaning for clients, as coded errors; others are rethrown (and masked). */
export function toApiError(err: unknown, caller: Caller): unknown {
  if (err instanceof GraphQLError) return err;
  if (err instanceof InstanceNotFoundError) return apiError('NOT_FOUND', err.message);
  if (err instanceof IndexNotReadyError) return apiError('INDEX_NOT_READY', err.message);
  if (err instanceof IndexNeedsRebuildError) return apiError('INDEX_DAMAGED', err.message);
  if (err instanceof ModelProcessError) return apiError('MODEL_UNAVAILABLE', `${err.message}: try again`);
  if (err instanceof JobAlreadyRunningError) return apiError('CONFLICT', err.message, { jobId: err.job.id });
  // Another process (a `cita index`) is writing the index.
  if (err instanceof IndexBusyError) return apiError('CONFLICT', err.message);
  // A config error names the file by its absolute path and quotes values: for key holders only.
  if (err instanceof ConfigError) return apiError('INDEX_NOT_READY', caller.authenticated ? `the config of this instance is invalid: ${err.message}` : CONFIG_DETAILS_HIDDEN);
  return err;
}

export async function coded<T>(caller: Caller, fn: () => Promise<T> | T): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw toApiError(err, caller);
  }
}

/** Codes Apollo and graphql-js set themselves for bad requests: safe to pass through. */
const PASS_THROUGH = new Set<string>([...CODES, 'GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED', 'BAD_REQUEST', 'OPERATION_RESOLUTION_FAILURE', 'PERSISTED_QUERY_NOT_FOUND', 'PERSISTED_QUERY_NOT_SUPPORTED']);

export function isClientError(code: unknown): boolean {
  return typeof code === 'string' && PASS_THROUGH.has(code);
}
