import { Client } from '@elastic/elasticsearch';
import { describe, it } from 'vitest';

/** The local node of `npm run es:start`, or CITA_ES_URL. */
export const esUrl = process.env.CITA_ES_URL ?? 'http://127.0.0.1:9200';

export function esClient(): Client {
  return new Client({ node: esUrl, requestTimeout: 60_000, maxRetries: 1 });
}

/** Null when a node answers with a yellow or green cluster; else why not. */
export async function probeNode(client: Client): Promise<string | null> {
  try {
    const health = await client.cluster.health({ wait_for_status: 'yellow', timeout: '10s' });
    return health.timed_out ? `cluster at ${esUrl} is not yellow (${health.status})` : null;
  } catch (err) {
    return `no Elasticsearch node answers at ${esUrl}: ${(err as Error).message}`;
  }
}

/** Without a node: in CI (CI=true) one failing test with the reason; locally a skipped suite and a warning. */
export function reportMissingNode(suite: string, file: string, reason: string): void {
  if (process.env.CI === 'true' || process.env.CI === '1') {
    describe(suite, () => {
      it('needs a running Elasticsearch node (start it with `npm run es:start`)', () => {
        throw new Error(`${reason}. CI must start the local node first: npm run es:start`);
      });
    });
  } else {
    console.warn(`[${file}] skipped: ${reason}. Start one with \`npm run es:start\`.`);
    describe.skip(`${suite} (no node)`, () => {
      it('needs a running Elasticsearch node', () => undefined);
    });
  }
}
