/**
 * The GTFS GraphQL API's planning root fields, `planConnection` and `plan`: not answered yet (they
 * will render the planner's typed plan model); until then each is a GraphQL error with the code
 * NOT_IMPLEMENTED, never a made-up answer.
 */
import { GraphQLError } from "graphql";

const notYet = (field: string) => () => {
  throw new GraphQLError(`${field} is not implemented yet on this server`, { extensions: { code: "NOT_IMPLEMENTED" } });
};

export const planRoots = {
  planConnection: notYet("planConnection"),
  plan: notYet("plan"),
};

/** The root fields that each cost one plan (server/graphql/limits.ts counts them). */
export const PLAN_FIELDS = ["plan", "planConnection"] as const;
