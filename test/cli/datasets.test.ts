/**
 * With `ORRERY_DATASETS` set (e.g. `ORRERY_DATASETS=../shared/datasets`): imports and replays
 * every public transcript (OpenHands completions, tau-bench runs, SWE-agent trajectories)
 * through compaction and checks the two invariants: no request holds an unpaired call or
 * response, and the stored history is the import, unchanged. Skipped without the variable.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importTranscripts } from '../../src/entries/importers.js';
import {
  createEventsCompactionConfig,
  DigestSummarizer,
  InMemorySessionService,
} from '../../src/index.js';
import { replayImportedTranscript } from '../../src/runtime/replay/replay-imported-transcript.js';

const datasets = process.env.ORRERY_DATASETS;

function transcriptFiles(folder: string): string[] {
  const files: string[] = [];
  const completions = join(folder, 'openhands-swe-bench', 'llm_completions');
  for (const name of safeList(completions))
    if (name.endsWith('.json')) files.push(join(completions, name));
  const tau = join(folder, 'tau-bench-airline', 'gpt-4o-airline.json');
  if (safeList(join(folder, 'tau-bench-airline')).includes('gpt-4o-airline.json')) files.push(tau);
  const swe = join(folder, 'swe-agent');
  for (const name of safeList(swe)) if (name.endsWith('.traj')) files.push(join(swe, name));
  return files;
}

function safeList(folder: string): string[] {
  try {
    return readdirSync(folder);
  } catch {
    return [];
  }
}

describe.skipIf(!datasets)('replay of the public transcripts (ORRERY_DATASETS)', () => {
  const files = datasets ? transcriptFiles(datasets) : [];

  it('finds transcripts', () => {
    expect(files.length).toBeGreaterThan(0);
  });

  for (const file of files) {
    it(`replays ${basename(file)} with no orphans, losslessly`, async () => {
      const results = importTranscripts({
        text: readFileSync(file, 'utf8'),
        fileName: basename(file),
      });
      const summarizer = new DigestSummarizer();
      const config = createEventsCompactionConfig({ env: {}, tokenThreshold: 20_000, summarizer })!;
      const service = new InMemorySessionService();
      for (const [index, result] of results.entries()) {
        const replay = await replayImportedTranscript({
          result,
          file,
          service,
          key: { appName: 'datasets', userId: 'test', sessionId: `${basename(file)}-${index}` },
          config,
          summarizer,
        });
        expect({ run: index, orphans: replay.orphans }).toEqual({ run: index, orphans: 0 });
        expect({ run: index, lossless: replay.lossless }).toEqual({ run: index, lossless: true });
        expect(replay.events).toBe(result.events.length);
      }
    }, 300_000);
  }
});
