/**
 * Finds the NotificationResponse messages (`A`) in a stream of Postgres backend protocol bytes,
 * chunk by chunk (a message may span chunks). Every other message is skipped by its length, without
 * being copied.
 */
export class NotificationScanner {
  /** Bytes of a message (or of its 5-byte header) that began in an earlier chunk. */
  private partial: Buffer | undefined;
  /** Bytes of a skipped message still to come in later chunks. */
  private skip = 0;

  constructor(private readonly emit: (channel: string, payload: string) => void) {}

  push(chunk: Uint8Array): void {
    let buf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (this.skip > 0) {
      const n = Math.min(this.skip, buf.length);
      this.skip -= n;
      buf = buf.subarray(n);
    }
    if (this.partial !== undefined) {
      buf = Buffer.concat([this.partial, buf]);
      this.partial = undefined;
    }
    let i = 0;
    while (i < buf.length) {
      const left = buf.length - i;
      if (left < 5) {
        this.partial = Buffer.from(buf.subarray(i));
        return;
      }
      const total = 1 + buf.readInt32BE(i + 1);
      if (buf[i] !== 0x41) {
        if (left < total) {
          this.skip = total - left;
          return;
        }
        i += total;
        continue;
      }
      if (left < total) {
        this.partial = Buffer.from(buf.subarray(i));
        return;
      }
      // Int32 process id, channel (C string), payload (C string).
      const channelStart = i + 9;
      const channelEnd = buf.indexOf(0, channelStart);
      const payloadEnd = buf.indexOf(0, channelEnd + 1);
      if (channelEnd > 0 && payloadEnd > 0 && payloadEnd < i + total) {
        this.emit(
          buf.toString('utf8', channelStart, channelEnd),
          buf.toString('utf8', channelEnd + 1, payloadEnd),
        );
      }
      i += total;
    }
  }
}
