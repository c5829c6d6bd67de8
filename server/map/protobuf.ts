/**
 * A growing protobuf writer (varints, tags, length-delimited fields, doubles, packed varints) and
 * zigzag encoding: what the map feature's two binary formats are written with, the vector tiles
 * (mvt.ts) and the label glyph ranges (glyphs.ts).
 */
export class ProtobufWriter {
  buf = new Uint8Array(1024);
  len = 0;
  private room(n: number) {
    if (this.len + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + n) size *= 2;
    const b = new Uint8Array(size);
    b.set(this.buf.subarray(0, this.len));
    this.buf = b;
  }
  varint(v: number) {
    this.room(10);
    while (v > 0x7f) {
      this.buf[this.len++] = (v % 128) | 0x80;
      v = Math.floor(v / 128);
    }
    this.buf[this.len++] = v;
  }
  tag(field: number, wire: number) {
    this.varint((field << 3) | wire);
  }
  bytes(field: number, b: Uint8Array) {
    this.tag(field, 2);
    this.varint(b.length);
    this.room(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
  }
  string(field: number, s: string) {
    this.bytes(field, new TextEncoder().encode(s));
  }
  double(field: number, v: number) {
    this.tag(field, 1);
    this.room(8);
    new DataView(this.buf.buffer, this.len, 8).setFloat64(0, v, true);
    this.len += 8;
  }
  packed(field: number, values: number[]) {
    const w = new ProtobufWriter();
    for (const v of values) w.varint(v);
    this.bytes(field, w.done());
  }
  done(): Uint8Array {
    return this.buf.slice(0, this.len);
  }
}

/** A signed integer zigzag-encoded for a varint (protobuf sint, MVT geometry deltas). */
export const zigzag = (n: number) => (n < 0 ? -2 * n - 1 : 2 * n);
