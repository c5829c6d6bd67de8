/**
 * One engine process of the pool (engine-pool.ts starts it with Bun's IPC): a Valhalla Actor over
 * the configuration it is sent, answering one call at a time. A native crash of the engine (a
 * SIGSEGV or SIGFPE on input the gateway failed to refuse, or Valhalla 3.6.1's centroid when the
 * locations' paths never meet) ends only this process: the server answers that one call with a
 * Valhalla error body and starts another process.
 *
 * Messages in: `{config, maxAnswerChars}` once, then `{id, method, query}` (method: the Actor's,
 * embedded.ts METHOD); out: `{ready: true}` once the Actor is open, then `{id, text}`, `{id, error}`
 * (the binding's error message, for engine-errors.ts) or `{id, tooLarge: chars}` (an answer longer
 * than maxAnswerChars is not sent: the server refuses it, see limits.ts MAX_ANSWER_BYTES).
 */
type ActorLike = Record<string, (query: string) => Promise<string>>;

let actor: ActorLike | null = null;
let maxAnswerChars = Number.POSITIVE_INFINITY;
const binding = import("@valhallajs/valhallajs") as unknown as Promise<{ Actor: new (c: string) => ActorLike }>;

// the server went away (or closed the channel): nothing more to do
process.on("disconnect", () => process.exit(0));

process.on("message", (m: { config?: string; maxAnswerChars?: number; id?: number; method?: string; query?: string }) => {
  if (m.config !== undefined) {
    const config = m.config;
    maxAnswerChars = m.maxAnswerChars ?? maxAnswerChars;
    void binding.then(({ Actor }) => {
      actor = new Actor(config);
      process.send!({ ready: true });
    });
    return;
  }
  const id = m.id!;
  const method = actor?.[m.method!];
  if (!actor || !method) {
    process.send!({ id, error: `Unknown: the engine process has no ${actor ? `method ${m.method}` : "configuration"}` });
    return;
  }
  method.call(actor, m.query!).then(
    (text) => process.send!(text.length > maxAnswerChars ? { id, tooLarge: text.length } : { id, text }),
    (e: unknown) => process.send!({ id, error: String((e as Error)?.message ?? e) }),
  );
});
export {};
