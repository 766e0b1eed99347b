/**
 * Protocol Buffers' wire format, written forward into one growing buffer: what the OTLP span
 * export (otlp-trace-request.ts) encodes its requests with. A nested message or a string is
 * written in place behind a one-byte length, which is widened (the body moved on) in the rare
 * case it reaches 128 bytes: one pass, no size estimate first, no buffer per message.
 */

/** The wire types this writer writes. */
export const WireType = { varint: 0, fixed64: 1, lengthDelimited: 2, fixed32: 5 } as const;

export class ProtobufWriter {
  #buffer: Buffer;
  #position = 0;

  constructor(initialSize = 4_096) {
    this.#buffer = Buffer.allocUnsafe(initialSize);
  }

  /** The bytes written so far, as a copy (the writer may be reset and reused). */
  finish(): Uint8Array {
    return Uint8Array.prototype.slice.call(this.#buffer, 0, this.#position);
  }

  /** Forgets what was written; keeps the buffer. */
  reset(): void {
    this.#position = 0;
  }

  tag(field: number, wireType: number): void {
    this.varint((field << 3) | wireType);
  }

  /** A non-negative integer below 2^53, or a negative one as int64 (ten bytes). */
  varint(value: number): void {
    if (value >= 0 && value <= 0x7f) {
      this.#room(1);
      this.#buffer[this.#position++] = value;
      return;
    }
    this.#room(10);
    const buffer = this.#buffer;
    let position = this.#position;
    let low: number;
    let high: number;
    if (value >= 0) {
      low = value >>> 0;
      high = Math.floor(value / 0x1_0000_0000) >>> 0;
    } else {
      // Two's complement over 64 bits.
      const magnitude = -value;
      low = ~(magnitude >>> 0) >>> 0;
      high = ~(Math.floor(magnitude / 0x1_0000_0000) >>> 0) >>> 0;
      low = (low + 1) >>> 0;
      if (low === 0) high = (high + 1) >>> 0;
    }
    while (high !== 0 || low > 0x7f) {
      buffer[position++] = (low & 0x7f) | 0x80;
      low = ((low >>> 7) | (high << 25)) >>> 0;
      high >>>= 7;
    }
    buffer[position++] = low;
    this.#position = position;
  }

  fixed32(value: number): void {
    this.#room(4);
    this.#buffer.writeUInt32LE(value >>> 0, this.#position);
    this.#position += 4;
  }

  /** An unsigned 64-bit value given as its two 32-bit halves. */
  fixed64(low: number, high: number): void {
    this.#room(8);
    this.#buffer.writeUInt32LE(low >>> 0, this.#position);
    this.#buffer.writeUInt32LE(high >>> 0, this.#position + 4);
    this.#position += 8;
  }

  double(value: number): void {
    this.#room(8);
    this.#buffer.writeDoubleLE(value, this.#position);
    this.#position += 8;
  }

  /** A length-delimited UTF-8 string. */
  string(value: string): void {
    const units = value.length;
    if (units <= 0x7f) {
      // Names, keys and most values are short ASCII: copied unit by unit, no call into C++.
      this.#room(1 + units);
      const buffer = this.#buffer;
      const start = this.#position + 1;
      let ascii = true;
      for (let i = 0; i < units; i += 1) {
        const unit = value.charCodeAt(i);
        if (unit > 0x7f) {
          ascii = false;
          break;
        }
        buffer[start + i] = unit;
      }
      if (ascii) {
        buffer[start - 1] = units;
        this.#position = start + units;
        return;
      }
    }
    // Up to three bytes per UTF-16 unit: a short string's length fits one byte whatever it holds.
    if (units <= 42) {
      this.#room(1 + units * 3);
      const written = this.#buffer.write(value, this.#position + 1, "utf8");
      this.#buffer[this.#position] = written;
      this.#position += 1 + written;
      return;
    }
    const length = Buffer.byteLength(value, "utf8");
    this.varint(length);
    this.#room(length);
    this.#position += this.#buffer.write(value, this.#position, length, "utf8");
  }

  /** Length-delimited bytes given as lowercase hex (a trace or span id). */
  hex(value: string): void {
    const length = value.length >>> 1;
    this.varint(length);
    this.#room(length);
    this.#position += this.#buffer.write(value, this.#position, length, "hex");
  }

  bytes(value: Uint8Array): void {
    this.varint(value.length);
    this.#room(value.length);
    this.#buffer.set(value, this.#position);
    this.#position += value.length;
  }

  /** Bytes already encoded (a cached message), as they are. */
  raw(value: Uint8Array): void {
    this.#room(value.length);
    this.#buffer.set(value, this.#position);
    this.#position += value.length;
  }

  /** Starts a nested message (after its tag); returns what `end` takes. */
  begin(): number {
    this.#room(1);
    this.#position += 1;
    return this.#position;
  }

  /** Ends the nested message `begin` started, writing its length before it. */
  end(start: number): void {
    const length = this.#position - start;
    if (length <= 0x7f) {
      this.#buffer[start - 1] = length;
      return;
    }
    // Widen the length: move the body on by the bytes the varint needs beyond one.
    let extra = 0;
    for (let rest = length >>> 7; rest > 0; rest >>>= 7) extra += 1;
    this.#room(extra);
    this.#buffer.copyWithin(start + extra, start, this.#position);
    let position = start - 1;
    let rest = length;
    while (rest > 0x7f) {
      this.#buffer[position++] = (rest & 0x7f) | 0x80;
      rest >>>= 7;
    }
    this.#buffer[position] = rest;
    this.#position += extra;
  }

  #room(bytes: number): void {
    if (this.#position + bytes <= this.#buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.#buffer.length * 2, this.#position + bytes));
    this.#buffer.copy(grown, 0, 0, this.#position);
    this.#buffer = grown;
  }
}
