import type { Node } from 'web-tree-sitter';
import type { CodeFormat } from './parsers.ts';

/**
 * Which tree-sitter nodes are symbols (functions, classes, methods, types…) in each language, and
 * what they are called. The chunker knows nothing about grammars; everything it asks lives here.
 */

/** A definition the chunker can make a chunk of. */
export interface SymbolNode {
  /** The whole definition as it sits in its parent: decorators and `export` included. */
  node: Node;
  /** The definition proper; its signature starts on this node's first line. */
  definition: Node;
  /** Bare name (`evaluate`). */
  name: string;
  /** The type a symbol belongs to when the syntax names it outside any container (Go receivers). */
  owner?: string;
  /** Statements (functions) or members (containers); null when the symbol has no body. */
  body: Node | null;
  /** Members are symbols themselves (classes, impl blocks, namespaces), so it can be split per member. */
  container: boolean;
}

export interface LanguageSyntax {
  /** Line-comment marker, used for the context header at the top of every chunk. */
  comment: string;
  /** The symbol `node` defines, if any (unwrapping decorators and exports). */
  symbolAt(node: Node): SymbolNode | null;
  /** Names a module-level statement defines without being a symbol (constants, variables, conditional defs). */
  moduleNames(node: Node): string[];
  /** Nodes that belong to the definition right below them (doc comments, Rust attributes). */
  isLeading(node: Node): boolean;
}

/**
 * Nodes that only group statements or members. They add nothing to how deep a line break is:
 * a break between two statements of a function body counts as a break inside the function only.
 */
export const GROUPING_TYPES: ReadonlySet<string> = new Set([
  'module',
  'program',
  'source_file',
  'block',
  'statement_block',
  'statement_list',
  'class_body',
  'interface_body',
  'enum_body',
  'enum_body_declarations',
  'object_type',
  'declaration_list',
  'field_declaration_list',
  'enum_variant_list',
  'constructor_body',
]);

/** Literals and comments: breaking inside one (a docstring, a template) is a last resort. */
export function isLiteralType(type: string): boolean {
  return /string|comment|template|heredoc/.test(type);
}

/** Marker for header lines in files we only window by lines. */
export function commentMarker(format: string): string {
  return /^(javascript|typescript|tsx|go|rust|java|c|cpp|c_sharp|csharp|kotlin|scala|swift|dart|php)$/.test(format)
    ? '//'
    : '#';
}

/** Members of a container, in order (Java enums keep their methods one level down). */
export function membersOf(sym: SymbolNode): Node[] {
  if (!sym.body) return [];
  const out: Node[] = [];
  for (const child of sym.body.children) {
    if (!child) continue;
    if (child.type === 'enum_body_declarations') out.push(...child.children.filter((c): c is Node => c !== null));
    else out.push(child);
  }
  return out;
}

/** The first line of the first statement or member inside a symbol's body, skipping grouping wrappers. */
export function firstBodyLine(sym: SymbolNode): number | null {
  let node: Node | null = sym.body;
  for (let depth = 0; node && depth < 3; depth++) {
    const first: Node | undefined = node.namedChildren.find((c): c is Node => c !== null && !/comment/.test(c.type));
    if (!first) return null;
    if (!GROUPING_TYPES.has(first.type)) return first.startPosition.row;
    node = first;
  }
  return null;
}

function nameOf(node: Node, field = 'name'): string | null {
  return node.childForFieldName(field)?.text ?? null;
}

