/**
 * `orrery import` keeps memory bounded by the largest record, not the file
 * (docs/architecture.md#edge): a generated ~50 MB Claude Code transcript is imported in a child
 * process, whose retained heap (after a full GC, sampled through both passes) must stay a small
 * fraction of the file. The same file read whole (the old path) is the control: it retains about
 * the file's size (its events), so the measure can tell the two apart. No timing is asserted.
 */
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTranscriptFile } from '../../bench/transcript-file.js';
import { importTranscriptFile } from '../../src/entries/importers.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const child = join(root, 'test', 'importers', 'import-memory-child.ts');
const megabyte = 1024 * 1024;

function measure(mode: 'stream' | 'whole', path: string): { retained: number; events: number } {
  const result = spawnSync(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', child, mode, path],
    {
      cwd: root,
      encoding: 'utf8',
      timeout: 600_000,
    },
  );
  if (result.status !== 0) throw new Error(`child ${mode} failed: ${result.stderr}`);
  return JSON.parse(result.stdout.trim().split('\n').at(-1) as string);
}

describe('streamed import memory', () => {
  let folder: string;
  let path: string;
  let written: { events: number; bytes: number };

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'orrery-import-memory-'));
    path = join(folder, 'large.jsonl');
    written = await writeTranscriptFile({ path, bytes: 50 * megabyte, resultBytes: 8_000 });
  }, 600_000);
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('retains far less heap than the file holds', () => {
    const streamed = measure('stream', path);
    expect(streamed.events).toBe(written.events);
    // Generous: the window is a few records of ~8 kB; a tenth of the file leaves room for GC noise.
    expect(streamed.retained).toBeLessThan(written.bytes / 10);
  }, 600_000);

  it('an exported session (ADK JSON, one object) retains far less heap than the file holds', async () => {
    // orrery's own export of the same transcript, written event by event.
    const exported = join(folder, 'export.json');
    const out = createWriteStream(exported);
    out.write('{"id":"exported","events":[');
    const [imported] = await importTranscriptFile({ path });
    let count = 0;
    for await (const event of imported?.events() ?? []) {
      if (!out.write(`${count++ === 0 ? '' : ','}\n${JSON.stringify(event)}`))
        await once(out, 'drain');
    }
    out.end('],"state":{}}\n');
    await once(out, 'finish');
    const bytes = statSync(exported).size;
    expect(bytes).toBeGreaterThan(40 * megabyte);
    const streamed = measure('stream', exported);
    expect(streamed.events).toBe(count);
    expect(streamed.retained).toBeLessThan(bytes / 10);
  }, 600_000);

  it('(control) the file read whole retains at least half the file', () => {
    const whole = measure('whole', path);
    expect(whole.events).toBe(written.events);
    expect(whole.retained).toBeGreaterThan(written.bytes / 2);
  }, 600_000);
});
