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
  /**
   * Calls `handler` on SIGINT or SIGTERM instead of the default exit, until the returned
   * function is called. Absent (tests in-process): signals are not handled.
   */
  onInterrupt?: (handler: (signal: InterruptSignal) => void) => () => void;
}

export type InterruptSignal = 'SIGINT' | 'SIGTERM';

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
    onInterrupt: (handler) => {
      const signals = ['SIGINT', 'SIGTERM'] as const;
      for (const signal of signals) process.on(signal, handler);
      return () => {
        for (const signal of signals) process.off(signal, handler);
      };
    },
  };
}
