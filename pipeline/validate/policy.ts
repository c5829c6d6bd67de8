/**
 * The validation policy of an import (and of `interchange validate --fail-on`): accept every
 * version (the default), refuse versions with any ERROR notice, or refuse versions with one of the
 * named notice codes. A refused version is never published nor activated; the reason is the
 * import's error.
 */
import { UsageError } from "../../config/flags.ts";
import { NOTICE_SEVERITY } from "./notices.ts";

/** "accept": every version; "errors": none with an ERROR notice; a list: none with one of these codes. */
export type ValidationPolicy = "accept" | "errors" | readonly string[];

/** A policy from its text form: accept (or none), errors, or CODE[,CODE...] (known codes only). */
export function parsePolicy(text: string, where: string): ValidationPolicy {
  const t = text.trim();
  if (t === "accept" || t === "none" || t === "") return "accept";
  if (t === "errors") return "errors";
  const codes = t.split(",").map((c) => c.trim()).filter(Boolean);
  const unknown = codes.filter((c) => !(c in NOTICE_SEVERITY));
  if (unknown.length) throw new UsageError(`${where}: unknown notice code${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")} (accept, errors, or codes such as foreign_key_violation)`);
  return codes;
}

/** Why the policy refuses a version with these notices, or null when it accepts it. */
export function refusal(report: { notices: readonly { code: string; severity: string; totalNotices: number }[] }, policy: ValidationPolicy): string | null {
  if (policy === "accept") return null;
  const hits = policy === "errors" ? report.notices.filter((n) => n.severity === "ERROR") : report.notices.filter((n) => policy.includes(n.code));
  if (hits.length === 0) return null;
  const list = hits.map((n) => `${n.code} (${n.totalNotices})`).join(", ");
  return policy === "errors" ? `refused by the validation policy (refuse on ERROR notices): ${list}` : `refused by the validation policy (refuse on ${policy.join(", ")}): ${list}`;
}
