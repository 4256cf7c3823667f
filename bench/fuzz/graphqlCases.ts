/**
 * Random and mutated GraphQL requests for `bench/fuzz.ts`, drawn with fast-check from the server's
 * own schema (read by introspection): valid-looking documents with random arguments, the same
 * documents mutated at the character and token level, known attack shapes (deep nesting, alias and
 * fragment floods, huge strings, directive spam) and malformed HTTP (wrong method, content type,
 * broken JSON, batches).
 */
import fc from 'fast-check';
import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLObjectType,
  type GraphQLSchema,
} from 'graphql';

export interface HttpCase {
  kind: string;
  method: 'GET' | 'POST';
  /** Appended to /graphql (GET carries the query here). */
  search?: string;
  contentType?: string;
  body?: string;
}

type Gen = fc.GeneratorValue;

const NASTY_STRINGS = ['', ' ', 'demo', 'pytest', '../demo', '../../etc/passwd', 'demo\u0000', '¿Cómo omito un test en Windows?', 'How do I skip a test?', 'where is the bug from #42', '#42', '\u202e\ud83d\ude00', '%s%n', '<script>alert(1)</script>', 'javascript:alert(1)', "'; DROP TABLE chunks; --", 'NEAR(a b) OR "x" AND *', 'a'.repeat(3000)];
const VOCAB = ['{', '}', '(', ')', '[', ']', ':', '!', '$', '...', '@', '=', ',', 'query', 'mutation', 'subscription', 'fragment', 'on', 'Query', '__typename', '__schema', '__type', 'ask', 'search', 'instances', '@include(if: true)', '@skip(if: false)', '@deprecated', 'null', 'true', '"x"', '"""block"""', '1e309', '-0', '9999999999999999999', '$v', '#comment\n', '\\u0000'];

function stringValue(g: Gen): string {
  return g(() => fc.oneof(fc.constantFrom(...NASTY_STRINGS), fc.string({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 40 })));
}

/** A GraphQL literal for an input type: mostly well-typed, sometimes not. */
function inputLiteral(g: Gen, type: GraphQLInputType, depth: number): string {
  if (g(() => fc.integer({ min: 0, max: 59 })) === 0) return g(() => fc.constantFrom('null', '1', '"x"', 'true', '[]', '{}', '$missing', 'ENUM_X'));
  if (isNonNullType(type)) return inputLiteral(g, type.ofType, depth);
  if (isListType(type)) {
    const n = g(() => fc.integer({ min: 0, max: 3 }));
    return `[${Array.from({ length: n }, () => inputLiteral(g, type.ofType, depth + 1)).join(', ')}]`;
  }
  if (isEnumType(type)) return g(() => fc.constantFrom(...type.getValues().map((v) => v.name), 'NOT_A_VALUE'));
  if (isInputObjectType(type)) {
    if (depth > 3) return '{}';
    const fields = Object.values(type.getFields()).filter(() => g(() => fc.boolean()));
    return `{ ${fields.map((f) => `${f.name}: ${inputLiteral(g, f.type, depth + 1)}`).join(', ')} }`;
  }
  if (isScalarType(type)) {
    switch (type.name) {
      case 'Int':
        return String(g(() => fc.oneof(fc.integer({ min: -5, max: 100 }), fc.constantFrom(0, -1, 2147483647, -2147483648, 1e6))));
      case 'Float':
        return String(g(() => fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(0, -0.5, 1.5, 1e308))));
      case 'Boolean':
        return String(g(() => fc.boolean()));
      default:
        return JSON.stringify(stringValue(g));
    }
  }
  return 'null';
}

function selection(g: Gen, type: GraphQLObjectType, depth: number): string {
  const fields = Object.values(type.getFields());
  const chosen = fields.filter(() => g(() => fc.integer({ min: 0, max: 2 })) > 0);
  if (!chosen.length) chosen.push(fields[0]!);
  const parts = chosen.map((f) => fieldText(g, f, depth));
  if (g(() => fc.integer({ min: 0, max: 9 })) === 0) parts.push('__typename');
  return `{ ${parts.join(' ')} }`;
}

function fieldText(g: Gen, field: GraphQLField<unknown, unknown>, depth: number): string {
  const args = field.args
    .filter((a) => isNonNullType(a.type) || g(() => fc.boolean()))
    .filter(() => g(() => fc.integer({ min: 0, max: 39 })) > 0) // sometimes drop even a required one
    // Mostly the indexed instance, so that many requests reach the resolvers.
    .map((a) => `${a.name}: ${a.name === 'instance' && g(() => fc.integer({ min: 0, max: 4 })) > 0 ? '"demo"' : inputLiteral(g, a.type, 0)}`);
  const alias = g(() => fc.integer({ min: 0, max: 9 })) === 0 ? `a${g(() => fc.nat(99))}: ` : '';
  const named = getNamedType(field.type);
  const sub = isObjectType(named) ? (depth > 4 ? '{ __typename }' : selection(g, named, depth + 1)) : '';
  return `${alias}${field.name}${args.length ? `(${args.join(', ')})` : ''} ${sub}`.trim();
}

