/**
 * FEATURE UNDER TEST: the engine slots' waiting line (server/street/embedded.ts, Slots): at most
 * `max` calls at once, the others served fairly across accounts (round robin over the accounts that
 * wait, each account's calls in their order), bounded waits (503) and calls whose client went away.
 */
import { describe, expect, test } from "bun:test";
import { Slots } from "../../server/street/embedded.ts";

const never = new AbortController().signal;

/** Queues calls of the given accounts on a full Slots of one; returns the order in which they got the slot. */
async function order(accounts: string[]): Promise<string[]> {
  const slots = new Slots(1);
  await slots.acquire(never, 60_000, "holder");
  const got: string[] = [];
  const calls = accounts.map((a, i) => slots.acquire(never, 60_000, a).then(() => got.push(`${a}${i}`)));
  for (let i = 0; i < accounts.length; i++) {
    slots.release();
    await Promise.resolve();
    await Promise.resolve();
  }
  await Promise.all(calls);
  return got;
}

describe("engine slots", () => {
  test("one account's long queue does not hold another's call behind all of it (round robin by account)", async () => {
    // a1 queues five calls, then a2 one and a3 two: a2 and a3 go in turn with a1, not after all of a1's
    expect(await order(["a1", "a1", "a1", "a1", "a1", "a2", "a3", "a3"])).toEqual(["a10", "a25", "a36", "a11", "a37", "a12", "a13", "a14"]);
  });

  test("one account alone is served in arrival order; no account is one line too", async () => {
    expect(await order(["a", "a", "a"])).toEqual(["a0", "a1", "a2"]);
    expect(await order(["", "", ""])).toEqual(["0", "1", "2"]);
  });

  test("at most max at once; a wait past its bound is refused 503 with Retry-After and leaves the line", async () => {
    const slots = new Slots(2);
    await slots.acquire(never, 10, "a");
    await slots.acquire(never, 10, "b");
    const err = await slots.acquire(never, 10, "a").then(
      () => null,
      (e) => e,
    );
    expect(err?.code).toBe("ENGINE_UNAVAILABLE");
    expect(err?.message).toContain("no engine slot came free within 10 ms");
    expect(err?.details?.retryAfterSec).toBe(1);
    expect(slots.waitingCount).toBe(0);
    // the timed-out call left no trace: a later one gets the next free slot
    const later = slots.acquire(never, 60_000, "c");
    slots.release();
    await later;
    expect(slots.waitingCount).toBe(0);
  });

  test("a call whose client went away leaves the line; the next account is served", async () => {
    const slots = new Slots(1);
    await slots.acquire(never, 60_000);
    const gone = new AbortController();
    const got: string[] = [];
    const a = slots.acquire(gone.signal, 60_000, "a").then(
      () => got.push("a"),
      () => got.push("a went away"),
    );
    const b = slots.acquire(never, 60_000, "b").then(() => got.push("b"));
    gone.abort();
    await a;
    expect(slots.waitingCount).toBe(1);
    slots.release();
    await b;
    expect(got).toEqual(["a went away", "b"]);
  });
});
