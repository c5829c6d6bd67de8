/**
 * graphql-yoga behind a small typed boundary. Its type declarations pull in
 * `@whatwg-node/fetch`, whose `/// <reference lib="dom" />` would put the DOM's fetch types over
 * Bun's for the whole project (tsc then rejects Bun's Response bodies everywhere), so the module
 * is imported by a specifier TypeScript does not resolve, and only what this feature uses is typed.
 */
import type { DocumentNode, ExecutionArgs, ExecutionResult, GraphQLSchema, ParseOptions, Source, ValidationRule } from "graphql";

export interface YogaPlugin {
  onParse?(payload: { setParseFn(fn: (source: string | Source, options?: ParseOptions) => DocumentNode): void }): void;
  onValidate?(payload: { addValidationRule(rule: ValidationRule): void }): void;
  onExecute?(payload: {
    args: ExecutionArgs;
    /** the function that will execute the operation (graphql-tools' executor unless a plugin set another) */
    executeFn(args: ExecutionArgs): unknown;
    setExecuteFn(fn: (args: ExecutionArgs) => unknown): void;
    setResultAndStopExecution(result: ExecutionResult): void;
  }): void | Promise<void>;
}

export interface YogaOptions<C> {
  schema: GraphQLSchema;
  graphqlEndpoint: string;
  graphiql: boolean;
  landingPage: boolean;
  logging: boolean;
  maskedErrors: boolean;
  plugins: YogaPlugin[];
  /** the request's context; `request` is the one yoga answers */
  context: (initial: { request: Request }) => Promise<C>;
}

export interface YogaServer {
  fetch(request: Request): Promise<Response>;
}

const YOGA_MODULE: string = "graphql-yoga";
const yoga = (await import(YOGA_MODULE)) as { createYoga<C>(options: YogaOptions<C>): YogaServer };

export const createYoga = <C>(options: YogaOptions<C>): YogaServer => yoga.createYoga(options);
