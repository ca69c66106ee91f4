// Keeps the first `limit` bytes of a command's output stream and counts the rest: every environment
// driver, and the device daemon (src/envd/) running commands for one, bounds what it keeps of
// standard output and standard error the same way.
export class OutputBuffer {
  private chunks: Buffer[] = [];
  kept = 0;
  total = 0;
  constructor(private readonly limit: number) {}
  push(chunk: Buffer) {
    this.total += chunk.length;
    const room = this.limit - this.kept;
    if (room <= 0) return;
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.chunks.push(part);
    this.kept += part.length;
  }
  get truncated(): boolean {
    return this.total > this.kept;
  }
  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
  text(): string {
    return this.bytes().toString('utf8');
  }
}
