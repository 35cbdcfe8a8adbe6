/** `orrery chat`: an interactive session with a real model; Ctrl-C leaves the session intact. */
import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import { errorMessage } from '../events/errors.js';
import { getText } from '../events/event-helpers.js';
import { createCliRunner, resolveAgentSettings, Spinner } from './agent-runner.js';
import { addStoreOptions, nonEmpty, type StoreFlags, withStore } from './common.js';
import { ChatTurnsFailedError } from './errors.js';
import type { CliIo } from './io.js';
import { plural } from './plural.js';
import { renderPart } from './render-event.js';

export function registerChat(program: Command, io: CliIo): void {
  addStoreOptions(
    program
      .command('chat')
      .description(
        'chat with the model in ORRERY_MODEL; compaction runs at the environment settings',
      )
      .option(
        '--session <id>',
        'session to continue (created when missing; default: a new one)',
        nonEmpty('--session'),
      ),
  )
    .addHelpText(
      'after',
      `
Examples:
  ORRERY_MODEL=google:gemini-2.5-flash orrery chat
  ORRERY_MODEL=openai-compatible:qwen3:8b orrery chat --session notes

Each compaction prints a line (trigger, tokens before -> after). Ctrl-C cancels the answer
in progress; Ctrl-C at the prompt (or Ctrl-D) quits. Stored events are never lost.`,
    )
    .action(async (flags: StoreFlags & { session?: string }) => {
      // Every setting checked before the store is opened: a bad one writes nothing.
      const settings = await resolveAgentSettings(io);
      const { model } = settings;
      await withStore(io, flags, async (service) => {
        const sessionId = flags.session ?? crypto.randomUUID();
        const key = { appName: flags.app, userId: flags.user, sessionId };
        const spinner = new Spinner(io);
        const runner = createCliRunner({ io, settings, service, appName: flags.app, spinner });
        const existing = await service.getSession(key);
        if (!existing) await service.createSession(key);
        io.stderr(
          `${existing ? 'continuing' : 'new'} session ${sessionId} with ${model.modelId} (Ctrl-C to quit)\n`,
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
          try {
            for await (const event of runner.run({
              userId: flags.user,
              sessionId,
              newMessage: message,
              signal: running.signal,
            })) {
              if (event.author === 'user' || !event.content) continue;
              const text = getText(event);
              if (text) io.stdout(`${event.author}> ${text}\n`);
              for (const part of event.content.parts) {
                if (part.functionCall || part.functionResponse)
                  io.stdout(`  ${renderPart(part)}\n`);
              }
            }
          } catch (error) {
            spinner.stop();
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
