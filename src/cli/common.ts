import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { type Command, Option } from 'commander';
import { ImportError } from '../importers/errors.js';
import { fileReadError } from '../importers/file-source.js';
import { parseImportFormat } from '../importers/transcript-dispatch.js';
import type { ImportFormat } from '../importers/types.js';
import type { SessionService } from '../sessions/session-service.js';
import { CliUsageError } from './errors.js';
import type { CliIo } from './io.js';
import { openStore, resolveDb } from './store.js';

export interface StoreFlags {
  db?: string;
  app: string;
  user: string;
}

/** `--db`, `--app`, `--user`: every command that reads or writes sessions takes them. */
export function addStoreOptions(command: Command): Command {
  return command
    .addOption(
      new Option('--db <path-or-url>', 'SQLite file, or a postgres:// URL (env ORRERY_DB)').default(
        undefined,
        './.orrery/orrery.db',
      ),
    )
    .option('--app <name>', 'app name sessions are scoped by', nonEmpty('--app'), 'orrery')
    .option('--user <id>', 'user id sessions are scoped by', nonEmpty('--user'), 'local');
}

/**
 * A flag or argument that must not be empty (`--app ''`, a session id of `''`): a usage error
 * naming it, not a store error about a key further down.
 */
export function nonEmpty(name: string) {
  return (value: string): string => {
    if (value.trim() === '') {
      throw new CliUsageError({ field: name, message: `${name} is empty: pass a value` });
    }
    return value;
  };
}

/** `--format` of commands that read transcripts: an unknown one is a usage error (exit 2). */
export function transcriptFormat(value: string): ImportFormat | 'auto' {
  try {
    return parseImportFormat(value);
  } catch (error) {
    if (!ImportError.isInstance(error)) throw error;
    throw new CliUsageError({ field: '--format', message: `--format: ${error.message}` });
  }
}

/** `existing`: the command reads or changes stored sessions only, so the store must exist. */
export async function withStore<T>(
  io: CliIo,
  flags: StoreFlags & { existing?: boolean },
  work: (service: SessionService) => Promise<T>,
): Promise<T> {
  const service = await openStore({
    db: resolveDb({ db: flags.db, io }),
    appName: flags.app,
    userId: flags.user,
    mustExist: flags.existing,
  });
  try {
    return await work(service);
  } finally {
    await service.close?.();
  }
}

export function integerOption(name: string, minimum = 0) {
  return (value: string): number => {
    const number = Number(value);
    if (!Number.isInteger(number) || number < minimum) {
      throw new CliUsageError({
        field: name,
        message: `${name} must be an integer >= ${minimum}, got ${JSON.stringify(value)}`,
      });
    }
    return number;
  };
}

/**
 * A transcript file's bytes (`text`) and name: `importTranscripts` decodes them, so a byte-order
 * mark is dropped and bytes that are not UTF-8 are reported, not silently replaced.
 */
export async function readTranscriptFile(
  file: string,
): Promise<{ text: Uint8Array; fileName: string }> {
  try {
    return { text: await readFile(file), fileName: basename(file) };
  } catch (error) {
    throw fileReadError(file, error);
  }
}

/**
 * A transcript file that exists and is a file, checked before a streamed import opens it (the
 * same errors as `readTranscriptFile`); returns the name errors give it.
 */
export async function checkTranscriptFile(file: string): Promise<string> {
  let isDirectory: boolean;
  try {
    isDirectory = (await stat(file)).isDirectory();
  } catch (error) {
    throw fileReadError(file, error);
  }
  if (isDirectory) throw fileReadError(file, Object.assign(new Error(file), { code: 'EISDIR' }));
  return basename(file);
}

export function writeJson(io: CliIo, value: unknown): void {
  io.stdout(`${JSON.stringify(value, null, 2)}\n`);
}
