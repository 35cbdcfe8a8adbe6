/**
 * `npm run bench -- multi-run`: a tau-bench style file of many runs imported with
 * `importTranscriptFile`, every run's events pulled in order (as `orrery import` stores them):
 * wall time, and the bytes read from the file (every `fs.createReadStream` counted) against its
 * size. A file read a bounded number of times reads a small multiple of its size whatever the
 * run count. `ORRERY_BENCH_RUNS=200,1000` picks the run counts.
 */
import fs from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importTranscriptFile } from '../src/importers/import-file.js';
import { writeTauBenchFile } from './tau-bench-file.js';

/** Counts the bytes every read stream of `fs` hands out (importers read through it). */
function countReads(): { bytes: number; streams: number; restore(): void } {
  const original = fs.createReadStream;
  const counter = {
    bytes: 0,
    streams: 0,
    restore: () => {
      fs.createReadStream = original;
      syncBuiltinESMExports();
    },
  };
  fs.createReadStream = ((...args: Parameters<typeof original>) => {
    const stream = original(...args);
    counter.streams++;
    stream.on('data', (chunk) => {
      counter.bytes += chunk.length;
    });
    return stream;
  }) as typeof original;
  syncBuiltinESMExports();
  return counter;
}

export async function run(): Promise<void> {
  const counts = (process.env.ORRERY_BENCH_RUNS ?? '200,1000').split(',').map(Number);
  const folder = await mkdtemp(join(tmpdir(), 'orrery-multi-run-'));
  try {
    console.log(
      '| runs | file bytes | bytes read | reads / file | streams opened | events | wall ms |',
    );
    console.log('|---:|---:|---:|---:|---:|---:|---:|');
    for (const runs of counts) {
      const path = join(folder, `runs-${runs}.json`);
      const size = await writeTauBenchFile({ path, runs });
      const counter = countReads();
      const started = performance.now();
      let events = 0;
      try {
        const results = await importTranscriptFile({ path, format: 'auto' });
        for (const result of results) for await (const _event of result.events()) events++;
      } finally {
        counter.restore();
      }
      const wall = performance.now() - started;
      console.log(
        `| ${runs} | ${size.toLocaleString('en')} | ${counter.bytes.toLocaleString('en')} | ${(counter.bytes / size).toFixed(1)} | ${counter.streams} | ${events.toLocaleString('en')} | ${wall.toFixed(0)} |`,
      );
    }
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}
