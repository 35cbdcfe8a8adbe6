/**
 * `orrery --help` lists the commands from `COMMANDS` without importing them: each line must be
 * what the command's own module registers, and the whole help the same as with every command
 * loaded. `main` imports only the command that runs.
 */
import { PassThrough, Readable } from 'node:stream';
import { Help } from 'commander';
import { describe, expect, it } from 'vitest';
import { COMMANDS, commandOf } from './command-index.js';
import type { CliIo } from './io.js';
import { createProgram } from './main.js';

function captureIo(): { io: CliIo; output: () => string } {
  let text = '';
  const io: CliIo = {
    stdout: (chunk) => {
      text += chunk;
    },
    stderr: (chunk) => {
      text += chunk;
    },
    env: {},
    stderrIsTty: false,
    stdinIsTty: false,
    stdin: Readable.from([]),
    stdoutStream: new PassThrough(),
  };
  return { io, output: () => text };
}

async function helpOf(commands: string[]): Promise<string> {
  const { io, output } = captureIo();
  const program = await createProgram({ io, commands });
  await program.parseAsync(['--help'], { from: 'user' }).catch(() => undefined);
  return output();
}

describe('the command index', () => {
  it('lists each command as its module registers it', async () => {
    const { io } = captureIo();
    const program = await createProgram({ io });
    const help = new Help();
    const registered = program.commands.map((command) => ({
      name: command.name(),
      term: help.subcommandTerm(command),
      description: command.description(),
    }));
    expect(registered).toEqual(
      Object.entries(COMMANDS).map(([name, entry]) => ({
        name,
        term: entry.term,
        description: entry.description,
      })),
    );
  });

  it('prints the same --help without importing any command', async () => {
    const full = await helpOf(Object.keys(COMMANDS));
    expect(full).toContain('replay [options] <files...>');
    expect(await helpOf([])).toBe(full);
  });

  it('names the command an argument list runs', () => {
    expect(commandOf(['replay', 'a.jsonl', '--json'])).toBe('replay');
    expect(commandOf(['help', 'sessions'])).toBe('sessions');
    expect(commandOf(['sessions', 'list'])).toBe('sessions');
    // Top-level options, no command, an unknown one: the index alone is enough.
    expect(commandOf(['--help'])).toBeUndefined();
    expect(commandOf(['--version', 'replay'])).toBeUndefined();
    expect(commandOf([])).toBeUndefined();
    expect(commandOf(['replya'])).toBeUndefined();
    expect(commandOf(['toString'])).toBeUndefined();
  });
});
