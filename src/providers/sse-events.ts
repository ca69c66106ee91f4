// A small server-sent-events parser: bytes in (split anywhere, inside a line or a UTF-8 sequence),
// each complete event's `data` out. It reads a stream exactly as the AI SDK's pipeline does
// (TextDecoderStream, then eventsource-parser's EventSourceParserStream) — a leading BOM dropped,
// lines ended by `\n`, `\r\n` or `\r`, `data:` lines joined by `\n` (one space after the colon
// dropped), comments and the `event:`, `id:` and `retry:` fields ignored (the chat-completions
// reader reads the data only), an event dispatched at a blank line when it had data, and an event the
// stream ends inside dropped — so the lean chat-completions reader (lean-chat-stream.ts) sees the
// same events the SDK would, without a web stream per network read.

const LF = 10;
const CR = 13;

export class SseEventParser {
  private readonly decoder = new TextDecoder();
  /** Text not yet ended by a line break (a trailing `\r` waits here too: a `\n` may follow it). */
  private pending = '';
  private data = '';
  private dataLines = 0;

  /** `onData` receives each complete event's data, in order. */
  constructor(private readonly onData: (data: string) => void) {}

  /** One network read's bytes. */
  push(bytes: Uint8Array): void {
    const text = this.decoder.decode(bytes, { stream: true });
    if (text) this.feed(text);
  }

  private feed(text: string): void {
    const input = this.pending ? this.pending + text : text;
    let start = 0;
    const length = input.length;
    for (;;) {
      // The next line break at or after `start`.
      let end = start;
      while (end < length) {
        const code = input.charCodeAt(end);
        if (code === LF || code === CR) break;
        end++;
      }
      if (end === length) break;
      let next = end + 1;
      if (input.charCodeAt(end) === CR) {
        // `\r` last in the input: it may be the first half of `\r\n`, decided by the next read.
        if (next === length) break;
        if (input.charCodeAt(next) === LF) next++;
      }
      this.line(input, start, end);
      start = next;
    }
    this.pending = start === 0 ? input : input.slice(start);
  }

  private line(input: string, start: number, end: number): void {
    if (start === end) {
      if (this.dataLines > 0) {
        const data = this.data;
        this.data = '';
        this.dataLines = 0;
        this.onData(data);
      }
      return;
    }
    if (input.charCodeAt(start) === 58) return; // `:` a comment
    const colon = input.indexOf(':', start);
    const fieldEnd = colon < 0 || colon > end ? end : colon;
    // Only `data` matters here; other fields (`event`, `id`, `retry`, unknown ones) are skipped as the SDK skips them.
    if (fieldEnd - start !== 4 || !input.startsWith('data', start)) return;
    let valueStart = fieldEnd === end ? end : fieldEnd + 1;
    if (valueStart < end && input.charCodeAt(valueStart) === 32) valueStart++;
    const value = input.slice(valueStart, end);
    this.data = this.dataLines === 0 ? value : `${this.data}\n${value}`;
    this.dataLines++;
  }
}
