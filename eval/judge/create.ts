import type { CitaConfig } from '../../pipeline/config/schema.ts';
import type { Embedder } from '../../pipeline/types.ts';
import { CrossLingualJudge } from './crosslingual.ts';
import type { Judge } from './types.ts';

/**
 * The judge named in `eval.judge`; LLM judges use the generators' own providers. Null for `none`.
 * `embedder`: the instance's embedding model (the offline judge compares sentences with it); pass the
 * model itself, not a query-memoized view, so judging does not fill the run's query cache.
 */
export async function createJudge(config: CitaConfig['eval']['judge'], deps: { modelsDir: string; log: (m: string) => void; embedder?: Embedder }): Promise<Judge | null> {
  switch (config.kind) {
    case 'none':
      return null;
    case 'offline':
      if (!deps.embedder) throw new Error('eval.judge: kind "offline" compares sentences with the embedding model; none was given');
      return new CrossLingualJudge(deps.embedder);
    case 'openai': {
      if (!config.baseUrl || !config.model) throw new Error('eval.judge: kind "openai" needs baseUrl and model');
      const { OpenAiGenerator } = await import('../../pipeline/answer/generators/openai.ts');
      const { LlmJudge, RecordingCompleter } = await import('./llm.ts');
      const gen = new OpenAiGenerator({ baseUrl: config.baseUrl, model: config.model, apiKeyEnv: config.apiKeyEnv, timeoutMs: config.timeoutMs, maxTokens: 256, temperature: 0, log: deps.log });
      return new LlmJudge(new RecordingCompleter({ id: gen.id, complete: (m) => gen.complete(m) }));
    }
    case 'local': {
      const { createLocalGenerator } = await import('../../pipeline/answer/generators/local.ts');
      const { LlmJudge, RecordingCompleter } = await import('./llm.ts');
      const gen = await createLocalGenerator({ model: config.model, modelsDir: deps.modelsDir, maxTokens: 256, temperature: 0, log: deps.log });
      return new LlmJudge(
        new RecordingCompleter({
          id: gen.id,
          complete: (m) => gen.complete({ system: m.find((x) => x.role === 'system')?.content ?? '', user: m.filter((x) => x.role === 'user').map((x) => x.content).join('\n\n') }),
          close: () => gen.close(),
        }),
      );
    }
  }
}
