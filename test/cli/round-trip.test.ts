/** Sessions exported by `orrery sessions export` and imported again keep their compactions. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, tempDir } from './in-process.js';
import { root } from './run-cli.js';

const incident = join(root, 'examples', 'incident-session.jsonl');

interface ViewJson {
  contents: Array<{ role: string; parts: Array<{ text?: string }> }>;
  checkpointSeq?: number;
  tailEvents: number;
}

async function json<T = { repairs: unknown[] }>(args: string[]): Promise<T> {
  const result = await cli(args);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout);
}

describe('export and import round trip', () => {
  it('keeps every compaction over the same events, for each export format', async () => {
    const directory = tempDir();
    const db = join(directory, 'orrery.db');
    await json(['import', incident, '--db', db, '--session', 'source', '--json']);
    for (const retention of ['40', '10']) {
      const compacted = await cli(['compact', 'source', '--db', db, '--retention', retention]);
      expect(compacted.stdout).toMatch(/^compacted source/);
    }
    const view = await json<ViewJson>(['view', 'source', '--db', db, '--json']);
    expect(view.contents[0]?.parts[0]?.text).toMatch(/^Summary of the conversation so far/);

    for (const format of ['adk', 'adk-snake', 'orrery']) {
      const exported = await cli(['sessions', 'export', 'source', '--db', db, '--format', format]);
      const file = join(directory, `${format}.json`);
      writeFileSync(file, exported.stdout);
      const imported = await json(['import', file, '--db', db, '--session', format, '--json']);
      expect(imported.repairs).toEqual([]);
      const again = await json<ViewJson>(['view', format, '--db', db, '--json']);
      expect(again.contents).toEqual(view.contents);
      expect(again.checkpointSeq).toBe(view.checkpointSeq);
    }
  });

  it('maps the ranges onto the stored events when the export has gaps', async () => {
    const directory = tempDir();
    const db = join(directory, 'orrery.db');
    await json(['import', incident, '--db', db, '--session', 'source', '--json']);
    await cli(['compact', 'source', '--db', db, '--retention', '10']);
    const view = await json<ViewJson>(['view', 'source', '--db', db, '--json']);
    const exported = JSON.parse(
      (await cli(['sessions', 'export', 'source', '--db', db, '--format', 'orrery'])).stdout,
    );
    // Leave out the first user message (inside the summarized range): every later seq moves.
    const first = exported.events.findIndex((event: { author: string }) => event.author === 'user');
    exported.events.splice(first, 1);
    const file = join(directory, 'gap.json');
    writeFileSync(file, JSON.stringify(exported));
    const imported = await json(['import', file, '--db', db, '--session', 'gap', '--json']);
    expect(imported.repairs).toEqual([
      expect.objectContaining({ kind: 'compaction_range_renumbered' }),
    ]);
    const again = await json<ViewJson>(['view', 'gap', '--db', db, '--json']);
    expect(again.contents).toEqual(view.contents);
    expect(again.tailEvents).toBe(view.tailEvents);
  });
});

describe('sessions show', () => {
  it('draws each summary under its compaction, in the same columns as the events', async () => {
    const directory = tempDir();
    const db = join(directory, 'orrery.db');
    await json(['import', incident, '--db', db, '--session', 's', '--json']);
    await cli(['compact', 's', '--db', db, '--retention', '10']);
    const lines = (await cli(['sessions', 'show', 's', '--db', db])).stdout.split('\n');
    const event = lines.find((line) => /^[│ ] +1 {2}/.test(line)) as string;
    const compaction = lines.findIndex((line) => line.includes('┌─ compaction #1'));
    const header = lines[compaction] as string;
    // The date starts in the same column on both lines; the summary box hangs under the corner.
    expect(header.indexOf('  20')).toBe(event.indexOf('  20'));
    expect(lines[compaction + 1]?.indexOf('│')).toBe(header.indexOf('┌'));
    expect(
      lines.find((line, index) => index > compaction && line.trim() === '└─')?.indexOf('└'),
    ).toBe(header.indexOf('┌'));
  });
});
