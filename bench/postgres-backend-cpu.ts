/**
 * The CPU time of the PostgreSQL backends that serve one client process, found by their
 * `application_name` in `pg_stat_activity` and read from /proc/<pid>/schedstat (time on a CPU in
 * ns; /proc/<pid>/stat's 10 ms ticks are too coarse for backends that run a few ms a cell). The
 * server must run on this machine. A backend that exits (a connection closed when a request is
 * aborted at the end of a cell) keeps its last figure, so the meter samples while the load runs
 * (`start`), and what a backend did after its last sample is lost (at most one interval).
 */
import { readFile } from 'node:fs/promises';

export interface BackendCpuMeter {
  /** CPU ms of the backends when the meter was made. */
  readonly initialMs: number;
  /** Samples every `intervalMs` until `stop`. */
  start(): void;
  /** Samples once more and stops; the CPU ms of every backend seen so far. */
  stop(): Promise<number>;
}

export async function backendCpuMeter(options: {
  url: string;
  applicationName: string;
  intervalMs?: number;
}): Promise<BackendCpuMeter> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: options.url });
  await client.connect();
  const seen = new Map<number, number>();
  let sampling: Promise<void> = Promise.resolve();
  let timer: ReturnType<typeof setInterval> | undefined;
  const sample = async () => {
    const { rows } = await client.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE application_name = $1',
      [options.applicationName],
    );
    for (const { pid } of rows) {
      try {
        const schedstat = await readFile(`/proc/${pid}/schedstat`, 'utf8');
        seen.set(pid, Number(schedstat.split(' ')[0]) / 1e6);
      } catch {
        // exited meanwhile: its last figure stays
      }
    }
  };
  const total = () => [...seen.values()].reduce((sum, value) => sum + value, 0);
  await sample();
  return {
    initialMs: total(),
    start() {
      timer = setInterval(() => {
        sampling = sampling.then(sample, sample);
      }, options.intervalMs ?? 100);
    },
    async stop() {
      clearInterval(timer);
      await sampling.catch(() => {});
      await sample();
      await client.end();
      return total();
    },
  };
}
