/**
 * Peak memory, each figure measured in a process of its own (`memory-probe.ts`, bundled to plain
 * JavaScript first so no figure carries the TypeScript loader's ~35 MB): a Runner turn
 * on a 100k-event session (memory, SQLite, PostgreSQL when a URL is set), `getSession` of the
 * full history at 100k, `orrery replay` of a 16,000-event transcript, `orrery import` of a
 * 600 MB transcript generated into a temp folder (deleted after), and ADK-JS 2.0's in-memory
 * turn at 100k beside them. Stores are seeded by a process of their own, so a turn's process
 * holds only what the turn needs. `npm run bench -- memory`; `ORRERY_BENCH_IMPORT_MB=100`
 * makes the import file smaller; `ORRERY_BENCH_MEMORY_ROWS=import` (or `turn`, `replay`, a
 * comma list) runs only those rows.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ProbeResult, ProbeTask, Store } from './memory-probe.js';
import { writeTranscriptFile } from './transcript-file.js';

const folder = dirname(fileURLToPath(import.meta.url));
/**
 * The probe, bundled with the project's code, packages left external and each dynamic import a
 * chunk of its own (loaded only by the step that needs it). Two folders down from the project,
 * in `node_modules`, so packages resolve and `../../package.json` (read by the CLI) is the
 * project's.
 */
const probeFolder = join(folder, '..', 'node_modules', '.orrery-memory-probe');
const probeBundle = join(probeFolder, 'memory-probe.mjs');
const events = 100_000;
const megabyte = 1024 * 1024;
/** A turn must not hold the history: RSS of the whole process, runtime included. */
const turnTargetBytes = 100 * megabyte;

interface Row {
  name: string;
  result?: ProbeResult;
  error?: string;
  target?: string;
  /** The input file's size, for a row whose memory must not follow it. */
  fileBytes?: number;
}

async function bundleProbe(): Promise<void> {
  const { build } = await import('esbuild');
  await build({
    entryPoints: [join(folder, 'memory-probe.ts')],
    outdir: probeFolder,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  });
}

/** Runs one task in a fresh `node --expose-gc` process; resolves with its figures. */
function runProbe(task: ProbeTask): Promise<ProbeResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', probeBundle, JSON.stringify(task)], {
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    let stderr = '';
    let message: { result?: ProbeResult; error?: string } | undefined;
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4_000);
    });
    child.on('message', (received) => {
      message = received as typeof message;
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (message?.result) {
        const failure = stderr.trim().split('\n').at(-1);
        const note = message.result.note ?? '';
        resolve({
          ...message.result,
          note: note.startsWith('exit code 0') || !failure ? note : `${note}: ${failure}`,
        });
      } else {
        const reason = message?.error ?? (stderr.trim().split('\n').at(-1) || `exit ${code}`);
        reject(new Error(signal ? `killed by ${signal}` : reason));
      }
    });
  });
}

async function measure(
  rows: Row[],
  name: string,
  task: ProbeTask,
  target?: string,
  fileBytes?: number,
) {
  try {
    rows.push({ name, result: await runProbe(task), target, fileBytes });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    rows.push({ name, error: message, target, fileBytes });
  }
}

function mb(bytes: number): string {
  return (bytes / megabyte).toFixed(0);
}

function verdict(row: Row): string {
  if (!row.target || !row.result) return row.target ?? '';
  if (row.target.startsWith('RSS < 100 MB')) {
    return `${row.target}: ${row.result.maxRssBytes < turnTargetBytes ? 'OK' : 'MISSED'}`;
  }
  if (row.fileBytes) {
    // What the step added, against the file (a bound holds when these shrink as the file grows).
    const rss = row.result.maxRssBytes - row.result.rssBeforeBytes;
    const heap = row.result.peakHeapBytes - row.result.heapBeforeBytes;
    const share = (bytes: number) => `${((100 * bytes) / row.fileBytes!).toFixed(0)}%`;
    return `${row.target}: RSS +${share(rss)}, peak heap +${share(heap)} of the file`;
  }
  return row.target;
}

