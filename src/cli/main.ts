/**
 * The `orrery` command. `main(argv)` returns the exit code: 0 on success, 1 for a failure
 * (bad input, unreachable store, a model error), 2 for a usage problem (unknown flag, bad
 * value, no model configured, an --agent module that cannot be used). Errors are one line on
 * stderr, typed name first.
 */
import { createRequire } from 'node:module';
import { Command, CommanderError, Help } from 'commander';
import { InvalidConfigError } from '../compaction/errors.js';
import { ModelConfigError } from '../models/errors.js';
import { AgentModuleError } from './agent-module-error.js';
import { COMMANDS, commandOf } from './command-index.js';
import { CliUsageError, formatError } from './errors.js';
import { type CliIo, processIo } from './io.js';

export interface CreateProgramOptions {
  io: CliIo;
  /**
   * The commands registered in full (their modules imported): default every one. The others
   * are listed for `--help` and mistyped names only.
   */
  commands?: readonly string[];
}

/** The `orrery` program: the named commands in full, the rest as their `--help` line. */
export async function createProgram(options: CreateProgramOptions): Promise<Command> {
  const { io } = options;
  const loaded = new Set(options.commands ?? Object.keys(COMMANDS));
  const output = {
    writeOut: (text: string) => io.stdout(text),
    writeErr: (text: string) => io.stderr(text),
    // Usage errors as one line, like every other error: "orrery: unknown option '--x' (...)".
    outputError: (text: string, write: (text: string) => void) =>
      write(
        `orrery: ${text
          .replace(/^error: /, '')
          .trim()
          .replace(/\s*\n\s*/g, ' ')} (see --help)\n`,
      ),
  };
  const program = new Command()
    .name('orrery')
    .description(
      'Bounded context, lossless history: import, replay, inspect and chat with compacting agent sessions.',
    )
    .version(packageVersion(), '-V, --version', 'print the version')
    .exitOverride()
    .configureOutput(output)
    .addHelpText(
      'after',
      `
Examples:
  orrery replay examples/incident-session.jsonl     replay a transcript through compaction (offline)
  orrery import ~/.claude/projects/app/abc.jsonl    import a Claude Code session
  orrery sessions list                              sessions in ./.orrery/orrery.db
  ORRERY_MODEL=google:gemini-2.5-flash orrery chat  chat with a real model

Store: SQLite at ./.orrery/orrery.db (--db PATH or ORRERY_DB); a postgres:// URL selects PostgreSQL.`,
    );
  const listed = new Map<Command, string>();
  for (const [name, entry] of Object.entries(COMMANDS)) {
    if (loaded.has(name)) {
      (await entry.load())(program, io);
    } else {
      listed.set(program.command(name).description(entry.description), entry.term);
    }
  }
  // A listed command shows the term its module would give it ("replay [options] <files...>").
  program.configureHelp({
    subcommandTerm: (command) => listed.get(command) ?? new Help().subcommandTerm(command),
  });
  for (const command of program.commands) {
    command.exitOverride().configureOutput(output);
    for (const sub of command.commands) sub.exitOverride().configureOutput(output);
  }
  return program;
}

/** The version in package.json (two levels up from both `src/cli` and `dist/cli`). */
function packageVersion(): string {
  const manifest = createRequire(import.meta.url)('../../package.json') as { version?: string };
  return manifest.version ?? 'unknown';
}

export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  // Only the command that runs is imported: `--help` and a small replay start fast.
  const command = commandOf(argv);
  const program = await createProgram({ io, commands: command === undefined ? [] : [command] });
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version asked for exit 0; commander already printed its own message otherwise.
      // Help shown because the command line was incomplete (`orrery sessions`) is a usage error.
      return error.exitCode === 0 ? 0 : 2;
    }
    io.stderr(`orrery: ${formatError(error)}\n`);
    if (
      CliUsageError.isInstance(error) ||
      AgentModuleError.isInstance(error) ||
      InvalidConfigError.isInstance(error) ||
      ModelConfigError.isInstance(error)
    ) {
      return 2;
    }
    return 1;
  }
}
