/**
 * What a plan costs against the account's rate limit: a GraphQL request is counted once by the
 * service (server/app.ts), as every request; each plan field after its first counts once more
 * (three plan fields count like three REST plans), taken when the operation is about to run. A
 * request over the rate is refused whole with RATE_LIMITED (HTTP 429, retry-after), nothing run.
 */
import { type DocumentNode, GraphQLError, Kind, type SelectionSetNode } from "graphql";
import type { YogaPlugin } from "../yoga.ts";

/** Takes `units` more requests of the rate of the request's account; the decision. */
export type PlanCharge = (request: Request, units: number) => Promise<{ allowed: boolean; retryAfterSec: number }>;

/** The plan fields at the root of the operation to run (fragments counted at each spread). */
export function countPlans(doc: DocumentNode, operationName: string | null | undefined, planFields: readonly string[]): number {
  const ops = doc.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
  const op = operationName ? ops.find((o) => o.name?.value === operationName) : ops[0];
  if (!op) return 0;
  const fragments = new Map(doc.definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d] as const] : [])));
  const seen = new Set<string>();
  const walk = (set: SelectionSetNode): number =>
    set.selections.reduce((n, s) => {
      if (s.kind === Kind.FIELD) return n + (planFields.includes(s.name.value) ? 1 : 0);
      if (s.kind === Kind.INLINE_FRAGMENT) return n + walk(s.selectionSet);
      const f = fragments.get(s.name.value);
      if (!f || seen.has(f.name.value)) return n;
      seen.add(f.name.value);
      const c = walk(f.selectionSet);
      seen.delete(f.name.value);
      return n + c;
    }, 0);
  return walk(op.selectionSet);
}

/** The yoga plugin taking the plans' extra cost before an operation runs. */
export function planCostPlugin(charge: PlanCharge, planFields: readonly string[]): YogaPlugin {
  // yoga hands the same parsed document to every request sending the same query (its parse cache):
  // its plans are counted once per operation name
  const counted = new WeakMap<DocumentNode, Map<string, number>>();
  const plansOf = (doc: DocumentNode, operationName: string | null | undefined) => {
    let byName = counted.get(doc);
    if (!byName) counted.set(doc, (byName = new Map()));
    let n = byName.get(operationName ?? "");
    if (n === undefined) byName.set(operationName ?? "", (n = countPlans(doc, operationName, planFields)));
    return n;
  };
  return {
    async onExecute({ args, setResultAndStopExecution }) {
      const plans = plansOf(args.document, args.operationName);
      const request = (args.contextValue as { request?: Request }).request;
      if (plans <= 1 || !request) return;
      const d = await charge(request, plans - 1);
      if (d.allowed) return;
      const retry = Math.max(1, Math.ceil(d.retryAfterSec));
      setResultAndStopExecution({
        errors: [new GraphQLError(`rate limit exceeded for this API key: this request's ${plans} plans count as ${plans} requests; retry after ${retry} s`, { extensions: { code: "RATE_LIMITED", http: { status: 429, headers: { "retry-after": String(retry) } } } })],
      });
    },
  };
}
