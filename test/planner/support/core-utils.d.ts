/**
 * OTP-UI's core-utils lines installed under npm aliases (package.json devDependencies) for
 * test/planner/core-utils.test.ts: 4.x ships plain JavaScript, 8.x types that need
 * @opentripplanner/types (not installed); the test reads their results as untyped values.
 */
declare module "core-utils-4/lib/*";
declare module "core-utils-8/lib/*";
/** prop-types' checkPropTypes (prop-types ships no types) */
declare module "prop-types/checkPropTypes" {
  export default function checkPropTypes(typeSpecs: object, values: object, location: string, componentName: string): void;
}
