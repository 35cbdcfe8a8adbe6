import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { estimatePartTokens } from '../compaction/token-estimate.js';
import { importAdk } from '../importers/adk.js';
import { codeAsText, toAiSdkPrompt } from '../models/to-ai-sdk-prompt.js';
import { InMemorySessionService } from '../sessions/in-memory-session-service.js';
import { renderEvents } from '../summarizers/render.js';
import { fromAdkSessionJson, toAdkSessionJson } from './adk-json.js';
import type { Event, NewEvent } from './types.js';

type Json = Record<string, unknown> & { events: Array<Record<string, unknown>> };

function fixture(name: string): Json {
  return JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8'));
}

/** Stores imported events in a new session, as `orrery import` does (seqs 1, 2, 3...). */
async function storeEvents(
  service: InMemorySessionService,
  key: { appName: string; userId: string; sessionId: string },
  events: NewEvent[],
): Promise<void> {
  await service.createSession(key);
  for (const event of events) {
    if (event.actions.compaction) {
      const { checkpoint } = await service.loadView(key);
      await service.appendCompaction({
        ...key,
        event,
        expectedCheckpointSeq: checkpoint?.seq ?? null,
      });
    } else await service.appendEvent({ ...key, event });
  }
}

function roundTrip(original: Json, casing: 'snake' | 'camel'): Record<string, unknown> {
  const imported = fromAdkSessionJson(structuredClone(original));
  return toAdkSessionJson({
    session: {
      sessionId: imported.sessionId,
      appName: imported.appName,
      userId: imported.userId,
      state: imported.state,
      lastUpdateTime: imported.lastUpdateTime,
    },
    events: imported.events,
    casing,
  });
}

