import type { Random } from './random.js';

export const SESSION_ID = '6c1f2e0a-4b7d-4f1e-9a3c-2d8e5b7a9c10';
export const MODEL = 'claude-sonnet-4-5-20250929';

export interface ToolCall {
  name: string;
  input: object;
  output: string;
  error?: boolean;
}

/**
 * Builds a Claude Code JSONL transcript record by record: chains `parentUuid`, advances a fixed
 * clock by random steps and grows the cached input tokens as the conversation gets longer.
 */
export class TranscriptWriter {
  readonly lines: string[] = [];
  /** Records written while true belong to a sub-agent (Task tool) sidechain. */
  sidechain = false;
  private clock = Date.parse('2025-06-11T14:21:07.000Z');
  private uuidCounter = 0;
  private parent: string | null = null;
  private inputTokens = 18_000;

  constructor(private readonly random: Random) {}

  /** The clock's current time, in epoch milliseconds. */
  get now(): number {
    return this.clock;
  }

  /** Advances the clock by between `low` and `high` milliseconds; returns the new ISO time. */
  tick(low: number, high: number): string {
    this.clock += this.random.between(low, high);
    return new Date(this.clock).toISOString();
  }

  /** Appends a record as is (no chaining): for the leading summary line. */
  raw(record: Record<string, unknown>): void {
    this.lines.push(JSON.stringify(record));
  }

  write(record: Record<string, unknown>): void {
    const id = this.uuid();
    this.lines.push(
      JSON.stringify({
        parentUuid: this.parent,
        userType: 'external',
        cwd: '/home/oncall/checkout',
        sessionId: SESSION_ID,
        version: '1.0.83',
        gitBranch: 'main',
        ...record,
        isSidechain: this.sidechain,
        uuid: id,
      }),
    );
    this.parent = id;
  }

  user(text: string): void {
    this.write({
      type: 'user',
      message: { role: 'user', content: text },
      timestamp: this.tick(20_000, 90_000),
    });
  }

  /** One assistant turn: optional text, then one or more tool calls, each answered. */
  step(text: string | undefined, calls: ToolCall[]): void {
    const { between, hex } = this.random;
    const messageId = `msg_01${hex(22)}`;
    const requestId = `req_011C${hex(20)}`;
    this.inputTokens += 400;
    const usage = () => ({
      input_tokens: between(3, 9),
      cache_creation_input_tokens: between(200, 2000),
      cache_read_input_tokens: this.inputTokens,
      output_tokens: between(60, 400),
    });
    const blocks: object[] = [];
    if (text) blocks.push({ type: 'text', text });
    const ids = calls.map(() => `toolu_01${hex(22)}`);
    calls.forEach((call, index) => {
      blocks.push({ type: 'tool_use', id: ids[index], name: call.name, input: call.input });
    });
    // Claude Code writes one record per content block of a streamed message (same message.id).
    for (const block of blocks) {
      this.write({
        type: 'assistant',
        message: {
          id: messageId,
          type: 'message',
          role: 'assistant',
          model: MODEL,
          content: [block],
          stop_reason: null,
          usage: usage(),
        },
        requestId,
        timestamp: this.tick(800, 6000),
      });
    }
    calls.forEach((call, index) => {
      this.inputTokens += Math.round(call.output.length / 3.6);
      this.write({
        type: 'user',
        message: {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: ids[index],
              content: call.output,
              is_error: call.error === true,
            },
          ],
        },
        toolUseResult: { stdout: call.output.slice(0, 200), stderr: '', interrupted: false },
        timestamp: this.tick(300, 9000),
      });
    });
  }

  answer(text: string): void {
    const { between, hex } = this.random;
    this.inputTokens += 300;
    this.write({
      type: 'assistant',
      message: {
        id: `msg_01${hex(22)}`,
        type: 'message',
        role: 'assistant',
        model: MODEL,
        content: [{ type: 'text', text }],
        stop_reason: 'end_turn',
        usage: {
          input_tokens: 6,
          cache_creation_input_tokens: 900,
          cache_read_input_tokens: this.inputTokens,
          output_tokens: between(200, 700),
        },
      },
      requestId: `req_011C${hex(20)}`,
      timestamp: this.tick(3000, 15_000),
    });
  }

  private uuid(): string {
    const { hex } = this.random;
    this.uuidCounter++;
    return `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${String(this.uuidCounter).padStart(12, '0')}`;
  }
}
