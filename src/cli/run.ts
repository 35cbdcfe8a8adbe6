/** `orrery run --session ID "message"`: one invocation, its events printed. */
import type { Command } from 'commander';
import type { Event } from '../events/types.js';
import {
  addAgentOptions,
  agentOptionsOf,
  createCliRunner,
  resolveAgentSettings,
  Spinner,
} from './agent-runner.js';
import { addStoreOptions, nonEmpty, type StoreFlags, withStore, writeJson } from './common.js';
import { CliUsageError } from './errors.js';
import type { CliIo } from './io.js';
import { renderContent } from './render-event.js';

interface RunFlags extends StoreFlags {
  session?: string;
  json?: boolean;
  agent?: string;
  model?: string;
}

export function registerRun(program: Command, io: CliIo): void {
  addStoreOptions(
    addAgentOptions(program.command('run'))
      .description(
        'run one invocation of the agent on ORRERY_MODEL (or an --agent module) and print its events',
      )
      .argument('<message>', 'the user message')
      .option(
        '--session <id>',
        'session to continue (created when missing; default: a new one)',
        nonEmpty('--session'),
      )
      .option('--json', 'print the events as JSON'),
  )
    .addHelpText(
      'after',
      '\nExamples:\n  ORRERY_MODEL=google:gemini-2.5-flash orrery run --session demo "What changed in the last deploy?"\n  orrery run --session demo --json "and before that?"\n  orrery run --agent examples/agent.ts --model openai:gpt-4o-mini "What is in README.md?"',
    )
    .action(async (message: string, flags: RunFlags, command: Command) => {
      if (message.trim() === '') {
        throw new CliUsageError({
          field: 'message',
          message: 'the message is empty: pass the text to send, e.g. orrery run "What changed?"',
        });
      }
      // Every setting checked before the store is opened: a bad one writes nothing.
      const settings = await resolveAgentSettings(io, agentOptionsOf(flags, command));
      await withStore(io, flags, async (service) => {
        const sessionId = flags.session ?? crypto.randomUUID();
        const key = { appName: settings.appName, userId: flags.user, sessionId };
        const spinner = new Spinner(io);
        const runner = createCliRunner({ io, settings, service, spinner });
        if (!(await service.getSession(key))) await service.createSession(key);
        const events: Event[] = [];
        try {
          for await (const event of runner.run({
            userId: flags.user,
            sessionId,
            newMessage: message,
          })) {
            events.push(event);
            if (!flags.json && event.author !== 'user')
              io.stdout(`${event.author}: ${renderContent(event.content, 400)}\n`);
          }
          await runner.flush();
        } finally {
          spinner.stop();
        }
        if (flags.json) writeJson(io, { sessionId, events });
        else if (!flags.session) io.stderr(`session: ${sessionId}\n`);
      });
    });
}
