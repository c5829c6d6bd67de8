/**
 * Opening the embedded street engine (the npm binding of Valhalla), for the server (its engine
 * processes, or its own process with --engine-isolation none) and the pipeline (footpaths measured
 * on the streets) alike: one Actor per call, over a configuration (pipeline/schema/street.ts
 * datasetEngineConfig makes one for a street dataset).
 *
 * Every Actor opened is kept, never collected: under Bun, an Actor created after another one was
 * garbage-collected answered with that one's native state (heights from its elevation folder, its
 * `tileset_last_modified`). Each kept Actor holds its tile cache.
 */

/** An Actor of the binding: JSON strings in, JSON strings out, one method per Valhalla action. */
export type ActorLike = Record<string, (query: string) => Promise<string>>;

const OPENED: ActorLike[] = [];

/** A new Actor over `config` (an object, or its JSON text). */
export async function openActor(config: object | string): Promise<ActorLike> {
  const { Actor } = (await import("@valhallajs/valhallajs")) as unknown as { Actor: new (c: string) => ActorLike };
  const actor = new Actor(typeof config === "string" ? config : JSON.stringify(config));
  OPENED.push(actor);
  return actor;
}
