/** A spinner on stderr while the model or the summarizer works; drawn only on a terminal. */
import type { CliIo } from './io.js';

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export class Spinner {
  private timer?: ReturnType<typeof setInterval>;
  private frame = 0;
  private label = '';

  constructor(private readonly io: CliIo) {}

  start(label: string): void {
    if (!this.io.stderrIsTty) return;
    this.label = label;
    if (this.timer) return;
    this.timer = setInterval(() => {
      this.frame = (this.frame + 1) % FRAMES.length;
      this.io.stderr(`\r\x1b[2K${FRAMES[this.frame]} ${this.label}`);
    }, 80);
    this.timer.unref?.();
  }

  stop(): void {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = undefined;
    this.io.stderr('\r\x1b[2K');
  }
}
