import { describe, expect, it } from 'vitest';
import { createEventsCompactionConfig } from '../../compaction/config.js';
import { estimateEventTokens, estimatePartTokens } from '../../compaction/token-estimate.js';
import type { Event, Part } from '../../events/types.js';
import { DigestSummarizer } from '../../summarizers/digest-summarizer.js';
import { longTranscript } from '../../testing/long-transcript.js';
import { PartTokens } from '../compaction/part-tokens.js';
import { isRecordedModelCall, replayTranscript } from './replay.js';
import { replayWith } from './replay-run.js';

describe('replayWith', () => {
  it('reports the same 2,000-event replay with PartTokens as estimating every time', async () => {
    const events = longTranscript({ events: 2_000, seed: 5 });
    const summarizer = new DigestSummarizer();
    const config = createEventsCompactionConfig({
      env: {},
      enabled: true,
      tokenThreshold: 12_000,
      compactionInterval: 7,
      maxRequestBytes: 60_000,
      summarizer,
    });
    if (!config) throw new Error('expected a compaction config');
    const options = { events, config, summarizer, sessionId: 'same' };
    let estimatedParts = 0;
    const uncached = await replayWith({
      ...options,
      defaultIsModelCall: isRecordedModelCall,
      estimates: {
        part: (part: Part) => {
          estimatedParts++;
          return estimatePartTokens(part);
        },
        event: (event: Event) => estimateEventTokens(event),
      },
    });
    const cached = await replayTranscript(options);
    // Both triggers and the ceiling were at work, and the cache was asked again and again.
    const triggers = new Set(cached.compactions.map((compaction) => compaction.trigger));
    expect(triggers).toEqual(new Set(['sliding_window', 'token_threshold']));
    expect(estimatedParts).toBeGreaterThan(events.length);
    expect(cached).toEqual(uncached);
  });
});

describe('PartTokens', () => {
  it('estimates each part and event as estimatePartTokens and estimateEventTokens do', () => {
    const estimates = new PartTokens();
    const events = longTranscript({ events: 300, seed: 2 }).map(
      (event, index) => ({ ...event, seq: index + 1 }) as Event,
    );
    for (const event of events) {
      expect(estimates.event(event)).toBe(estimateEventTokens(event));
      for (const part of event.content?.parts ?? []) {
        expect(estimates.part(part)).toBe(estimatePartTokens(part));
      }
    }
    // A compaction counts as its summary.
    const compaction = {
      ...events[0],
      seq: 999,
      content: undefined,
      actions: {
        compaction: {
          startSeq: 1,
          endSeq: 2,
          startTimestamp: 1,
          endTimestamp: 2,
          compactedContent: { role: 'model', parts: [{ text: 'summary of two events' }] },
        },
      },
    } as unknown as Event;
    expect(estimates.event(compaction)).toBe(estimateEventTokens(compaction));
  });
});
