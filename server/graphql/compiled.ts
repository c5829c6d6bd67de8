/**
 * Compiled execution of query operations over this service's model objects (a plan's itineraries,
 * legs, places, stops, routes, trips, ...): a yoga plugin that compiles an operation once per
 * parsed document (yoga's parse cache hands every request of one query the same document) into
 * one function per selection set, which reads each field straight from the model object the way
 * execute.ts's resolvers do (property, or method called with (args, context)) and writes the
 * answer's objects in the executor's field order. It takes the executor's place only where the
 * result is certain to be the executor's own:
 *
 * - compiled: query operations whose fields, fragments and type conditions are plain (no
 *   directives, no introspection root fields), every field resolved by execute.ts's root or
 *   model resolvers; abstract types by `__typename`, as graphql's default type resolver.
 * - falls back to the executor, at compile time, for anything else; and at run time, for the whole
 *   request, as soon as anything is not plain: a resolver throws or returns an Error or a promise
 *   below the root, a non-null field is null, a scalar does not serialize, a list is not an array,
 *   a variable does not coerce. The executor then runs the request from the start (its errors,
 *   null propagation and paths are its own), reusing the root fields' results already computed
 *   (execute.ts ROOT_RESULTS): a plan is never searched twice.
 */
import { getVariableValues } from "@graphql-tools/executor";
import { getArgumentValues } from "@graphql-tools/utils";
import {
  type DocumentNode,
  type ExecutionArgs,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLAbstractType,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
  isAbstractType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  type NamedTypeNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
  typeFromAST,
} from "graphql";
import { isModelResolver, ROOT_RESULTS, rootOf, type RootResults } from "./execute.ts";
import type { YogaPlugin } from "./yoga.ts";

/** Thrown at run time where the executor must answer instead (caught once per request). */
const FALL_BACK = Symbol("fall back to the executor");
/** Thrown at compile time for what the compiler does not handle. */
class NotCompiled extends Error {}

/** One request's state: its context, coerced variables and arguments (per field node, computed once). */
interface Run {
  ctx: unknown;
  vars: Record<string, unknown>;
  args: (Record<string, unknown> | undefined)[];
}

/** Completes one value of a field (resolved, not yet checked) into its answer. */
type Complete = (v: unknown, run: Run) => unknown;

interface Compiler {
  schema: GraphQLSchema;
  fragments: Map<string, FragmentDefinitionNode>;
  /** argument slots handed out (Run.args) */
  slots: number;
}

interface RootField {
  key: string;
  /** the first node of the field (the executor's `info.fieldNodes[0]`, ROOT_RESULTS' key) */
  node: FieldNode;
  /** null: `__typename` */
  resolve: NonNullable<ReturnType<typeof rootOf>> | null;
  args: (run: Run) => Record<string, unknown>;
  complete: Complete;
}

interface CompiledOperation {
  op: OperationDefinitionNode;
  roots: RootField[];
}

const NO_ARGS: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;

/** A promise or an Error: the executor awaits the one and reports the other. */
const unusual = (v: object) => v instanceof Error || typeof (v as { then?: unknown }).then === "function";

/** The fields of selection sets on `type`, by response key, in the executor's order (graphql's CollectFields without directives). */
function collectFields(c: Compiler, type: GraphQLObjectType, sets: readonly SelectionSetNode[]): Map<string, FieldNode[]> {
  const out = new Map<string, FieldNode[]>();
  const visited = new Set<string>();
  const applies = (cond: NamedTypeNode | undefined) => {
    if (!cond) return true;
    const t = typeFromAST(c.schema, cond);
    if (t === type) return true;
    return t !== undefined && isAbstractType(t) && c.schema.isSubType(t, type);
  };
  const walk = (set: SelectionSetNode) => {
    for (const s of set.selections) {
      if (s.directives?.length) throw new NotCompiled("directive");
      if (s.kind === Kind.FIELD) {
        const key = s.alias?.value ?? s.name.value;
        if (key === "__proto__") throw new NotCompiled("__proto__");
        const nodes = out.get(key);
        if (nodes) nodes.push(s);
        else out.set(key, [s]);
      } else if (s.kind === Kind.INLINE_FRAGMENT) {
        if (applies(s.typeCondition)) walk(s.selectionSet);
      } else {
        const name = s.name.value;
        if (visited.has(name)) continue;
        visited.add(name);
        const f = c.fragments.get(name);
        if (!f) throw new NotCompiled(`fragment ${name}`);
        if (f.directives?.length) throw new NotCompiled("directive");
        if (applies(f.typeCondition)) walk(f.selectionSet);
      }
    }
  };
  for (const set of sets) walk(set);
  return out;
}

