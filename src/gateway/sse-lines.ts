/**
 * The lines of an upstream's server-sent event stream as its bytes arrive, for the dialects that
 * put the stored answer together from the stream (Chat Completions, Anthropic Messages).
 */
export class SseLines {
  private readonly decoder = new TextDecoder();
  private buffered = '';

  /** The lines `chunk` completes, without their `\n` or `\r\n`. */
  push(chunk: Uint8Array): string[] {
    this.buffered += this.decoder.decode(chunk, { stream: true });
    const lines: string[] = [];
    let newline = this.buffered.indexOf('\n');
    while (newline !== -1) {
      lines.push(this.buffered.slice(0, newline).replace(/\r$/, ''));
      this.buffered = this.buffered.slice(newline + 1);
      newline = this.buffered.indexOf('\n');
    }
    return lines;
  }

  /** At the stream's end: the lines still held, the last one even when no newline ended it. */
  end(): string[] {
    const lines = this.push(new Uint8Array());
    if (this.buffered !== '') lines.push(this.buffered);
    return lines;
  }
}
