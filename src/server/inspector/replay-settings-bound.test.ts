/**
 * Replay's time is linear in the transcript's events for every setting the server takes: the
 * sliding window's overlap is bounded by the interval (`MAX_REPLAY_OVERLAP_PER_INTERVAL`), and
 * a setting over the bound is a 400 naming `overlap`. The work is counted (events handed to
 * the summarizer), never timed. A byte ceiling no request fits under is a 400 too.
 */
import { describe, expect, it } from 'vitest';
import { createEventsCompactionConfig } from '../../compaction/config.js';
import type { EventsSummarizer } from '../../compaction/types.js';
import { importTranscripts } from '../../importers/import-transcript.js';
import { replayTranscript } from '../../runtime/replay/replay.js';
import { DigestSummarizer } from '../../summarizers/digest-summarizer.js';
import { inspectorReplay } from './inspector-replay.js';
import { MAX_REPLAY_OVERLAP_PER_INTERVAL } from './replay-request.js';
import { chatTranscript } from './test-helpers/chat-transcript.js';
import { inspectorFixture } from './test-helpers/inspector-fixture.js';

/** Events the summarizer was handed over a whole replay: the replay's work. */
async function summarizedEvents(options: { bytes: number; interval: number; overlap: number }) {
  const { text } = chatTranscript({ bytes: options.bytes });
  const [result] = importTranscripts({ text, fileName: 'chat.json', format: 'auto' });
  const digest = new DigestSummarizer();
  let handed = 0;
  const summarizer: EventsSummarizer = {
    name: 'counting',
    summarize: (request) => {
      handed += request.events.length;
      return digest.summarize(request);
    },
  };
  const config = createEventsCompactionConfig({
    env: {},
    enabled: true,
    tokenThreshold: 0,
    compactionInterval: options.interval,
    overlapSize: options.overlap,
    summarizer,
  });
  if (!config || !result) throw new Error('expected a config and a transcript');
  await replayTranscript({ events: result.events, config, summarizer });
  return { handed, events: result.events.length };
}

function post(fixture: ReturnType<typeof inspectorFixture>, body: unknown) {
  return fixture.request('/inspector/api/replay', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

describe('replay settings', () => {
  it('interval 1 with a huge overlap re-summarizes the whole history each window (why the bound)', async () => {
    const small = await summarizedEvents({ bytes: 6_000, interval: 1, overlap: 1_000_000 });
    const large = await summarizedEvents({ bytes: 12_000, interval: 1, overlap: 1_000_000 });
    // Twice the events, about four times the work: quadratic.
    expect(large.events / small.events).toBeCloseTo(2, 0);
    expect(large.handed / small.handed).toBeGreaterThan(3.5);
  }, 120_000);

  it('at the bound (overlap = 4 x interval) the work per event stays flat: linear', async () => {
    const overlap = MAX_REPLAY_OVERLAP_PER_INTERVAL;
    const small = await summarizedEvents({ bytes: 6_000, interval: 1, overlap });
    const large = await summarizedEvents({ bytes: 24_000, interval: 1, overlap });
    const perEvent = (run: { handed: number; events: number }) => run.handed / run.events;
    expect(perEvent(large) / perEvent(small)).toBeLessThan(1.1);
    // Each event is handed over at most 1 + overlap / interval times.
    expect(perEvent(large)).toBeLessThanOrEqual(1 + overlap + 0.01);
  }, 120_000);

  it('refuses an overlap over the bound with a 400 naming overlap, before replaying', async () => {
    let replays = 0;
    const fixture = inspectorFixture({
      inspector: {
        replay: (options) => {
          replays++;
          return inspectorReplay(options);
        },
      },
    });
    const { text } = chatTranscript({ bytes: 2_000 });
    for (const [interval, overlap] of [
      [1, 1_000_000],
      [1, 5],
      [10, 41],
    ]) {
      const response = await post(fixture, { transcript: text, interval, overlap });
      expect(response.status).toBe(400);
      const problem = (await response.json()) as { field: string; detail: string };
      expect(problem.field).toBe('overlap');
      expect(problem.detail).toContain(`${overlap}`);
    }
    expect(replays).toBe(0);
    // At the bound: replayed.
    const allowed = await post(fixture, { transcript: text, interval: 10, overlap: 40 });
    expect(allowed.status, await allowed.clone().text()).toBe(200);
    expect(replays).toBe(1);
  }, 120_000);

  it('a byte ceiling no request fits under is a 400 naming maxRequestBytes, not a 500', async () => {
    const fixture = inspectorFixture({ inspector: { replay: inspectorReplay } });
    const { text } = chatTranscript({ bytes: 2_000 });
    for (const maxRequestBytes of [1, 200]) {
      const response = await post(fixture, { transcript: text, maxRequestBytes, threshold: 100 });
      expect(response.status, await response.clone().text()).toBe(400);
      expect(await response.json()).toMatchObject({ field: 'maxRequestBytes' });
    }
  }, 120_000);
});
