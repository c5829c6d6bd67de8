/**
 * What one GraphQL request may ask, checked before anything runs: the body's size (HTTP, in
 * index.ts), the document's tokens (graphql's parser stops at the limit), and, as validation rules,
 * the selection depth, the number of aliases and the number of plan fields (each `plan` or
 * `planConnection` costs one plan; fragments count every time they are spread). A refusal is a
 * GraphQL error with a stable `extensions.code`, answered like any invalid document.
 */
import { type ASTVisitor, type FragmentDefinitionNode, GraphQLError, Kind, type SelectionSetNode, type ValidationContext } from "graphql";

export interface GraphqlLimits {
  /** request body, bytes */
  maxBytes: number;
  /** lexical tokens of the document */
  maxTokens: number;
  /** nested selection sets */
  maxDepth: number;
  maxAliases: number;
  /** plan-like fields (each one plan) */
  maxPlans: number;
}

/**
 * OTP's own planQuery.graphql (core-utils 16) is 11 deep, ~450 tokens and uses no alias: these
 * leave room for richer clients while refusing documents built to exhaust the server.
 */
export const DEFAULT_LIMITS: GraphqlLimits = { maxBytes: 65_536, maxTokens: 5_000, maxDepth: 20, maxAliases: 50, maxPlans: 3 };

const refused = (code: string, message: string) => new GraphQLError(message, { extensions: { code } });

/** The depth, aliases and plan fields of each operation, fragments expanded (cycles are another rule's error). */
function measure(set: SelectionSetNode, fragments: Map<string, FragmentDefinitionNode>, planFields: ReadonlySet<string>, path: Set<string>, depth: number, acc: { depth: number; plans: number; steps: number }) {
  if (depth > acc.depth) acc.depth = depth;
  for (const sel of set.selections) {
    // bound the walk itself: a document of fragments spreading each other twice per level is exponential
    if (++acc.steps > 100_000) return;
    if (sel.kind === Kind.FIELD) {
      if (depth === 1 && planFields.has(sel.name.value)) acc.plans++;
      if (sel.selectionSet) measure(sel.selectionSet, fragments, planFields, path, depth + 1, acc);
    } else if (sel.kind === Kind.INLINE_FRAGMENT) {
      measure(sel.selectionSet, fragments, planFields, path, depth, acc);
    } else {
      const f = fragments.get(sel.name.value);
      if (!f || path.has(f.name.value)) continue;
      path.add(f.name.value);
      measure(f.selectionSet, fragments, planFields, path, depth, acc);
      path.delete(f.name.value);
    }
  }
}

/** The validation rule enforcing depth, aliases and plan cost. */
export function limitsRule(limits: GraphqlLimits, planFields: readonly string[]) {
  const plans = new Set(planFields);
  return (context: ValidationContext): ASTVisitor => {
    const doc = context.getDocument();
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const d of doc.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
    let aliases = 0;
    return {
      Field(node) {
        if (node.alias) aliases++;
      },
      OperationDefinition: {
        leave(op) {
          const acc = { depth: 0, plans: 0, steps: 0 };
          measure(op.selectionSet, fragments, plans, new Set(), 1, acc);
          if (acc.steps > 100_000) context.reportError(refused("QUERY_TOO_COMPLEX", "the query expands to more than 100000 selections"));
          if (acc.depth > limits.maxDepth) context.reportError(refused("QUERY_TOO_DEEP", `the query is ${acc.depth} levels deep; at most ${limits.maxDepth}`));
          if (acc.plans > limits.maxPlans) context.reportError(refused("TOO_MANY_PLANS", `the query asks for ${acc.plans} plans; at most ${limits.maxPlans} per request`));
        },
      },
      Document: {
        leave() {
          if (aliases > limits.maxAliases) context.reportError(refused("TOO_MANY_ALIASES", `the query has ${aliases} aliases; at most ${limits.maxAliases}`));
        },
      },
    };
  };
}