/** A field's arguments as the executor coerces them (graphql-tools' getArgumentValues), once per request and field node. */
function argsOf(c: Compiler, def: GraphQLField<unknown, unknown>, node: FieldNode): (run: Run) => Record<string, unknown> {
  if (def.args.length === 0) return () => NO_ARGS;
  const slot = c.slots++;
  return (run) => (run.args[slot] ??= getArgumentValues(def, node, run.vars));
}

/** The completion of a value of `type` (null checks, then the type's own). */
function completer(c: Compiler, type: GraphQLOutputType, nodes: readonly FieldNode[]): Complete {
  if (isNonNullType(type)) {
    const inner = valueCompleter(c, type.ofType, nodes);
    return (v, run) => {
      if (v === null || v === undefined) throw FALL_BACK;
      if (typeof v === "object" && unusual(v)) throw FALL_BACK;
      return inner(v, run);
    };
  }
  const inner = valueCompleter(c, type, nodes);
  return (v, run) => {
    if (v === null || v === undefined) return null;
    if (typeof v === "object" && unusual(v)) throw FALL_BACK;
    return inner(v, run);
  };
}

/** The completion of a non-null value of a nullable type. */
function valueCompleter(c: Compiler, type: GraphQLOutputType, nodes: readonly FieldNode[]): Complete {
  if (isLeafType(type)) {
    return (v) => {
      const s = type.serialize(v);
      if (s === null || s === undefined) throw FALL_BACK;
      return s;
    };
  }
  if (isListType(type)) {
    const item = completer(c, type.ofType, nodes);
    return (v, run) => {
      if (!Array.isArray(v)) throw FALL_BACK;
      const out: unknown[] = [];
      for (const x of v) out.push(item(x, run));
      return out;
    };
  }
  if (isObjectType(type)) return objectCompleter(c, type, nodes);
  if (isAbstractType(type)) return abstractCompleter(c, type, nodes);
  throw new NotCompiled(String(type));
}

/** An abstract type's value: its runtime type by `__typename` (graphql's default type resolver), compiled on first sight. */
function abstractCompleter(c: Compiler, type: GraphQLAbstractType, nodes: readonly FieldNode[]): Complete {
  if (type.resolveType) throw new NotCompiled("resolveType");
  const byType = new Map<string, Complete | null>();
  return (v, run) => {
    const name = (v as { __typename?: unknown }).__typename;
    if (typeof name !== "string") throw FALL_BACK;
    let complete = byType.get(name);
    if (complete === undefined) {
      const t = c.schema.getType(name);
      complete = null;
      if (t && isObjectType(t) && c.schema.isSubType(type, t)) {
        try {
          complete = objectCompleter(c, t, nodes);
        } catch {
          // not compiled: the executor answers every value of this type here
        }
      }
      byType.set(name, complete);
    }
    if (complete === null) throw FALL_BACK;
    return complete(v, run);
  };
}

/** An object type's selection: each field read from the model object as execute.ts's model resolver does. */
function objectCompleter(c: Compiler, type: GraphQLObjectType, nodes: readonly FieldNode[]): Complete {
  if (type.isTypeOf) throw new NotCompiled("isTypeOf");
  const sets = nodes.map((n) => n.selectionSet ?? null);
  if (sets.includes(null)) throw new NotCompiled("object without a selection");
  const fields = collectFields(c, type, sets as SelectionSetNode[]);
  const defs = type.getFields();
  const keys: string[] = [];
  const reads: ((src: Record<string, unknown>, run: Run) => unknown)[] = [];
  for (const [key, fns] of fields) {
    const name = fns[0]!.name.value;
    keys.push(key);
    if (name === "__typename") {
      const typeName = type.name;
      reads.push(() => typeName);
      continue;
    }
    const def = defs[name];
    if (!def || !isModelResolver(def.resolve)) throw new NotCompiled(`${type.name}.${name}`);
    const args = argsOf(c, def, fns[0]!);
    const complete = completer(c, def.type, fns);
    reads.push((src, run) => {
      if (!(name in src)) throw FALL_BACK;
      let v = src[name];
      if (typeof v === "function") v = v.call(src, args(run), run.ctx);
      return complete(v, run);
    });
  }
  const n = keys.length;
  return (v, run) => {
    if (typeof v !== "object") throw FALL_BACK;
    const src = v as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (let i = 0; i < n; i++) out[keys[i]!] = reads[i]!(src, run);
    return out;
  };
}

