/**
 * What a command may touch of the process: output streams, environment and terminal facts.
 * Passed in so tests can run `main` in-process and so nothing reads `process` at import.
 */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Record<string, string | undefined>;
  /** stderr is a terminal: progress and spinners are drawn only then. */
  stderrIsTty: boolean;
  stdinIsTty: boolean;
  stdin: NodeJS.ReadableStream;
  stdoutStream: NodeJS.WritableStream;
}

export function processIo(): CliIo {
  // `orrery ... | head` closes stdout early: stop quietly, as Unix tools do, not with a stack trace.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    stderrIsTty: process.stderr.isTTY === true,
    stdinIsTty: process.stdin.isTTY === true,
    stdin: process.stdin,
    stdoutStream: process.stdout,
  };
}
