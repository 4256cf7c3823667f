import type { ApolloServerPlugin } from '@apollo/server';
import {
  GraphQLError,
  Kind,
  type ASTVisitor,
  type FieldNode,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
  type ValueNode,
} from 'graphql';

/**
 * Query depth and cost limits, checked before execution. Depth counts nested selections (introspection
 * subtrees aside, they are bounded by the schema); cost is one per field plus the price of the
 * expensive roots, fragments expanded, so aliases cannot multiply `ask` for free. The roots that embed
 * a text (`ask`, `search`) also cost by its length in tokens (`pricedByTokens`): once variables are
 * known, so after validation.
 */

export interface QueryLimits {
  maxDepth: number;
  maxCost: number;
  /** Extra cost of a field by name (the roots that run the model). */
  fieldCost: Record<string, number>;
  /** The argument of a root field whose text is embedded: it costs 1 more per `tokensPerCost` tokens. */
  textArgument: Record<string, string>;
  tokensPerCost: number;
}

export const DEFAULT_LIMITS: QueryLimits = {
  maxDepth: 8,
  maxCost: 300,
  fieldCost: { ask: 60, search: 20, reindex: 20, instances: 5 },
  textArgument: { ask: 'question', search: 'query' },
  tokensPerCost: 16,
};

type Fragments = (name: string) => FragmentDefinitionNode | undefined;

/**
 * Depth and cost of an operation; `extra` adds to the price of a root field (by its text). A
 * fragment's measure depends only on the depth it is spread at, so it is computed once per
 * (fragment, depth): fragments that each spread the previous one twice cost linear time to measure,
 * not 2^n. Costs saturate at `cap`, by default just past the limit (no need to count further), so
 * even such a document's figure stays a small number.
 */
export function measureOperation(
  op: OperationDefinitionNode,
  fragments: Fragments,
  limits: QueryLimits,
  { extra, cap = limits.maxCost + 1 }: { extra?: (field: FieldNode) => number; cap?: number } = {},
): { depth: number; cost: number } {
  const memo = new Map<string, { depth: number; cost: number }>();
  const measure = (set: SelectionSetNode, depth: number, seen: Set<string>): { depth: number; cost: number } => {
    let maxDepth = depth;
    let cost = 0;
    for (const sel of set.selections) {
      if (sel.kind === Kind.FIELD) {
        cost += 1 + (depth === 1 ? (limits.fieldCost[sel.name.value] ?? 0) + (extra?.(sel) ?? 0) : 0);
        if (sel.selectionSet) {
          const inner = measure(sel.selectionSet, depth + 1, seen);
          cost += inner.cost;
          if (!sel.name.value.startsWith('__')) maxDepth = Math.max(maxDepth, inner.depth);
        }
      } else if (sel.kind === Kind.INLINE_FRAGMENT) {
        const inner = measure(sel.selectionSet, depth, seen);
        cost += inner.cost;
        maxDepth = Math.max(maxDepth, inner.depth);
      } else {
        const name = sel.name.value;
        const fragment = fragments(name);
        if (!fragment || seen.has(name)) continue; // unknown or cyclic: other rules report it
        const key = `${name}@${depth}`;
        let inner = memo.get(key);
        if (!inner) {
          inner = measure(fragment.selectionSet, depth, new Set([...seen, name]));
          memo.set(key, inner);
        }
        cost += inner.cost;
        maxDepth = Math.max(maxDepth, inner.depth);
      }
      cost = Math.min(cost, cap);
    }
    return { depth: maxDepth, cost };
  };
  return measure(op.selectionSet, 1, new Set());
}

const operationName = (node: OperationDefinitionNode) => (node.name ? `operation "${node.name.value}"` : 'the operation');

function costError(node: OperationDefinitionNode, figure: string, limits: QueryLimits, pricing: string): GraphQLError {
  return new GraphQLError(`${operationName(node)} costs ${figure}; at most ${limits.maxCost} is allowed (${pricing})`, {
    nodes: [node],
    extensions: { code: 'BAD_USER_INPUT', limit: 'cost', http: { status: 400 } },
  });
}

