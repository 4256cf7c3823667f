import 'reflect-metadata';
import type { GraphQLSchema } from 'graphql';
import { buildSchema } from 'type-graphql';
import { CitaResolver } from './resolvers.ts';

/** The GraphQL schema, built from the decorated classes (no class-validator: resolvers check input). */
export function citaSchema(): Promise<GraphQLSchema> {
  return buildSchema({ resolvers: [CitaResolver], validate: false });
}
