/** `orrery chat`: an interactive session with a real model; Ctrl-C leaves the session intact. */
import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import { getText } from '../events/event-helpers.js';
import { type AgentEvent, isPartialEvent } from '../runtime/agents/agent.js';
import { errorMessage } from '../util/error-message.js';
import { plural } from '../util/plural.js';
import {
  addAgentOptions,
  agentOptionsOf,
  createCliRunner,
  resolveAgentSettings,
  Spinner,
} from './agent-runner.js';
import { addStoreOptions, nonEmpty, type StoreFlags, withStore } from './common.js';
import { ChatTurnsFailedError } from './errors.js';
import type { CliIo } from './io.js';
import { renderPart } from './render-event.js';

interface ChatFlags extends StoreFlags {
  session?: string;
  agent?: string;
  model?: string;
  /** `--no-stream` sets it false. */
  stream: boolean;
}

/**
 * Prints a turn's events: streamed text as it arrives (`assistant> ` then the deltas), a stored
 * answer whole unless its text was just streamed, and each function call and response.
 */
class TurnPrinter {
  /** The author whose streamed text is on the current line, if any. */
  private streaming?: string;

  constructor(
    private readonly io: CliIo,
    private readonly spinner: Spinner,
  ) {}

  print(event: AgentEvent): void {
    if (isPartialEvent(event)) {
      const text = getText(event);
      if (text === '') return;
      if (this.streaming !== event.author) {
        this.endLine();
        this.spinner.stop();
        this.io.stdout(`${event.author}> `);
        this.streaming = event.author;
      }
      this.io.stdout(text);
      return;
    }
    const streamed = this.streaming === event.author;
    this.endLine();
    if (event.author === 'user' || !event.content) return;
    const text = getText(event);
    if (text && !streamed) this.io.stdout(`${event.author}> ${text}\n`);
    for (const part of event.content.parts) {
      if (part.functionCall || part.functionResponse) this.io.stdout(`  ${renderPart(part)}\n`);
    }
  }

  /** Ends a line of streamed text (before an error, or the next event). */
  endLine(): void {
    if (this.streaming === undefined) return;
    this.io.stdout('\n');
    this.streaming = undefined;
  }
}

export function registerChat(program: Command, io: CliIo): void {
  addStoreOptions(
    addAgentOptions(
      program
        .command('chat')
        .description(
          'chat with the model in ORRERY_MODEL (or an --agent module); compaction runs at the environment settings',
        )
        .option(
          '--session <id>',
          'session to continue (created when missing; default: a new one)',
          nonEmpty('--session'),
        )
        .option('--no-stream', 'print each answer whole instead of as it arrives'),
    ),
  )
    .addHelpText(
      'after',
      `
Examples:
  ORRERY_MODEL=google:gemini-2.5-flash orrery chat
  ORRERY_MODEL=openai-compatible:qwen3:8b orrery chat --session notes
  orrery chat --agent examples/agent.ts --model openai:gpt-4o-mini

Answers print as they arrive when the model streams (--no-stream: whole). Each compaction
or elision rule prints a line (trigger, tokens before -> after). Ctrl-C cancels the answer in progress; Ctrl-C
at the prompt (or Ctrl-D) quits. Stored events are never lost.`,
    )
    .action(async (flags: ChatFlags, command: Command) => {
      // Every setting checked before the store is opened: a bad one writes nothing.
      const settings = await resolveAgentSettings(io, agentOptionsOf(flags, command));
      await withStore(io, flags, async (service) => {
        const sessionId = flags.session ?? crypto.randomUUID();
        const key = { appName: settings.appName, userId: flags.user, sessionId };
        const spinner = new Spinner(io);
        const runner = createCliRunner({ io, settings, service, spinner });
        const existing = await service.getSession(key);
        if (!existing) await service.createSession(key);
        io.stderr(
          `${existing ? 'continuing' : 'new'} session ${sessionId} with ${settings.label} (Ctrl-C to quit)\n${settings.thresholdLine}\n`,
        );
        const readline = createInterface({
          input: io.stdin,
          output: io.stdoutStream,
          terminal: io.stdinIsTty,
        });
        // Piped input (a script, a file): no prompts in the output, and a failed turn fails the run.
        const interactive = io.stdinIsTty;
        const prompt = () => {
          if (interactive) readline.prompt();
        };
        let failedTurns = 0;
        let running: AbortController | undefined;
        readline.on('SIGINT', () => {
          if (running) {
            running.abort();
            return;
          }
          readline.close();
        });
        readline.setPrompt('you> ');
        prompt();
        for await (const line of readline) {
          const message = line.trim();
          if (message === '') {
            prompt();
            continue;
          }
          running = new AbortController();
          const printer = new TurnPrinter(io, spinner);
          try {
            for await (const event of runner.run({
              userId: flags.user,
              sessionId,
              newMessage: message,
              signal: running.signal,
              streaming: flags.stream,
            })) {
              printer.print(event);
            }
          } catch (error) {
            spinner.stop();
            printer.endLine();
            failedTurns++;
            if (running.signal.aborted)
              io.stderr('(cancelled; the session keeps everything stored so far)\n');
            else io.stderr(`error: ${errorMessage(error)}\n`);
          } finally {
            spinner.stop();
            running = undefined;
          }
          prompt();
        }
        await runner.flush();
        io.stderr(`${interactive ? '\n' : ''}session ${sessionId} saved\n`);
        if (!interactive && failedTurns > 0) {
          throw new ChatTurnsFailedError({
            message: `${plural(failedTurns, 'message')} got no answer (errors above); session ${sessionId} keeps what was stored`,
          });
        }
      });
    });
}
