import { createRequire } from 'node:module';
import path from 'node:path';
import { Language, Parser } from 'web-tree-sitter';

/**
 * Tree-sitter parsers for the code formats we chunk by symbol. The runtime and each grammar are
 * loaded on first use and cached: a run that indexes only Python never loads the Rust grammar.
 */

export const CODE_FORMATS = ['python', 'javascript', 'typescript', 'tsx', 'go', 'rust', 'java'] as const;
export type CodeFormat = (typeof CODE_FORMATS)[number];

/** Our `Document.format` names → grammar files shipped by tree-sitter-wasms (in its `out/`). */
const GRAMMAR_FILES: Record<CodeFormat, string> = {
  python: 'tree-sitter-python.wasm',
  javascript: 'tree-sitter-javascript.wasm',
  typescript: 'tree-sitter-typescript.wasm',
  tsx: 'tree-sitter-tsx.wasm',
  go: 'tree-sitter-go.wasm',
  rust: 'tree-sitter-rust.wasm',
  java: 'tree-sitter-java.wasm',
};

export function isCodeFormat(format: string): format is CodeFormat {
  return (CODE_FORMATS as readonly string[]).includes(format);
}

/** Absolute path of the grammar file for a format. */
export function grammarPath(format: CodeFormat): string {
  const pkg = createRequire(import.meta.url).resolve('tree-sitter-wasms/package.json');
  return path.join(path.dirname(pkg), 'out', GRAMMAR_FILES[format]);
}

let runtime: Promise<void> | undefined;
const parsers = new Map<CodeFormat, Promise<Parser>>();

/** Starts the tree-sitter wasm runtime once per process. */
function initRuntime(): Promise<void> {
  runtime ??= Parser.init().catch((err: unknown) => {
    throw new Error(`web-tree-sitter: the runtime failed to start: ${message(err)}`, { cause: err });
  });
  return runtime;
}

async function loadParser(format: CodeFormat): Promise<Parser> {
  await initRuntime();
  const file = grammarPath(format);
  let language: Language;
  try {
    language = await Language.load(file);
  } catch (err) {
    throw new Error(
      `tree-sitter grammar for '${format}' failed to load from ${file}: ${message(err)} ` +
        '(a grammar built for an incompatible tree-sitter ABI, or a missing tree-sitter-wasms install)',
      { cause: err },
    );
  }
  const parser = new Parser();
  parser.setLanguage(language);
  return parser;
}

/**
 * The parser for a format, loaded once. A grammar that fails to load rejects every time with the
 * same error (we do not retry a broken file on every document).
 */
export function parserFor(format: CodeFormat): Promise<Parser> {
  let p = parsers.get(format);
  if (!p) {
    p = loadParser(format);
    parsers.set(format, p);
  }
  return p;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
