/**
 * `orrery replay`'s engine on long generated transcripts (`longTranscript`: tool-heavy
 * invocations, bulky results), replay defaults (threshold 20,000, digest summarizer, in
 * memory): CPU time for 1k, 4k and 16k events and the cost per event at 16k against 1k, which
 * is ~1 when replay is linear in the transcript's length. A 1k replay runs first unmeasured, so
 * the 1k figure is not the JIT's warm-up.
 */
import { createEventsCompactionConfig } from '../src/compaction/config.js';
import { replayTranscript } from '../src/runtime/replay/replay.js';
import { DigestSummarizer } from '../src/summarizers/index.js';
import { longTranscript } from '../src/testing/long-transcript.js';
import { median } from './workload.js';

const sizes = [1_000, 4_000, 16_000];

/** CPU milliseconds (user + system) of one replay of `events` generated events. */
async function replayCpu(events: number): Promise<{ cpuMs: number; compactions: number }> {
  const transcript = longTranscript({ events, seed: 11 });
  const summarizer = new DigestSummarizer();
  const config = createEventsCompactionConfig({
    env: {},
    enabled: true,
    tokenThreshold: 20_000,
    summarizer,
  });
  if (!config) throw new Error('expected a compaction config');
  const started = process.cpuUsage();
  const report = await replayTranscript({ events: transcript, config, summarizer });
  const used = process.cpuUsage(started);
  return { cpuMs: (used.user + used.system) / 1000, compactions: report.compactions.length };
}

export async function run(): Promise<void> {
  await replayCpu(1_000);
  const rows: Array<{ events: number; cpuMs: number; compactions: number }> = [];
  for (const events of sizes) {
    // Three runs where they are short, one at 16k (seconds each).
    const runs = events >= 16_000 ? 1 : 3;
    const samples: Array<{ cpuMs: number; compactions: number }> = [];
    for (let index = 0; index < runs; index++) samples.push(await replayCpu(events));
    rows.push({
      events,
      cpuMs: median(samples.map((sample) => sample.cpuMs)),
      compactions: samples[0]?.compactions ?? 0,
    });
  }
  const perEvent = (row: { events: number; cpuMs: number }) => row.cpuMs / row.events;
  const first = rows[0]!;
  const last = rows[rows.length - 1]!;
  console.log(
    [
      '| replay (CPU ms, median) | 1,000 events | 4,000 | 16,000 | ratio per event 16k / 1k |',
      '|---|---:|---:|---:|---:|',
      `| replay defaults, in memory | ${rows.map((row) => Math.round(row.cpuMs).toLocaleString('en-US')).join(' | ')} | ${(perEvent(last) / perEvent(first)).toFixed(2)} |`,
      '',
      `compactions: ${rows.map((row) => `${row.events.toLocaleString('en-US')} events: ${row.compactions}`).join(', ')}`,
    ].join('\n'),
  );
}