/** The operation the executor would run (graphql's GetOperation), null where it would report an error. */
function operationOf(doc: DocumentNode, name: string | null | undefined): OperationDefinitionNode | null {
  let op: OperationDefinitionNode | null = null;
  for (const d of doc.definitions) {
    if (d.kind !== Kind.OPERATION_DEFINITION) continue;
    if (name == null) {
      if (op) return null;
      op = d;
    } else if (d.name?.value === name) op = d;
  }
  return op;
}

/** An operation compiled, or null where the executor answers it. */
function compile(schema: GraphQLSchema, doc: DocumentNode, name: string | null | undefined): CompiledOperation | null {
  const op = operationOf(doc, name);
  const query = schema.getQueryType();
  if (!op || op.operation !== "query" || !query) return null;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of doc.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const c: Compiler = { schema, fragments, slots: 0 };
  try {
    const roots: RootField[] = [];
    const defs = query.getFields();
    for (const [key, nodes] of collectFields(c, query, [op.selectionSet])) {
      const node = nodes[0]!;
      const fieldName = node.name.value;
      if (fieldName === "__typename") {
        roots.push({ key, node, resolve: null, args: () => NO_ARGS, complete: () => query.name });
        continue;
      }
      const def = defs[fieldName];
      const resolve = def ? rootOf(def.resolve) : undefined;
      if (!def || !resolve) return null;
      roots.push({ key, node, resolve, args: argsOf(c, def, node), complete: completer(c, def.type, nodes) });
    }
    return { op, roots };
  } catch {
    // NotCompiled, or anything else the compiler meets: the executor answers
    return null;
  }
}

type Execute = (args: ExecutionArgs) => unknown;

/** Requests of this process answered by compiled operations (`compiled`), and those the executor answered after all (`fellBack`); for tests and measurements. */
export const compiledCounts = { compiled: 0, fellBack: 0 };

const isThenable = (v: unknown): v is Promise<unknown> => v !== null && typeof v === "object" && typeof (v as { then?: unknown }).then === "function";

/** Runs a compiled operation; the executor (`fallback`) answers whatever is not plain. Synchronous unless a root field answers a promise. */
function run(compiled: CompiledOperation, a: ExecutionArgs, fallback: Execute): unknown {
  let vars: Record<string, unknown> = {};
  const defs = compiled.op.variableDefinitions ?? [];
  if (defs.length) {
    const coerced = getVariableValues(a.schema, defs, (a.variableValues ?? {}) as Record<string, unknown>, { maxErrors: 50 }) as { variableValues?: { coerced: Record<string, unknown> } };
    if (!coerced.variableValues) {
      compiledCounts.fellBack++;
      return fallback(a);
    }
    vars = coerced.variableValues.coerced;
  }
  const r: Run = { ctx: a.contextValue, vars, args: [] };
  const done: RootResults = new Map();
  const again = () => {
    compiledCounts.fellBack++;
    return fallback({ ...a, rootValue: { [ROOT_RESULTS]: done } });
  };
  const values: unknown[] = [];
  let pending = false;
  for (const f of compiled.roots) {
    if (!f.resolve) {
      values.push(null);
      continue;
    }
    let args: Record<string, unknown>;
    try {
      args = f.args(r);
    } catch {
      return again();
    }
    try {
      const v = f.resolve(args, r.ctx as Parameters<typeof f.resolve>[1]);
      // a rejection is the executor's to report (after a fall back), never unhandled
      if (isThenable(v)) {
        v.then(undefined, () => {});
        pending = true;
      }
      done.set(f.node, { value: v });
      values.push(v);
    } catch (error) {
      done.set(f.node, { error });
      return again();
    }
  }
  const complete = (resolved: unknown[]) => {
    try {
      const data: Record<string, unknown> = {};
      for (let i = 0; i < compiled.roots.length; i++) data[compiled.roots[i]!.key] = compiled.roots[i]!.complete(resolved[i], r);
      compiledCounts.compiled++;
      return { data };
    } catch {
      return again();
    }
  };
  return pending ? Promise.all(values).then(complete, again) : complete(values);
}

/** The yoga plugin running query operations compiled (see the file's comment), per parsed document. */
export function compiledExecutionPlugin(): YogaPlugin {
  const cache = new WeakMap<DocumentNode, Map<string, CompiledOperation | null>>();
  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      if (args.rootValue != null) return;
      let byName = cache.get(args.document);
      if (!byName) cache.set(args.document, (byName = new Map()));
      const key = args.operationName ?? "";
      let compiled = byName.get(key);
      if (compiled === undefined) byName.set(key, (compiled = compile(args.schema, args.document, args.operationName)));
      if (compiled) setExecuteFn((a) => run(compiled, a, executeFn));
    },
  };
}