describe('ADK for Python parts and fields orrery did not model', () => {
  const original = fixture('adk-python-parts.json');

  it('exports what it imported: file, code and result parts, usage details, extra fields', () => {
    expect(roundTrip(original, 'snake')).toEqual(original);
  });

  it('reads the new kinds and fields in orrery casing', () => {
    const [user, model, call, response, note] = fromAdkSessionJson(original).events;
    expect(user!.content!.parts[1]).toEqual({
      fileData: {
        fileUri: 'gs://analyst-uploads/2025/signups.csv',
        mimeType: 'text/csv',
        displayName: 'signups.csv',
      },
    });
    expect(user!.content!.parts[2]!.inlineData!.displayName).toBe('logo.png');
    expect(user!.content!.parts[3]).toMatchObject({
      videoMetadata: { end_offset: '12s', start_offset: '4s' },
    });
    expect(model!.content!.parts[0]!.executableCode!.language).toBe('PYTHON');
    expect(model!.content!.parts[1]!.codeExecutionResult!.outcome).toBe('OUTCOME_OK');
    expect(model!.usageMetadata).toMatchObject({
      trafficType: 'ON_DEMAND',
      promptTokensDetails: [
        { modality: 'TEXT', tokenCount: 3122 },
        { modality: 'IMAGE', tokenCount: 258 },
      ],
      cacheTokensDetails: [{ modality: 'TEXT', tokenCount: 1024 }],
    });
    expect(call!.content!.parts[0]!.functionCall).toMatchObject({
      willContinue: false,
      partialArgs: [{ jsonPath: '$.query', stringValue: 'signups by region', willContinue: false }],
    });
    expect(response!.content!.parts[0]!.functionResponse).toMatchObject({
      willContinue: true,
      scheduling: 'WHEN_IDLE',
    });
    expect(note!.invocationId).toBe('');
  });

  it('stores the session whole, the empty invocation id included', async () => {
    const service = new InMemorySessionService();
    const key = { appName: 'a', userId: 'u', sessionId: 's' };
    const result = importAdk(original);
    await storeEvents(service, key, result.events);
    const stored = (await service.getSession({ ...key, events: 'full' }))!.events as Event[];
    expect(stored.map(({ seq: _seq, ...event }) => event)).toEqual(result.events);
  });

  it('counts, renders and sends the new part kinds', () => {
    const [user, model] = fromAdkSessionJson(original).events as Event[];
    const code = model!.content!.parts[0]!;
    expect(estimatePartTokens(user!.content!.parts[1]!)).toBe(258);
    expect(estimatePartTokens(code)).toBeGreaterThan(20);
    const transcript = renderEvents({ events: [user!, model!] });
    expect(transcript).toContain('[file text/csv: gs://analyst-uploads/2025/signups.csv]');
    expect(transcript).toContain('code (PYTHON): import pandas as pd');
    expect(transcript).toContain('code result OUTCOME_OK: day');
    const prompt = toAiSdkPrompt({ contents: [user!.content!, model!.content!] });
    expect(prompt[0]).toMatchObject({
      role: 'user',
      content: [
        { type: 'text' },
        {
          type: 'file',
          mediaType: 'text/csv',
          data: new URL('gs://analyst-uploads/2025/signups.csv'),
        },
        { type: 'file', mediaType: 'image/png' },
        { type: 'file', mediaType: 'video/mp4' },
      ],
    });
    expect(prompt[1]).toMatchObject({
      role: 'assistant',
      content: [
        { type: 'text', text: codeAsText(code) },
        { type: 'text', text: expect.stringContaining('Code execution result (OUTCOME_OK):\nday') },
        { type: 'text' },
      ],
    });
    expect(codeAsText(code)).toMatch(/^```python\nimport pandas/);
  });
});

describe('sessions other ADKs wrote', () => {
  it('ADK Go: RFC 3339 timestamps (nanoseconds, offsets), compaction fields it adds', () => {
    const original = fixture('adk-go-session.json');
    const imported = fromAdkSessionJson(original);
    const [first, second, compaction, last] = imported.events;
    expect(first!.timestamp).toBeCloseTo(1736412000.101, 3);
    expect(second!.timestamp).toBe(1736412002.5);
    expect(last!.timestamp).toBe(1736412000);
    expect(compaction!.actions.compaction).toMatchObject({
      startSeq: 1,
      endSeq: 2,
      rolling: false,
      excludedEvents: [],
    });
    expect(imported.lastUpdateTime).toBe(1736412000);
    const exported = roundTrip(original, 'camel') as Json;
    const expected = structuredClone(original.events);
    // The one addition by design: orrery's derived fields on the compaction.
    expected[2]!.customMetadata = {
      orrery: {
        compaction: {
          startSeq: 1,
          endSeq: 2,
          trigger: 'sliding_window',
          tokensBefore: 0,
          tokensAfter: 0,
          summarizer: 'adk',
          rolling: false,
        },
      },
    };
    expect(exported.events).toEqual(expected);
  });

  it('ADK Java: epoch-millisecond timestamps and the list form of customMetadata', () => {
    const original = fixture('adk-java-session.json');
    const imported = fromAdkSessionJson(original);
    expect(imported.events.map((event) => event.timestamp)).toEqual([
      1736412000.123, 1736412002.456,
    ]);
    expect(roundTrip(original, 'camel')).toEqual(original);
    // orrery's own fields ride in the list as one more entry, and read back.
    const stored = { ...(imported.events[1] as Event), seq: 2 };
    const again = toAdkSessionJson({ session: { state: {} }, events: [stored] }) as Json;
    expect(again.events[0]!.customMetadata).toEqual([
      { key: 'channel', stringValue: 'web' },
      { key: 'orrery', stringValue: JSON.stringify({ orrery: { seq: 2 } }) },
    ]);
    expect(fromAdkSessionJson(again).events[0]).toEqual(stored);
  });

  it('ADK Rust: RFC 3339 timestamps, both invocation id spellings, empty branch', () => {
    const imported = fromAdkSessionJson(fixture('adk-rust-session.json'));
    const [first, second] = imported.events;
    expect(first).toMatchObject({ invocationId: 'inv-1', branch: '', timestamp: 1736412000.25 });
    expect(second!.timestamp).toBeCloseTo(1736412001.750123, 6);
    expect(second!.turnComplete).toBe(true);
    expect(second!.customMetadata).toEqual({
      adkFields: { interrupted: false },
      adkTimestamps: { timestamp: '2025-01-09T08:40:01.750123Z' },
    });
  });
});
