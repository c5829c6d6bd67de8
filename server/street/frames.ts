/**
 * The wire between the server and its engine processes (engine-pool.ts, engine-worker.ts): frames
 * over a Unix socket, each a 9-byte header (payload length u32 LE, call id u32 LE, kind u8) and a
 * UTF-8 payload. Bun's IPC messages cost more per call (each answer, a JSON text, was escaped into
 * a JSON message and parsed back); the raw bytes go as they are.
 *
 * Kinds, server to engine: the index of the Actor method in METHODS. Engine to server: ANSWER (the
 * answer's text), FAILED (the binding's error message), TOO_LARGE (the answer's length in
 * characters, as text: it is not sent), HELLO (the process's token, once, when its engine is open).
 */
import type { Socket } from "bun";

/** The Actor methods a call may name (embedded.ts METHOD maps the actions onto these). */
export const METHODS = ["route", "locate", "matrix", "optimizedRoute", "isochrone", "traceRoute", "traceAttributes", "height", "transitAvailable", "expansion", "centroid", "status"] as const;

export const KIND = { ANSWER: 0, FAILED: 1, TOO_LARGE: 2, HELLO: 3 } as const;

const HEADER = 9;

export interface Frame {
  id: number;
  kind: number;
  payload: string;
}

/** One frame's bytes. */
export function encodeFrame(id: number, kind: number, payload: string): Buffer {
  const len = Buffer.byteLength(payload, "utf8");
  const out = Buffer.allocUnsafe(HEADER + len);
  out.writeUInt32LE(len, 0);
  out.writeUInt32LE(id >>> 0, 4);
  out.writeUInt8(kind, 8);
  out.write(payload, HEADER, "utf8");
  return out;
}

/** Splits the bytes a socket delivers into frames, whatever the chunks' boundaries. */
export class FrameReader {
  private chunks: Buffer[] = [];
  private size = 0;

  constructor(private readonly onFrame: (f: Frame) => void) {}

  push(chunk: Uint8Array): void {
    this.chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    this.size += chunk.byteLength;
    while (this.size >= HEADER) {
      const head = this.peek(HEADER);
      const len = head.readUInt32LE(0);
      if (this.size < HEADER + len) return;
      const whole = this.take(HEADER + len);
      this.onFrame({ id: whole.readUInt32LE(4), kind: whole.readUInt8(8), payload: whole.toString("utf8", HEADER, HEADER + len) });
    }
  }

  /** The first `n` bytes (joined when they span chunks), left in place. */
  private peek(n: number): Buffer {
    if (this.chunks[0]!.length >= n) return this.chunks[0]!;
    const joined = Buffer.concat(this.chunks);
    this.chunks = [joined];
    return joined;
  }

  /** The first `n` bytes, removed. */
  private take(n: number): Buffer {
    const first = this.peek(n);
    const out = first.subarray(0, n);
    if (first.length === n) this.chunks.shift();
    else this.chunks[0] = first.subarray(n);
    this.size -= n;
    return out;
  }
}

/**
 * Writes to a Bun socket in order, whatever it accepts at once: what it does not take now waits for
 * its `drain` (call `drained()` from the socket's drain handler).
 */
export class FrameWriter {
  private queue: Buffer[] = [];

  constructor(private readonly socket: Socket<unknown>) {}

  write(frame: Buffer): void {
    if (this.queue.length > 0) {
      this.queue.push(frame);
      return;
    }
    const n = this.socket.write(frame);
    if (n < frame.length) this.queue.push(frame.subarray(Math.max(0, n)));
  }

  drained(): void {
    while (this.queue.length > 0) {
      const next = this.queue[0]!;
      const n = this.socket.write(next);
      if (n < next.length) {
        this.queue[0] = next.subarray(Math.max(0, n));
        return;
      }
      this.queue.shift();
    }
  }
}
