/**
 * The routing engine behind the gateway, as a port: an EngineCall in, an EngineAnswer out (status,
 * content type, body as a string or a byte stream), no HTTP objects. The gateway validates, hands
 * the JSON to a StreetEngine and relays its answer (relay.ts); the planner's street paths
 * (paths.ts) read it. Two implementations: EmbeddedEngine (./embedded.ts, the default: Valhalla
 * over the active street dataset) and ExternalValhallaEngine (here: forwards over HTTP to
 * --valhalla-url); create-engine.ts picks one from the configuration.
 */
import { AppError } from "../errors.ts";
import type { StreetAction } from "./schemas/index.ts";

export interface EngineCall {
  readonly action: StreetAction;
  /** request JSON text; null for a bodiless call (GET /status) */
  readonly body: string | null;
  /** query string for the engine, without "?" ("" when none) */
  readonly query: string;
  /** the request JSON with the query's other parameters merged in, as Valhalla's HTTP server reads them */
  readonly merged: () => string;
  /** the requested output format (json when absent) */
  readonly format?: string;
  /** aborted when the client goes away */
  readonly signal: AbortSignal;
  /** whose call: the street endpoints' (default) or the planner's; the embedded engine gives each its own slots */
  readonly lane?: EngineLane;
  /** the API key's account, when keys are on: engine slots are shared fairly across accounts */
  readonly account?: string;
}

export type EngineLane = "gateway" | "planner";

/**
 * The engine's answer, any status. `body` is a string when the engine made the whole answer in
 * this process (the embedded engine: relayed as it is, never re-read), the bytes as they arrive
 * when it comes from elsewhere (an external engine: checked while relayed, never held whole), or
 * null when the engine sent none.
 */
export interface EngineAnswer {
  readonly status: number;
  /** the answer's content type; null when the engine named none */
  readonly contentType: string | null;
  /** the length the engine declared for a streamed body, when it declared one */
  readonly contentLength?: number;
  readonly body: string | ReadableStream<Uint8Array> | null;
}

/** The whole text of an engine answer (reads a streamed body to its end). */
export async function answerText(answer: EngineAnswer): Promise<string> {
  if (answer.body === null || typeof answer.body === "string") return answer.body ?? "";
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of answer.body) text += decoder.decode(chunk, { stream: true });
  return text + decoder.decode();
}

export interface StreetEngine {
  readonly kind: string;
  /**
   * The engine's answer: any status, body possibly streamed. Throws AppError("ENGINE_UNAVAILABLE")
   * when there is no answer (unreachable, timed out, not configured).
   */
  handle(call: EngineCall): Promise<EngineAnswer>;
  health(): Record<string, unknown>;
  /** called when the active dataset may have changed (the manifest was rewritten) */
  reload?(): Promise<void>;
  close?(): Promise<void>;
}

/** A Valhalla-compatible engine over HTTP: POST /{action} with the JSON body (GET when bodiless). */
export class ExternalValhallaEngine implements StreetEngine {
  readonly kind = "valhalla";
  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs: number,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  async handle(call: EngineCall): Promise<EngineAnswer> {
    const url = `${this.baseUrl}/${call.action}${call.query ? `?${call.query}` : ""}`;
    const abort = new AbortController();
    const onClientGone = () => abort.abort(new Error("client went away"));
    call.signal.addEventListener("abort", onClientGone, { once: true });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      abort.abort(new Error("timed out"));
    }, this.timeoutMs);
    let res: Response;
    try {
      res = await this.fetchImpl(url, {
        method: call.body === null ? "GET" : "POST",
        body: call.body,
        headers: call.body === null ? {} : { "content-type": "application/json" },
        signal: abort.signal,
        redirect: "manual",
      });
    } catch (e) {
      call.signal.removeEventListener("abort", onClientGone);
      throw new AppError(
        "ENGINE_UNAVAILABLE",
        timedOut ? `routing engine did not answer within ${this.timeoutMs} ms` : "routing engine unreachable",
        { cause: String(e) },
        { cause: e },
      );
    } finally {
      clearTimeout(timer);
    }
    const declared = res.headers.get("content-length");
    const answer = { status: res.status, contentType: res.headers.get("content-type"), ...(declared !== null ? { contentLength: Number(declared) } : {}) };
    if (!res.body) return { ...answer, body: null };
    // The time-out covers the wait for headers; while the body streams, it applies to each pause.
    const body = withIdleTimeout(res.body, this.timeoutMs, () => abort.abort(new Error("engine stalled")), () =>
      call.signal.removeEventListener("abort", onClientGone),
    );
    return { ...answer, body };
  }

  health() {
    return { engine: this.kind, timeout_ms: this.timeoutMs };
  }
}

/** Re-streams `body`, calling onIdle when one read waits longer than `ms`. */
function withIdleTimeout(body: ReadableStream<Uint8Array>, ms: number, onIdle: () => void, onEnd: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(ctrl) {
      const t = setTimeout(onIdle, ms);
      try {
        const { done, value } = await reader.read();
        if (done) {
          onEnd();
          ctrl.close();
        } else ctrl.enqueue(value);
      } catch (e) {
        onEnd();
        ctrl.error(e);
      } finally {
        clearTimeout(t);
      }
    },
    cancel(reason) {
      onEnd();
      return reader.cancel(reason);
    },
  });
}