/** A document over the schema's query (or, one time in ten, mutation) type, with random (mostly well-typed) arguments. */
export function schemaDocument(g: Gen, schema: GraphQLSchema): string {
  const mutation = schema.getMutationType();
  if (mutation && g(() => fc.integer({ min: 0, max: 9 })) === 0) return `mutation ${selection(g, mutation, 0)}`;
  return `query ${selection(g, schema.getQueryType()!, 0)}`;
}

/** One to four character/token edits: delete, duplicate, insert a token, swap, truncate. */
export function mutate(g: Gen, text: string): string {
  let s = text;
  const edits = g(() => fc.integer({ min: 1, max: 4 }));
  for (let e = 0; e < edits; e++) {
    const i = g(() => fc.nat(s.length));
    const j = Math.min(s.length, i + g(() => fc.nat(20)));
    switch (g(() => fc.integer({ min: 0, max: 5 }))) {
      case 0:
        s = s.slice(0, i) + s.slice(j);
        break;
      case 1:
        s = s.slice(0, j) + s.slice(i, j).repeat(g(() => fc.integer({ min: 2, max: 30 }))) + s.slice(j);
        break;
      case 2:
        s = `${s.slice(0, i)} ${g(() => fc.constantFrom(...VOCAB))} ${s.slice(i)}`;
        break;
      case 3:
        s = s.slice(0, i) + g(() => fc.string({ unit: 'binary', maxLength: 3 })) + s.slice(j);
        break;
      case 4:
        s = s.slice(0, i);
        break;
      default:
        s = s.slice(i) + s.slice(0, i);
    }
  }
  return s;
}

/** Known attack shapes, sized at random. */
export function attackDocument(g: Gen): string {
  const n = g(() => fc.integer({ min: 2, max: 400 }));
  switch (g(() => fc.integer({ min: 0, max: 7 }))) {
    case 0:
      return `query { ${'instances { name '.repeat(n)}${'}'.repeat(n)} }`;
    case 1:
      return `query { ${Array.from({ length: n }, (_, i) => `a${i}: instances { name }`).join(' ')} }`;
    case 2: {
      const depth = Math.min(n, 60);
      const frags = Array.from({ length: depth }, (_, i) => `fragment F${i + 1} on Query { ...F${i} ...F${i} }`);
      return `query { ...F${depth} } fragment F0 on Query { instances { name } } ${frags.join(' ')}`;
    }
    case 3:
      return 'query { ...A } fragment A on Query { ...B } fragment B on Query { ...A }';
    case 4:
      return `query { instances ${'@include(if: true) '.repeat(n)}{ name } }`;
    case 5:
      return `query { ask(instance: "demo", question: "${'skip '.repeat(n * 20)}") { answer { text } } }`;
    case 6:
      return `query { __schema { types { ${'fields { type { ofType { name '.repeat(Math.min(n, 30))}${'} } }'.repeat(Math.min(n, 30))} } } }`;
    default:
      return `query(${Array.from({ length: n }, (_, i) => `$v${i}: String`).join(', ')}) { instances { name } }`;
  }
}

function randomJson(g: Gen): unknown {
  return g(() => fc.jsonValue({ maxDepth: 3 }));
}

/** A whole HTTP request: a document (schema-drawn, mutated or an attack) wrapped in a random request shape. */
export function httpCase(g: Gen, schema: GraphQLSchema, seeds: string[]): HttpCase {
  const source = g(() => fc.integer({ min: 0, max: 9 }));
  const doc =
    source < 4
      ? schemaDocument(g, schema)
      : source < 8
        ? mutate(g, g(() => fc.boolean()) ? schemaDocument(g, schema) : g(() => fc.constantFrom(...seeds)))
        : attackDocument(g);
  const variables = g(() => fc.integer({ min: 0, max: 4 })) === 0 ? randomJson(g) : {};
  const shape = g(() => fc.integer({ min: 0, max: 19 }));
  if (shape < 14) return { kind: ['schema', 'schema', 'schema', 'schema', 'mutated', 'mutated', 'mutated', 'mutated', 'attack', 'attack'][source]!, method: 'POST', contentType: 'application/json', body: JSON.stringify({ query: doc, variables }) };
  switch (shape) {
    case 14:
      return { kind: 'get', method: 'GET', search: `?query=${encodeURIComponent(doc)}` };
    case 15:
      return { kind: 'text-plain', method: 'POST', contentType: 'text/plain', body: JSON.stringify({ query: doc }) };
    case 16:
      return { kind: 'broken-json', method: 'POST', contentType: 'application/json', body: mutate(g, JSON.stringify({ query: doc, variables })) };
    case 17:
      return { kind: 'batch', method: 'POST', contentType: 'application/json', body: JSON.stringify(Array.from({ length: g(() => fc.integer({ min: 0, max: 20 })) }, () => ({ query: doc }))) };
    case 18:
      return { kind: 'random-json', method: 'POST', contentType: 'application/json', body: JSON.stringify(randomJson(g)) };
    default:
      return { kind: 'operation-name', method: 'POST', contentType: 'application/json', body: JSON.stringify({ query: doc, operationName: stringValue(g), variables: randomJson(g), extensions: randomJson(g) }) };
  }
}