/** `*pkg.Stack[T]` → `Stack`: the bare type name a method belongs to. */
function bareTypeName(text: string): string {
  const noGenerics = text.replace(/[<[].*$/s, '');
  const parts = noGenerics.replace(/^[*&\s]+|mut\s+/g, '').split(/::|\./);
  return (parts[parts.length - 1] ?? noGenerics).trim();
}

function isComment(node: Node): boolean {
  return /comment/.test(node.type);
}

type Rule = (node: Node) => SymbolNode | null;

/** A named definition whose body is the `body` field. */
function simple(container: boolean): Rule {
  return (node) => {
    const name = nameOf(node);
    return name ? { node, definition: node, name, body: node.childForFieldName('body'), container } : null;
  };
}

/** Re-anchors a wrapped definition (decorators, `export`) on its wrapper, so the wrapper's lines come along. */
function wrapped(field: string, rules: () => Record<string, Rule>): Rule {
  return (node) => {
    const inner = node.childForFieldName(field);
    const rule = inner ? rules()[inner.type] : undefined;
    const sym = inner && rule ? rule(inner) : null;
    return sym ? { ...sym, node } : null;
  };
}

function symbolFinder(rules: Record<string, Rule>): (node: Node) => SymbolNode | null {
  return (node) => rules[node.type]?.(node) ?? null;
}

// ---------------------------------------------------------------- Python

const pythonRules: Record<string, Rule> = {
  function_definition: simple(false),
  class_definition: simple(true),
  decorated_definition: wrapped('definition', () => pythonRules),
};

const PYTHON_COMPOUND = new Set([
  'if_statement',
  'elif_clause',
  'else_clause',
  'try_statement',
  'except_clause',
  'finally_clause',
  'with_statement',
  'block',
]);

function pythonModuleNames(node: Node): string[] {
  const sym = symbolFinder(pythonRules)(node);
  if (sym) return [sym.name];
  if (node.type === 'expression_statement') {
    const assignment = node.namedChild(0);
    const left = assignment?.type === 'assignment' ? assignment.childForFieldName('left') : null;
    return left?.type === 'identifier' ? [left.text] : [];
  }
  // Definitions under `if TYPE_CHECKING:` or `try: … except ImportError:` are still module names.
  if (PYTHON_COMPOUND.has(node.type)) {
    return node.namedChildren.flatMap((c) => (c ? pythonModuleNames(c) : []));
  }
  return [];
}

const python: LanguageSyntax = {
  comment: '#',
  symbolAt: symbolFinder(pythonRules),
  moduleNames: pythonModuleNames,
  isLeading: isComment,
};

// ---------------------------------------------------------------- JavaScript / TypeScript

const FUNCTION_VALUES = new Set(['arrow_function', 'function_expression', 'function', 'generator_function']);

/** `const f = () => …`: a function in all but syntax. Only single-declarator statements qualify. */
const functionVariable: Rule = (node) => {
  const declarators = node.namedChildren.filter((c): c is Node => c?.type === 'variable_declarator');
  const only = declarators.length === 1 ? declarators[0] : undefined;
  const value = only?.childForFieldName('value');
  const name = only?.childForFieldName('name');
  if (!only || !value || !name || name.type !== 'identifier' || !FUNCTION_VALUES.has(value.type)) return null;
  return { node, definition: node, name: name.text, body: value.childForFieldName('body'), container: false };
};

/** Class fields holding arrow functions are methods to a reader (`handle = () => {…}`). */
const functionField: Rule = (node) => {
  const value = node.childForFieldName('value');
  const name = nameOf(node) ?? nameOf(node, 'property');
  if (!value || !name || !FUNCTION_VALUES.has(value.type)) return null;
  return { node, definition: node, name, body: value.childForFieldName('body'), container: false };
};

const scriptRules: Record<string, Rule> = {
  function_declaration: simple(false),
  generator_function_declaration: simple(false),
  function_signature: simple(false),
  class_declaration: simple(true),
  abstract_class_declaration: simple(true),
  method_definition: simple(false),
  method_signature: simple(false),
  abstract_method_signature: simple(false),
  public_field_definition: functionField,
  field_definition: functionField,
  interface_declaration: simple(false),
  enum_declaration: simple(false),
  type_alias_declaration: simple(false),
  internal_module: simple(true),
  module: simple(true),
  lexical_declaration: functionVariable,
  variable_declaration: functionVariable,
  export_statement: wrapped('declaration', () => scriptRules),
  // `namespace NS {}` parses as an expression statement around the module.
  expression_statement: (node) => {
    const inner = node.namedChild(0);
    const sym = inner && (inner.type === 'internal_module' || inner.type === 'module') ? simple(true)(inner) : null;
    return sym ? { ...sym, node } : null;
  },
};

function scriptModuleNames(node: Node): string[] {
  const sym = symbolFinder(scriptRules)(node);
  if (sym) return [sym.name];
  if (node.type === 'export_statement') {
    const inner = node.childForFieldName('declaration');
    return inner ? scriptModuleNames(inner) : [];
  }
  if (node.type === 'lexical_declaration' || node.type === 'variable_declaration') {
    return node.namedChildren
      .filter((c): c is Node => c?.type === 'variable_declarator')
      .map((d) => d.childForFieldName('name'))
      .filter((n): n is Node => n?.type === 'identifier')
      .map((n) => n.text);
  }
  return [];
}

const script: LanguageSyntax = {
  comment: '//',
  symbolAt: symbolFinder(scriptRules),
  moduleNames: scriptModuleNames,
  isLeading: isComment,
};

// ---------------------------------------------------------------- Go

const goRules: Record<string, Rule> = {
  function_declaration: simple(false),
  method_declaration: (node) => {
    const sym = simple(false)(node);
    const receiver = node.childForFieldName('receiver')?.namedChildren.find((c) => c?.type === 'parameter_declaration');
    const type = receiver?.childForFieldName('type');
    return sym && type ? { ...sym, owner: bareTypeName(type.text) } : sym;
  },
  // Only `type X …`; a grouped `type ( A …; B … )` is module-level code whose names are listed.
  type_declaration: (node) => {
    const specs = node.namedChildren.filter((c): c is Node => c !== null && /^type_(spec|alias)$/.test(c.type));
    const spec = specs.length === 1 ? specs[0] : undefined;
    const name = spec ? nameOf(spec) : null;
    if (!spec || !name) return null;
    return { node, definition: node, name, body: spec.childForFieldName('type'), container: false };
  },
};

function goModuleNames(node: Node): string[] {
  const sym = goRules[node.type]?.(node);
  if (sym) return [sym.name];
  if (/^(const|var|type)_declaration$/.test(node.type)) {
    return node.namedChildren
      .filter((c): c is Node => c !== null && /_spec$|^type_alias$/.test(c.type))
      .flatMap((spec) => spec.childrenForFieldName('name'))
      .filter((n): n is Node => n !== null)
      .map((n) => n.text);
  }
  return [];
}

const go: LanguageSyntax = {
  comment: '//',
  symbolAt: symbolFinder(goRules),
  moduleNames: goModuleNames,
  isLeading: isComment,
};

// ---------------------------------------------------------------- Rust

const rustRules: Record<string, Rule> = {
  function_item: simple(false),
  function_signature_item: simple(false),
  struct_item: simple(false),
  enum_item: simple(false),
  union_item: simple(false),
  type_item: simple(false),
  macro_definition: simple(false),
  trait_item: simple(true),
  mod_item: simple(true),
  // `impl<T> Display for Point<T>` is named after its type, so its methods are `Point.fmt`.
  impl_item: (node) => {
    const type = node.childForFieldName('type');
    if (!type) return null;
    return { node, definition: node, name: bareTypeName(type.text), body: node.childForFieldName('body'), container: true };
  },
};

const rust: LanguageSyntax = {
  comment: '//',
  symbolAt: symbolFinder(rustRules),
  moduleNames: (node) => {
    const sym = rustRules[node.type]?.(node);
    if (sym) return [sym.name];
    const name = node.type === 'const_item' || node.type === 'static_item' ? nameOf(node) : null;
    return name ? [name] : [];
  },
  isLeading: (node) => isComment(node) || node.type === 'attribute_item',
};

// ---------------------------------------------------------------- Java

const javaRules: Record<string, Rule> = {
  class_declaration: simple(true),
  interface_declaration: simple(true),
  enum_declaration: simple(true),
  record_declaration: simple(true),
  annotation_type_declaration: simple(true),
  method_declaration: simple(false),
  constructor_declaration: simple(false),
  compact_constructor_declaration: simple(false),
};

const java: LanguageSyntax = {
  comment: '//',
  symbolAt: symbolFinder(javaRules),
  moduleNames: (node) => {
    const sym = javaRules[node.type]?.(node);
    return sym ? [sym.name] : [];
  },
  isLeading: isComment,
};

const SYNTAX: Record<CodeFormat, LanguageSyntax> = {
  python,
  javascript: script,
  typescript: script,
  tsx: script,
  go,
  rust,
  java,
};

export function syntaxFor(format: CodeFormat): LanguageSyntax {
  return SYNTAX[format];
}
