/**
 * Valhalla's centroid in a process of its own (embedded.ts IsolatedCentroid starts it with Bun's
 * IPC): Valhalla 3.6.1 dereferences a null tile and takes its whole process down when the
 * locations' paths never meet (thor/centroid.cc FormPaths with no intersection found; found by
 * test/fuzz, e.g. locations [37.7793,-122.4193] and [37.9639,-122.483] on the downtown San
 * Francisco extract). Here such a crash ends only this process; the server answers the request
 * with Valhalla's "no path" refusal and starts another one.
 *
 * Messages in: `{config}` once (the engine configuration, JSON), then `{id, query}`; out: `{id,
 * text}` or `{id, error}` (the binding's error message, for engine-errors.ts).
 */
const { Actor } = (await import("@valhallajs/valhallajs")) as unknown as { Actor: new (c: string) => { centroid(q: string): Promise<string> } };

let actor: { centroid(q: string): Promise<string> } | null = null;

// the server went away (or closed the channel): nothing more to do
process.on("disconnect", () => process.exit(0));

process.on("message", (m: { config?: string; id?: number; query?: string }) => {
  if (m.config !== undefined) {
    actor = new Actor(m.config);
    return;
  }
  const id = m.id!;
  if (!actor) {
    process.send!({ id, error: "Centroid error: the centroid process has no configuration" });
    return;
  }
  actor.centroid(m.query!).then(
    (text) => process.send!({ id, text }),
    (e: unknown) => process.send!({ id, error: String((e as Error)?.message ?? e) }),
  );
});
export {};
