import { parse, type OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { pricedByTokens } from '../api/graphql/limits.ts';

/** The cost check with variables known: `ask` and `search` are priced by the tokens of their text. */

/** Runs the plugin's check on a document; the token count of a text is its length here (a stand-in tokenizer). */
async function check(query: string, variables: Record<string, unknown> = {}): Promise<string | undefined> {
  const plugin = pricedByTokens(async (instance, text) => (instance === 'demo' ? text.length : 0));
  const document = parse(query);
  const operation = document.definitions.find((d) => d.kind === 'OperationDefinition') as OperationDefinitionNode;
  const hooks = await plugin.requestDidStart!({} as never);
  try {
    await hooks!.didResolveOperation!({ operation, document, request: { variables } } as never);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

const asks = (n: number, arg: (i: number) => string) => `query Q { ${Array.from({ length: n }, (_, i) => `a${i}: ask(instance: "demo", question: ${arg(i)}) { language }`).join(' ')} }`;

describe('pricedByTokens', () => {
  it('grows with the tokens of each question: 4 asks cost 248 when short, more when long', async () => {
    // Each ask: 60 + the field 1 + language 1 = 62, plus 1 per 16 tokens.
    expect(await check(asks(4, () => '"x"'))).toBeUndefined(); // 4 × (62 + 1) = 252
    expect(await check(asks(4, () => `"${'x'.repeat(160)}"`))).toBeUndefined(); // 4 × (62 + 10) = 288
    expect(await check(asks(4, () => `"${'x'.repeat(512)}"`))).toBe(
      'operation "Q" costs 376; at most 300 is allowed (ask costs 60 and search 20, plus 1 per 16 tokens of their question or query; every field 1)',
    );
  });

  it('reads texts from variables, and prices a field spread twice through a fragment twice', async () => {
    const viaVariables = 'query V($q: String!) { a: ask(instance: "demo", question: $q) { language } b: ask(instance: "demo", question: $q) { language } }';
    expect(await check(viaVariables, { q: 'x'.repeat(16 * 100) })).toMatch(/^operation "V" costs 324;/); // 2 × (62 + 100)
    const viaFragment = `query F { ...A ...A } fragment A on Query { search(instance: "demo", query: "${'x'.repeat(16 * 130)}") { alpha } }`;
    expect(await check(viaFragment)).toMatch(/^operation "F" costs 304;/); // 2 × (search 20 + 1 + alpha 1 + 130)
  });

  it('prices nothing extra for an instance it cannot count for (the resolver reports it)', async () => {
    expect(await check(asks(4, () => `"${'x'.repeat(512)}"`).replaceAll('"demo"', '"nope"'))).toBeUndefined();
  });
});
