/**
 * The Engine's multiplexed stream format for a non-TTY attach: frames of an 8-byte header
 * (stream type: 1 stdout, 2 stderr; 3 bytes zero; payload size, 32-bit big-endian) and the
 * payload. Frames arrive split and joined arbitrarily across chunks.
 * @module
 */
export class StreamDemuxer {
  private pending: Buffer = Buffer.alloc(0);

  constructor(private readonly onFrame: (stream: 'stdout' | 'stderr', payload: Buffer) => void) {}

  write(chunk: Buffer): void {
    let buffer = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    while (buffer.length >= 8) {
      const size = buffer.readUInt32BE(4);
      if (buffer.length < 8 + size) break;
      const type = buffer[0];
      const payload = buffer.subarray(8, 8 + size);
      // Type 0 (stdin) never comes back from an exec; anything unknown is treated as stdout.
      this.onFrame(type === 2 ? 'stderr' : 'stdout', payload);
      buffer = buffer.subarray(8 + size);
    }
    this.pending = buffer.length === 0 ? Buffer.alloc(0) : Buffer.from(buffer);
  }
}
