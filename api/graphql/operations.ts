import { GraphQLError, type ASTVisitor, type ValidationContext, type ValidationRule } from 'graphql';

/**
 * Refuses an operation whose root type the schema does not have (a `subscription` here): graphql 16
 * validates such a document and fails only at execution, which Apollo reports as an internal error.
 * graphql 17 has this rule built in (KnownOperationTypesRule).
 */
export const knownOperationTypes: ValidationRule = (context: ValidationContext): ASTVisitor => ({
  OperationDefinition(node) {
    if (context.getSchema().getRootType(node.operation)) return;
    context.reportError(new GraphQLError(`this API has no ${node.operation}s: send a query or a mutation`, { nodes: node }));
  },
});
