/**
 * One engine process of the pool (engine-pool.ts starts it): a Valhalla Actor over the
 * configuration it is sent, answering one call at a time. A native crash of the engine (a SIGSEGV
 * or SIGFPE on input the gateway failed to refuse, or Valhalla 3.6.1's centroid when the
 * locations' paths never meet) ends only this process: the server answers that one call with a
 * Valhalla error body and starts another process.
 *
 * Bun's IPC carries the set-up, once: `{config, maxAnswerChars, socket, token}`. The calls go over
 * the pool's Unix socket as frames (frames.ts): this process connects, opens its Actor and says
 * HELLO with its token (it is then ready); each call frame (kind = the method's index in METHODS,
 * payload = the query) is answered with ANSWER (the text), FAILED (the binding's error message, for
 * engine-errors.ts) or TOO_LARGE (an answer longer than maxAnswerChars is not sent: the server
 * refuses it, see limits.ts MAX_ANSWER_BYTES).
 */
import { openActor } from "../../shared/street-engine.ts";
import { encodeFrame, FrameReader, FrameWriter, KIND, METHODS } from "./frames.ts";

interface Setup {
  config: string;
  maxAnswerChars: number;
  socket: string;
  token: string;
}

// the server went away (or closed the channel): nothing more to do
process.on("disconnect", () => process.exit(0));

process.once("message", (m: Setup) => {
  void start(m);
});

async function start(setup: Setup): Promise<void> {
  const actor = await openActor(setup.config);
  let writer: FrameWriter | null = null;
  const reader = new FrameReader(({ id, kind, payload }) => {
    const name = METHODS[kind];
    const method = name === undefined ? undefined : actor[name];
    if (!method) {
      writer!.write(encodeFrame(id, KIND.FAILED, `Unknown: the engine process has no method ${name ?? kind}`));
      return;
    }
    method.call(actor, payload).then(
      (text) => writer!.write(text.length > setup.maxAnswerChars ? encodeFrame(id, KIND.TOO_LARGE, String(text.length)) : encodeFrame(id, KIND.ANSWER, text)),
      (e: unknown) => writer!.write(encodeFrame(id, KIND.FAILED, String((e as Error)?.message ?? e))),
    );
  });
  await Bun.connect({
    unix: setup.socket,
    socket: {
      open(socket) {
        writer = new FrameWriter(socket);
        writer.write(encodeFrame(0, KIND.HELLO, setup.token));
      },
      data(_socket, chunk) {
        reader.push(chunk);
      },
      drain() {
        writer?.drained();
      },
      close() {
        process.exit(0);
      },
    },
  });
}
export {};
