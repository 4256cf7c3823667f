import 'reflect-metadata';
import { Field, Float, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import type { Collection } from '../../pipeline/types.ts';

/**
 * The GraphQL shapes. Every field declares its type in the decorator: tsx (esbuild) emits no
 * decorator metadata, so nothing here may rely on it. Resolvers return plain objects of these shapes.
 */

export const CollectionEnum = { docs: 'docs', code: 'code', issues: 'issues' } as const satisfies Record<Collection, Collection>;
registerEnumType(CollectionEnum, { name: 'Collection', description: 'An indexed collection: docs, code or issues.' });

export enum JobState {
  running = 'running',
  succeeded = 'succeeded',
  failed = 'failed',
}
registerEnumType(JobState, { name: 'JobState' });

@ObjectType({ description: 'Chunks of one collection.' })
export class CollectionCount {
  @Field(() => CollectionEnum) collection!: Collection;
  @Field(() => Int) chunks!: number;
}

@ObjectType({ description: 'A configured repository and the state of its index.' })
export class Instance {
  @Field(() => String) name!: string;
  @Field(() => String, { nullable: true, description: 'owner/name on GitHub' }) github?: string;
  @Field(() => String) ref!: string;
  @Field(() => String, { description: 'store implementation, e.g. sqlite' }) storeKind!: string;
  @Field(() => Boolean) indexed!: boolean;
  @Field(() => String, { nullable: true, description: 'embedding model the index was built with' }) model?: string;
  @Field(() => String, { nullable: true, description: 'ISO time of the last completed index run' }) lastIndexed?: string;
  @Field(() => [CollectionCount]) chunks!: CollectionCount[];
  @Field(() => Int) totalChunks!: number;
  @Field(() => IndexJob, { nullable: true, description: 'the index job running now, if any' }) job?: IndexJob;
}

@ObjectType({ description: 'Where a chunk comes from: a file and line range, a doc section, an issue or comment.' })
export class Location {
  @Field(() => CollectionEnum) collection!: Collection;
  @Field(() => String) path!: string;
  @Field(() => Int) startLine!: number;
  @Field(() => Int) endLine!: number;
  @Field(() => [String], { nullable: true }) headings?: string[];
  @Field(() => String, { nullable: true }) symbol?: string;
  @Field(() => Int, { nullable: true }) issue?: number;
  @Field(() => Float, { nullable: true, description: 'GitHub comment id (a Float: ids exceed 32 bits)' }) commentId?: number;
  @Field(() => String, { nullable: true, description: 'GitHub permalink to the lines, or the issue/comment URL' }) url?: string;
}

@ObjectType({ description: 'A marker of the answer resolved against the context and the indexed tree.' })
export class ResolvedCitation extends Location {
  @Field(() => Int) marker!: number;
  @Field(() => String) snippet!: string;
  @Field(() => Boolean) verified!: boolean;
  @Field(() => String, { nullable: true }) problem?: string;
}

@ObjectType()
export class InvalidMarker {
  @Field(() => Int) marker!: number;
  @Field(() => String) problem!: string;
  @Field(() => String, { nullable: true }) sentence?: string;
}

@ObjectType({ description: 'A quote of the answer machine-translated into the question\'s language: a reading aid, not a quote.' })
export class QuoteGloss {
  @Field(() => Int, { description: 'the marker of the quote it translates' }) marker!: number;
  @Field(() => String, { description: 'the quote, as the sources say it' }) quote!: string;
  @Field(() => String) text!: string;
}

@ObjectType()
export class Answer {
  @Field(() => String) text!: string;
  @Field(() => String) language!: string;
  @Field(() => String) generator!: string;
  @Field(() => Boolean) noAnswer!: boolean;
  @Field(() => [ResolvedCitation]) citations!: ResolvedCitation[];
  @Field(() => [InvalidMarker]) invalid!: InvalidMarker[];
  @Field(() => [String], { description: 'sentences without a valid citation' }) unsupported!: string[];
  @Field(() => [QuoteGloss], { description: 'for a question in another language than the sources: each quote machine-translated (answer.glosses)' }) glosses!: QuoteGloss[];
  @Field(() => String, { nullable: true, description: 'the translator that made the glosses, or why there are none' }) glossedBy?: string;
}

@ObjectType()
export class CollectionWeight {
  @Field(() => CollectionEnum) collection!: Collection;
  @Field(() => Float) weight!: number;
}

@ObjectType({ description: 'Why the question went where it did.' })
export class Route {
  @Field(() => CollectionEnum) top!: Collection;
  @Field(() => String) language!: string;
  @Field(() => [CollectionWeight]) weights!: CollectionWeight[];
  @Field(() => [Int], { description: 'issues looked up directly' }) issueLookups!: number[];
  @Field(() => [String], { description: 'symbols looked up directly' }) symbolLookups!: string[];
  @Field(() => [String]) reasons!: string[];
  @Field(() => String, { nullable: true, description: 'the question in the corpus language, when it was asked in another and translated' }) translation?: string;
}

@ObjectType({ description: 'How much of the context a collection got, and how well it fit the query.' })
export class SlotShare {
  @Field(() => CollectionEnum) collection!: Collection;
  @Field(() => Int) slots!: number;
  @Field(() => Float) fit!: number;
  @Field(() => String, { description: 'the query searched in this collection (a second hop shows here)' }) query!: string;
}

@ObjectType()
export class Scores {
  @Field(() => Float, { nullable: true }) bm25?: number | null;
  @Field(() => Float, { nullable: true }) dense?: number | null;
  @Field(() => Float) fused!: number;
  @Field(() => String, { description: 'search or lookup' }) via!: string;
}

@ObjectType({ description: 'A block of the context the generator read, with its scores.' })
export class ContextBlock {
  @Field(() => Int) marker!: number;
  @Field(() => String) title!: string;
  @Field(() => Location) citation!: Location;
  @Field(() => String) text!: string;
  @Field(() => Scores) scores!: Scores;
  @Field(() => String, { nullable: true, description: 'lines | words when the text was cut to the budget' }) cut?: string;
}

@ObjectType()
export class Timing {
  @Field(() => String) step!: string;
  @Field(() => Float) ms!: number;
}

@ObjectType({ description: 'A routed, fused, cited answer.' })
export class AskResult {
  @Field(() => String) question!: string;
  @Field(() => String) language!: string;
  @Field(() => Answer, { nullable: true, description: 'absent with retrieveOnly' }) answer?: Answer;
  @Field(() => Route) route!: Route;
  @Field(() => String) fusionMethod!: string;
  @Field(() => [SlotShare]) slots!: SlotShare[];
  @Field(() => [ContextBlock]) blocks!: ContextBlock[];
  @Field(() => [Timing]) timings!: Timing[];
}

@InputType({ description: 'Overrides for one question.' })
export class AskOptionsInput {
  @Field(() => String, { nullable: true, description: 'proportional | rrf' }) fusion?: string;
  @Field(() => Float, { nullable: true, description: 'dense weight in [0, 1]' }) alpha?: number;
  @Field(() => Int, { nullable: true, description: 'context blocks, 1 to 50' }) chunks?: number;
  @Field(() => Boolean, { nullable: true, description: 'retrieve and fuse only, no answer' }) retrieveOnly?: boolean;
}

@ObjectType({ description: 'A search hit with its citation and why it ranked there.' })
export class SearchHit {
  @Field(() => Int) rank!: number;
  @Field(() => String) title!: string;
  @Field(() => Location) citation!: Location;
  @Field(() => String) snippet!: string;
  @Field(() => Float) score!: number;
  @Field(() => Float, { nullable: true }) bm25?: number | null;
  @Field(() => Float, { nullable: true }) dense?: number | null;
  @Field(() => Float) bm25Norm!: number;
  @Field(() => Float) denseNorm!: number;
}

@ObjectType()
export class SearchResult {
  @Field(() => String) query!: string;
  @Field(() => String, { description: 'the language the query was detected in' }) language!: string;
  @Field(() => String, { nullable: true, description: 'the query in the corpus language, when it was written in another and translated' }) translation?: string;
  @Field(() => Float, { description: 'the dense weight used (the config\'s for the query\'s language, unless asked for)' }) alpha!: number;
  @Field(() => [SearchHit]) hits!: SearchHit[];
}

@ObjectType()
export class IndexResult {
  @Field(() => Int) chunks!: number;
  @Field(() => Int) added!: number;
  @Field(() => Int) removed!: number;
  @Field(() => Int) unchanged!: number;
  @Field(() => Int) embedded!: number;
  @Field(() => Int) fromCache!: number;
  @Field(() => Float) seconds!: number;
  @Field(() => [CollectionCount]) collections!: CollectionCount[];
  @Field(() => [String]) warnings!: string[];
  @Field(() => [String], { description: 'files whose chunking failed (their previous chunks kept)' }) failed!: string[];
}

@ObjectType({ description: 'A background index run.' })
export class IndexJob {
  @Field(() => ID) id!: string;
  @Field(() => String) instance!: string;
  @Field(() => [CollectionEnum]) sources!: Collection[];
  @Field(() => JobState) state!: JobState;
  @Field(() => Boolean) rebuild!: boolean;
  @Field(() => String, { nullable: true, description: 'chunk | embed | write' }) phase?: string;
  @Field(() => Int) done!: number;
  @Field(() => Int) total!: number;
  @Field(() => String) startedAt!: string;
  @Field(() => String, { nullable: true }) finishedAt?: string;
  @Field(() => String, { nullable: true }) error?: string;
  @Field(() => IndexResult, { nullable: true }) result?: IndexResult;
}
