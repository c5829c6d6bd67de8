/**
 * A stand-in for a Valhalla engine, started by tests on a free port. It records every request it
 * receives and answers according to `mode`: a success, a Valhalla error, garbage, an engine crash
 * (500), a very large body, nothing at all (hangs until the gateway's time-out), or headers
 * followed by silence (stall).
 * startDroppingServer() accepts TCP connections and closes them without an HTTP answer.
 */
export type StandInMode = "success" | "valhalla-error" | "garbage" | "server-error" | "big" | "hang" | "stall";

export interface Received {
  method: string;
  path: string;
  query: string;
  contentType: string | null;
  body: string;
  headers: Record<string, string>;
}

export interface StandIn {
  readonly url: string;
  readonly received: Received[];
  mode: StandInMode;
  /** size of the "big" answer in bytes */
  bigBytes: number;
  stop(): Promise<void>;
}

export const VALHALLA_ERROR_BODY = JSON.stringify({ error_code: 171, error: "No suitable edges near location", status_code: 400, status: "Bad Request" });

export function successBody(action: string): string {
  if (action === "locate") return JSON.stringify([{ input_lat: 1, input_lon: 2, edges: null, nodes: null }]);
  if (action === "status") return JSON.stringify({ version: "3.5.0", tileset_last_modified: 0, available_actions: ["route"] });
  if (action === "isochrone" || action === "expansion") return JSON.stringify({ type: "FeatureCollection", features: [] });
  return JSON.stringify({ trip: { status: 0, status_message: "Found route between points", units: "kilometers", legs: [] } });
}

export function startStandIn(): StandIn {
  const received: Received[] = [];
  const pending: Array<() => void> = [];
  const state: { mode: StandInMode; bigBytes: number } = { mode: "success", bigBytes: 8 << 20 };
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const url = new URL(req.url);
      received.push({
        method: req.method,
        path: url.pathname,
        query: url.search.replace(/^\?/, ""),
        contentType: req.headers.get("content-type"),
        body: await req.text(),
        headers: Object.fromEntries(req.headers),
      });
      const action = url.pathname.slice(1);
      const json = { "content-type": "application/json;charset=utf-8" };
      switch (state.mode) {
        case "success":
          return new Response(successBody(action), { headers: json });
        case "valhalla-error":
          return new Response(VALHALLA_ERROR_BODY, { status: 400, headers: json });
        case "garbage":
          return new Response("\u0000<html>not valhalla</html>", { status: 200, headers: { "content-type": "text/html" } });
        case "server-error":
          return new Response("Internal Server Error", { status: 500, headers: { "content-type": "text/plain" } });
        case "big": {
          const total = state.bigBytes;
          let sent = 0;
          const piece = new TextEncoder().encode(`{"type":"Feature","geometry":null,"properties":{}},`.padEnd(1024, " "));
          return new Response(
            new ReadableStream({
              start(c) {
                c.enqueue(new TextEncoder().encode('{"type":"FeatureCollection","features":['));
              },
              pull(c) {
                if (sent >= total) {
                  c.enqueue(new TextEncoder().encode('{"type":"Feature","geometry":null,"properties":{}}]}'));
                  c.close();
                  return;
                }
                c.enqueue(piece);
                sent += piece.byteLength;
              },
            }),
            { headers: json },
          );
        }
        case "stall":
          return new Response(new ReadableStream({ pull: () => new Promise<void>(() => {}) }), { headers: json });
        case "hang":
          return new Promise<Response>((resolve) => pending.push(() => resolve(new Response("late", { status: 200 }))));
      }
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    received,
    get mode() {
      return state.mode;
    },
    set mode(m: StandInMode) {
      state.mode = m;
    },
    get bigBytes() {
      return state.bigBytes;
    },
    set bigBytes(n: number) {
      state.bigBytes = n;
    },
    async stop() {
      for (const release of pending.splice(0)) release();
      await server.stop(true);
    },
  };
}

/** A TCP server that accepts a connection, reads the request and closes without answering. */
export function startDroppingServer(): { url: string; stop(): void } {
  const listener = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      data(socket) {
        socket.end();
      },
    },
  });
  return { url: `http://127.0.0.1:${listener.port}`, stop: () => listener.stop(true) };
}
