import { GraphQLError, Kind, type ASTVisitor, type SelectionSetNode, type ValidationContext, type ValidationRule } from 'graphql';

/**
 * Query depth and cost limits, checked before execution. Depth counts nested selections (introspection
 * subtrees aside, they are bounded by the schema); cost is one per field plus the price of the
 * expensive roots, fragments expanded, so aliases cannot multiply `ask` for free.
 */

export interface QueryLimits {
  maxDepth: number;
  maxCost: number;
  /** Extra cost of a field by name (the roots that run the model). */
  fieldCost: Record<string, number>;
}

export const DEFAULT_LIMITS: QueryLimits = { maxDepth: 8, maxCost: 300, fieldCost: { ask: 60, search: 20, reindex: 20, instances: 5 } };

export function queryLimits(limits: QueryLimits = DEFAULT_LIMITS): ValidationRule {
  return (context: ValidationContext): ASTVisitor => {
    // A fragment's measure depends only on the depth it is spread at, so it is computed once per
    // (fragment, depth): fragments that each spread the previous one twice cost linear time to
    // measure, not 2^n. Costs saturate just past the limit (no need to count further), so even
    // such a document's figure stays a small number.
    const cap = limits.maxCost + 1;
    const memo = new Map<string, { depth: number; cost: number }>();
    const measure = (set: SelectionSetNode, depth: number, seen: Set<string>): { depth: number; cost: number } => {
      let maxDepth = depth;
      let cost = 0;
      for (const sel of set.selections) {
        if (sel.kind === Kind.FIELD) {
          cost += 1 + (depth === 1 ? (limits.fieldCost[sel.name.value] ?? 0) : 0);
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
          const fragment = context.getFragment(name);
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
    return {
      OperationDefinition(node) {
        const { depth, cost } = measure(node.selectionSet, 1, new Set());
        const name = node.name ? `operation "${node.name.value}"` : 'the operation';
        if (depth > limits.maxDepth) {
          context.reportError(new GraphQLError(`${name} is ${depth} levels deep; at most ${limits.maxDepth} are allowed`, { nodes: [node], extensions: { code: 'BAD_USER_INPUT', limit: 'depth' } }));
        }
        if (cost > limits.maxCost) {
          const figure = cost >= cap ? `more than ${limits.maxCost}` : String(cost);
          context.reportError(new GraphQLError(`${name} costs ${figure}; at most ${limits.maxCost} is allowed (ask costs ${limits.fieldCost.ask}, every field 1)`, { nodes: [node], extensions: { code: 'BAD_USER_INPUT', limit: 'cost' } }));
        }
      },
    };
  };
}
