/**
 * Runs `main(argv, io)` in this process with captured output: the same commands as the spawned
 * tests, ten times faster, so most CLI behaviour is tested this way. `run-cli.ts` keeps a few
 * spawned checks of the real process (exit code, streams).
 */
import { PassThrough, Readable } from 'node:stream';
import type { CliIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { makeTempDir } from './temp-dirs.js';

export interface InProcessResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A scratch folder, deleted after the test file (`temp-dirs.ts`). */
export function tempDir(): string {
  return makeTempDir();
}

export async function cli(
  args: string[],
  options: { env?: Record<string, string>; stdin?: string; stdinIsTty?: boolean } = {},
): Promise<InProcessResult> {
  let stdout = '';
  let stderr = '';
  const stdoutStream = new PassThrough();
  stdoutStream.on('data', (chunk) => {
    stdout += String(chunk);
  });
  const io: CliIo = {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    env: { ...options.env },
    stderrIsTty: false,
    stdinIsTty: options.stdinIsTty ?? false,
    stdin: Readable.from(options.stdin === undefined ? [] : [options.stdin]),
    stdoutStream,
  };
  const code = await main(args, io);
  return { code, stdout, stderr };
}
