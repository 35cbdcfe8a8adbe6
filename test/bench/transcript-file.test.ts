/**
 * The memory bench's generated transcripts are what it claims to measure: valid Claude Code
 * JSONL that imports whole (every call paired, nothing repaired) and records of bounded size.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeTranscriptFile } from '../../bench/transcript-file.js';
import { importTranscript } from '../../src/entries/importers.js';

describe('bench/transcript-file', () => {
  let folder: string;
  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'orrery-transcript-file-'));
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  it('writes the asked number of events, which import as Claude Code with nothing repaired', async () => {
    const path = join(folder, 'small.jsonl');
    const written = await writeTranscriptFile({ path, events: 400, resultBytes: 1_500 });
    expect(written).toEqual({ events: 400, bytes: statSync(path).size });

    const result = importTranscript({ text: readFileSync(path), fileName: 'small.jsonl' });
    expect(result.meta.format).toBe('claude-code');
    expect(result.repairs).toEqual([]);
    expect(result.events).toHaveLength(400);
    const responses = result.events.flatMap((event) =>
      (event.content?.parts ?? []).flatMap((part) =>
        part.functionResponse ? [part.functionResponse] : [],
      ),
    );
    expect(responses).toHaveLength(100);
    expect(JSON.stringify(responses[99]?.response).length).toBeGreaterThan(1_500);
  });

  it('stops at a byte size with every record bounded by the tool result size', async () => {
    const path = join(folder, 'sized.jsonl');
    const written = await writeTranscriptFile({ path, bytes: 300_000, resultBytes: 8_000 });
    expect(written.bytes).toBeGreaterThanOrEqual(300_000);
    expect(written.bytes).toBeLessThan(300_000 + 4 * 10_000);
    expect(written.events % 4).toBe(0);
    const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(written.events);
    expect(Math.max(...lines.map((line) => line.length))).toBeLessThan(10_000);
  });
});