export function queryLimits(limits: QueryLimits = DEFAULT_LIMITS): ValidationRule {
  return (context: ValidationContext): ASTVisitor => ({
    OperationDefinition(node) {
      const { depth, cost } = measureOperation(node, (name) => context.getFragment(name) ?? undefined, limits);
      if (depth > limits.maxDepth) {
        context.reportError(new GraphQLError(`${operationName(node)} is ${depth} levels deep; at most ${limits.maxDepth} are allowed`, { nodes: [node], extensions: { code: 'BAD_USER_INPUT', limit: 'depth' } }));
      }
      // Saturated: the figure is only known to be over the limit.
      if (cost > limits.maxCost) context.reportError(costError(node, `more than ${limits.maxCost}`, limits, `ask costs ${limits.fieldCost.ask}, every field 1`));
    },
  });
}

/** A string argument's value, inline or from the variables; undefined for anything else. */
function stringArgument(field: FieldNode, name: string, variables: Record<string, unknown>): string | undefined {
  const value: ValueNode | undefined = field.arguments?.find((a) => a.name.value === name)?.value;
  const v = value?.kind === Kind.STRING ? value.value : value?.kind === Kind.VARIABLE ? variables[value.name.value] : undefined;
  return typeof v === 'string' ? v : undefined;
}

/** Root fields (through fragments) that embed a text, each once. */
function textFields(set: SelectionSetNode, fragments: Fragments, limits: QueryLimits, out = new Set<FieldNode>(), seen = new Set<string>()): Set<FieldNode> {
  for (const sel of set.selections) {
    if (sel.kind === Kind.FIELD) {
      if (limits.textArgument[sel.name.value]) out.add(sel);
    } else if (sel.kind === Kind.INLINE_FRAGMENT) textFields(sel.selectionSet, fragments, limits, out, seen);
    else if (!seen.has(sel.name.value)) {
      seen.add(sel.name.value);
      const fragment = fragments(sel.name.value);
      if (fragment) textFields(fragment.selectionSet, fragments, limits, out, seen);
    }
  }
  return out;
}

/**
 * The cost check again once variables are known, with `ask` and `search` priced by their text: 1 more
 * per `tokensPerCost` tokens, counted by `tokens(instance, text)` (the instance's own tokenizer). A
 * question of a full model window (512 tokens) costs 32 more than a short one, so three fit in one
 * request and four do not.
 */
export function pricedByTokens(tokens: (instance: string, text: string) => Promise<number>, limits: QueryLimits = DEFAULT_LIMITS): ApolloServerPlugin {
  const pricing = `ask costs ${limits.fieldCost.ask} and search ${limits.fieldCost.search}, plus 1 per ${limits.tokensPerCost} tokens of their question or query; every field 1`;
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operation, document, request }) {
          if (!operation) return; // Apollo has already answered that no operation was found
          const defs = new Map(document.definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]));
          const fragments: Fragments = (name) => defs.get(name);
          const variables = request.variables ?? {};
          const priced = await Promise.all(
            [...textFields(operation.selectionSet, fragments, limits)].map(async (field) => {
              const instance = stringArgument(field, 'instance', variables);
              const text = stringArgument(field, limits.textArgument[field.name.value]!, variables);
              const n = instance !== undefined && text !== undefined ? await tokens(instance, text) : 0;
              return [field, Math.ceil(n / limits.tokensPerCost)] as const;
            }),
          );
          const extra = new Map(priced);
          // The document passed the static check (at most maxCost fields), so the exact figure is cheap.
          const { cost } = measureOperation(operation, fragments, limits, { extra: (field) => extra.get(field) ?? 0, cap: Infinity });
          if (cost > limits.maxCost) throw costError(operation, String(cost), limits, pricing);
        },
      };
    },
  };
}
