// A stream's end marker: the `docker` type's commands print a random marker on standard output
// after the command has finished, so the driver can tell output that arrived whole from output an
// engine lost (a busy Podman service may close an exec's stream, or send nothing, although the exit
// code says success). The filter passes every byte on except the marker itself: it holds back only
// an end of the stream that could be the marker's beginning (so output streams on without delay),
// until more arrives or the stream ends.
export class EndMarkerFilter {
  private held: Buffer = Buffer.alloc(0);
  constructor(
    private readonly marker: Buffer,
    private readonly emit: (chunk: Buffer) => void,
  ) {}

  push(chunk: Buffer) {
    const all = this.held.length ? Buffer.concat([this.held, chunk]) : chunk;
    let hold = Math.min(all.length, this.marker.length);
    while (hold > 0 && !all.subarray(all.length - hold).equals(this.marker.subarray(0, hold))) hold--;
    const cut = all.length - hold;
    if (cut > 0) this.emit(all.subarray(0, cut));
    this.held = Buffer.from(all.subarray(cut));
  }

  /**
   * At the stream's end: whether it ended with the marker. Without it, what is held back (a beginning
   * of the marker, cut off by the loss) is dropped: the output is incomplete either way.
   */
  end(): boolean {
    const complete = this.held.equals(this.marker);
    this.held = Buffer.alloc(0);
    return complete;
  }
}
