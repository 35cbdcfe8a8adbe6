/**
 * A multi-run file (tau-bench: a JSON array of runs) read a bounded number of times, whatever
 * its run count (docs/architecture.md#edge): every byte handed out by `fs.createReadStream` is
 * counted while every run's events are pulled in order, as `orrery import` stores them. Before,
 * each run's events scanned the file from its start up to that run (300 runs: ~150 times the
 * file). Same sessions as the whole-text import. No timing is asserted.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { writeTauBenchFile } from '../../bench/tau-bench-file.js';
import type { StreamedImport } from '../../src/entries/importers.js';
import {
  ImportError,
  importTranscriptFile,
  importTranscripts,
} from '../../src/entries/importers.js';
import type { NewEvent } from '../../src/index.js';

const reads = vi.hoisted(() => ({ bytes: 0, streams: 0 }));

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const createReadStream = ((...args: Parameters<typeof fs.createReadStream>) => {
    const stream = fs.createReadStream(...args);
    reads.streams++;
    stream.on('data', (chunk) => {
      reads.bytes += chunk.length;
    });
    return stream;
  }) as typeof fs.createReadStream;
  return { ...fs, default: { ...fs, createReadStream }, createReadStream };
});

const RUNS = 300;
const startTime = 1_700_000_000;

async function collect(imported: StreamedImport): Promise<NewEvent[]> {
  const events: NewEvent[] = [];
  for await (const event of imported.events()) events.push(event);
  return events;
}

/** Ids are random per pass: numbered in order of first use, so two imports compare. */
function normalize(events: NewEvent[]): unknown[] {
  const ids = new Map<string, number>();
  const number = (id: string) => {
    if (!ids.has(id)) ids.set(id, ids.size);
    return ids.get(id);
  };
  return events.map((event) => ({
    ...event,
    id: number(event.id),
    invocationId: number(event.invocationId),
  }));
}

describe('multi-run file import', () => {
  let folder: string;
  let path: string;
  let size: number;

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'orrery-multi-run-'));
    path = join(folder, 'runs.json');
    await writeTauBenchFile({ path, runs: RUNS });
    size = statSync(path).size;
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));
  beforeEach(() => {
    reads.bytes = 0;
    reads.streams = 0;
  });

  it('reads the file about three times in all, not once per run', async () => {
    const results = await importTranscriptFile({ path, format: 'auto', startTime });
    let events = 0;
    for (const result of results) events += (await collect(result)).length;
    expect(results).toHaveLength(RUNS);
    expect(events).toBe(RUNS * 12);
    // Sniffing, the first element, the first pass, then each run's own bytes once.
    expect(reads.bytes).toBeGreaterThanOrEqual(3 * size);
    expect(reads.bytes).toBeLessThan(3 * size + 4 * 64 * 1024);
  });

  it('with the format given, twice', async () => {
    const results = await importTranscriptFile({ path, format: 'openai-chat', startTime });
    for (const result of results) await collect(result);
    expect(reads.bytes).toBeLessThan(2 * size + 2 * 64 * 1024);
  });

  it('gives the sessions of the whole-text import, in any order and again', async () => {
    const streamed = await importTranscriptFile({ path, fileName: 'input', startTime });
    const expected = importTranscripts({ text: readFileSync(path), fileName: 'input', startTime });
    expect(streamed).toHaveLength(expected.length);
    // Last run first, then every run in order: each run reads its own bytes only.
    const order = [RUNS - 1, ...expected.keys()];
    for (const index of order) {
      const imported = streamed[index] as StreamedImport;
      const result = expected[index];
      expect(imported.meta).toEqual(result?.meta);
      expect(imported.repairs).toEqual(result?.repairs);
      expect(normalize(await collect(imported))).toEqual(normalize(result?.events ?? []));
    }
  });

  it('one run (--run) reads only its own bytes after the first pass', async () => {
    const [only] = await importTranscriptFile({ path, format: 'openai-chat', run: 250 });
    const firstPass = reads.bytes;
    const events = await collect(only as StreamedImport);
    expect(events).toHaveLength(12);
    expect(only?.meta.run).toBe(250);
    expect(reads.bytes - firstPass).toBeLessThan(size / 100);
  });

  it('a run whose bytes changed after the first pass is an error naming the file and run', async () => {
    const changed = join(folder, 'changed.json');
    await writeTauBenchFile({ path: changed, runs: 3 });
    const results = await importTranscriptFile({ path: changed, fileName: 'changed.json' });
    const text = readFileSync(changed, 'utf8');
    writeFileSync(changed, text.replace('customer 1:', 'customer 9:'));
    expect(await collect(results[0] as StreamedImport)).toHaveLength(12);
    const error = await collect(results[1] as StreamedImport).catch((caught: unknown) => caught);
    expect(ImportError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(
      /^changed\.json, \[1\]: the run's bytes \(\d+ from byte \d+\) changed since the file was checked/,
    );
  });

  it('a signal stops reading a run', async () => {
    const [first] = await importTranscriptFile({ path, format: 'openai-chat', run: 0 });
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    const events = (first as StreamedImport).events({ signal: controller.signal });
    await expect(
      (async () => {
        for await (const _event of events);
      })(),
    ).rejects.toThrow('stop');
  });
});