function print(rows: Row[]): void {
  const lines = [
    '| step (own process) | peak RSS (MB) | peak heap (MB) | RSS / heap before (MB) | seconds | target | note |',
    '|---|---:|---:|---:|---:|---|---|',
  ];
  for (const row of rows) {
    const result = row.result;
    lines.push(
      result
        ? `| ${row.name} | ${mb(result.maxRssBytes)} | ${mb(result.peakHeapBytes)} | ${mb(result.rssBeforeBytes)} / ${mb(result.heapBeforeBytes)} | ${(result.milliseconds / 1000).toFixed(1)} | ${verdict(row)} | ${result.note ?? ''} |`
        : `| ${row.name} | — | — | — | — | ${row.target ?? ''} | failed: ${row.error} |`,
    );
  }
  console.log(lines.join('\n'));
  console.log(
    '\nPeak RSS: the process\'s whole life (`resourceUsage().maxRSS`), runtime and setup included; "before": after setup and a full GC, just before the measured step.',
  );
}

async function turnRows(rows: Row[], directory: string, postgresUrl?: string): Promise<void> {
  const turnTarget = 'RSS < 100 MB';
  await measure(rows, 'turn at 100k, memory store (history in this process)', {
    step: 'turn',
    store: { kind: 'memory' },
    events,
  });
  const stores: Array<{ label: string; store: Store }> = [
    { label: 'SQLite', store: { kind: 'sqlite', path: join(directory, 'turn.db') } },
  ];
  if (postgresUrl) {
    const schema = `orrery_bench_memory_${randomBytes(4).toString('hex')}`;
    stores.push({ label: 'PostgreSQL', store: { kind: 'postgres', url: postgresUrl, schema } });
  }
  for (const { label, store } of stores) {
    try {
      await runProbe({ step: 'seed', store, events });
    } catch (error) {
      rows.push({ name: `turn at 100k, ${label}`, error: `seeding: ${String(error)}` });
      continue;
    }
    await measure(rows, `turn at 100k, ${label}`, { step: 'turn', store, events }, turnTarget);
    await measure(rows, `getSession full history at 100k, ${label}`, {
      step: 'full-history',
      store,
      events,
    });
    if (store.kind === 'postgres') await dropSchema(store.url, store.schema);
  }
  if (!postgresUrl) {
    console.log('PostgreSQL rows skipped: set ORRERY_TEST_PG_URL (or ORRERY_BENCH_PG_URL).\n');
  }
  await measure(rows, 'ADK-JS 2.0: turn at 100k, in-memory session service', {
    step: 'adk-turn',
    events,
  });
}

async function dropSchema(url: string, schema: string): Promise<void> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

/** `ORRERY_BENCH_MEMORY_ROWS`: the row groups to run (default all). */
function wanted(group: 'turn' | 'replay' | 'import'): boolean {
  const groups = process.env.ORRERY_BENCH_MEMORY_ROWS;
  return !groups || groups.split(',').some((name) => name.trim() === group);
}

async function replayRow(rows: Row[], directory: string): Promise<void> {
  const replayFile = join(directory, 'replay-16000.jsonl');
  const replay = await writeTranscriptFile({
    path: replayFile,
    events: 16_000,
    resultBytes: 1_500,
  });
  await measure(
    rows,
    `replay, ${replay.events.toLocaleString('en-US')}-event transcript (${mb(replay.bytes)} MB)`,
    { step: 'cli', argv: ['replay', replayFile] },
  );
  rmSync(replayFile, { force: true });
}

async function importRow(rows: Row[], directory: string): Promise<void> {
  const importMegabytes = Number(process.env.ORRERY_BENCH_IMPORT_MB ?? 600);
  const importFile = join(directory, 'import.jsonl');
  const resultBytes = 8_000;
  const written = await writeTranscriptFile({
    path: importFile,
    bytes: importMegabytes * megabyte,
    resultBytes,
  });
  await measure(
    rows,
    `import, ${mb(written.bytes)} MB transcript (${written.events.toLocaleString('en-US')} events) into SQLite`,
    {
      step: 'cli',
      argv: ['import', importFile, '--db', join(directory, 'import.db')],
    },
    `bounded by the largest record (~${(resultBytes / 1000).toFixed(0)} kB), not the file`,
    written.bytes,
  );
  rmSync(importFile, { force: true });
}

export async function run(options: { postgresUrl?: string }): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), 'orrery-bench-memory-'));
  const rows: Row[] = [];
  try {
    await bundleProbe();
    if (wanted('turn')) await turnRows(rows, directory, options.postgresUrl);
    if (wanted('replay')) await replayRow(rows, directory);
    if (wanted('import')) await importRow(rows, directory);
  } finally {
    rmSync(directory, { recursive: true, force: true });
    rmSync(probeFolder, { recursive: true, force: true });
  }
  print(rows);
}
