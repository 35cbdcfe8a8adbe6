import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fromAdkSessionJson, toAdkSessionJson } from './adk-json.js';

const fixture = (): unknown =>
  JSON.parse(
    readFileSync(new URL('./fixtures/adk-python-session.json', import.meta.url), 'utf8'),
  ) as unknown;

describe('fromAdkSessionJson on ADK for Python output', () => {
  it('reads the snake_case fixture', () => {
    const imported = fromAdkSessionJson(fixture());
    expect(imported.appName).toBe('incident_app');
    expect(imported.userId).toBe('oncall-42');
    expect(imported.sessionId).toBe('6f0c1d2e-4b1a-4c55-9d7e-2a9e6f1b8c01');
    expect(imported.lastUpdateTime).toBe(1736412120.004);
    expect(imported.state['user:timezone']).toBe('Europe/Berlin');
    const [first, call, response, confirm, image, answer, compaction, last] = imported.events;
    expect(imported.events).toHaveLength(8);
    expect(first!.invocationId).toBe('e-5a8f3c1e-2d4b-4f6a-9b0c-1d2e3f4a5b6c');
    expect(first!.seq).toBeUndefined();
    expect(call!.content!.parts[0]).toEqual({
      text: 'I should look up the deploy log first.',
      thought: true,
    });
    expect(call!.content!.parts[1]).toEqual({
      functionCall: {
        id: 'adk-1c9e7f0a-3b2d-4e5f-8a9b-0c1d2e3f4a5b',
        name: 'get_deploy_log',
        args: { service: 'checkout', since: '2025-01-08T20:00:00Z' },
      },
      thoughtSignature: 'CpwBAdHtim9Xq0lZ3k4xY2Fvb2V0YWJjZGVm',
    });
    expect(call!.usageMetadata).toEqual({
      promptTokenCount: 812,
      candidatesTokenCount: 41,
      totalTokenCount: 949,
      thoughtsTokenCount: 96,
      promptTokensDetails: [{ modality: 'TEXT', tokenCount: 812 }],
    });
    expect(call!.finishReason).toBe('STOP');
    expect(call!.customMetadata).toEqual({ adkFields: { modelVersion: 'gemini-2.5-flash' } });
    expect(response!.content!.parts[0]!.functionResponse?.response).toEqual({
      result: {
        status: 'failed',
        step: 'db-migrate',
        error: 'relation "orders_v2" already exists',
      },
    });
    expect(response!.actions.stateDelta).toEqual({ last_failed_step: 'db-migrate' });
    expect(confirm!.actions.requestedToolConfirmations).toEqual({
      'adk-9d8c7b6a-5f4e-4d3c-2b1a-0f9e8d7c6b5a': {
        hint: 'Roll checkout back to v2025.01.07-3?',
        confirmed: false,
      },
    });
    expect(confirm!.longRunningToolIds).toEqual(['adk-9d8c7b6a-5f4e-4d3c-2b1a-0f9e8d7c6b5a']);
    expect(image!.content!.parts[1]!.inlineData?.mimeType).toBe('image/png');
    expect(answer!.actions.stateDelta).toEqual({ diagnosis: 'duplicate table orders_v2' });
    expect(last!.content!.parts[0]!.text).toBe('Yes, roll it back.');
    // ADK's own compaction: the range comes from the timestamps of events 1-4 (positions 1-4).
    expect(compaction!.content).toBeUndefined();
    expect(compaction!.actions.compaction).toEqual({
      startSeq: 1,
      endSeq: 4,
      startTimestamp: 1736412000.101234,
      endTimestamp: 1736412004.77093,
      compactedContent: {
        role: 'model',
        parts: [
          {
            text: 'The user asked why the checkout deploy failed. get_deploy_log showed db-migrate failed: relation "orders_v2" already exists. A rollback to v2025.01.07-3 awaits confirmation.',
          },
        ],
      },
      trigger: 'sliding_window',
      tokensBefore: 0,
      tokensAfter: 0,
      summarizer: 'adk',
      rolling: false,
    });
  });

  it('writes the fixture back as it was, plus orrery metadata on the compaction', () => {
    const original = fixture() as Record<string, unknown>;
    const imported = fromAdkSessionJson(original);
    const exported = toAdkSessionJson({
      session: {
        sessionId: imported.sessionId,
        appName: imported.appName,
        userId: imported.userId,
        state: imported.state,
        lastUpdateTime: imported.lastUpdateTime,
      },
      events: imported.events,
      casing: 'snake',
    });
    const expected = structuredClone(original) as { events: Array<Record<string, unknown>> };
    // The one difference by design: orrery's derived fields.
    expected.events[6]!.custom_metadata = {
      orrery: {
        compaction: {
          startSeq: 1,
          endSeq: 4,
          trigger: 'sliding_window',
          tokensBefore: 0,
          tokensAfter: 0,
          summarizer: 'adk',
          rolling: false,
        },
      },
    };
    expect(exported).toEqual(expected);
  });

  it('treats the nulls of a dump made without exclude_none as absent', () => {
    const imported = fromAdkSessionJson({
      id: 's',
      app_name: 'a',
      user_id: 'u',
      state: {},
      last_update_time: null,
      events: [
        {
          id: 'e',
          invocation_id: 'i',
          author: 'agent',
          timestamp: 1,
          branch: null,
          partial: null,
          error_code: null,
          grounding_metadata: null,
          custom_metadata: null,
          usage_metadata: { prompt_token_count: 5, cached_content_token_count: null },
          content: {
            role: 'model',
            parts: [
              {
                text: null,
                thought: null,
                function_call: { id: 'c1', name: 'f', args: { keep: null } },
                inline_data: null,
              },
            ],
          },
          actions: {
            state_delta: {},
            transfer_to_agent: null,
            compaction: null,
            requested_tool_confirmations: { c1: { hint: null, confirmed: null, payload: null } },
          },
        },
      ],
    });
    expect(imported.lastUpdateTime).toBeUndefined();
    expect(imported.events[0]).toEqual({
      id: 'e',
      invocationId: 'i',
      author: 'agent',
      timestamp: 1,
      usageMetadata: { promptTokenCount: 5 },
      content: {
        role: 'model',
        parts: [{ functionCall: { id: 'c1', name: 'f', args: { keep: null } } }],
      },
      actions: { stateDelta: {}, requestedToolConfirmations: { c1: {} } },
    });
  });

  it('reads a bare camelCase event array and a JSON string', () => {
    const events = [
      {
        id: 'a',
        invocationId: 'i',
        author: 'user',
        timestamp: 1,
        content: { parts: [{ text: 'hi' }] },
      },
    ];
    const fromArray = fromAdkSessionJson(events);
    expect(fromArray.events[0]).toEqual({
      id: 'a',
      invocationId: 'i',
      author: 'user',
      timestamp: 1,
      content: { role: 'user', parts: [{ text: 'hi' }] },
      actions: {},
    });
    expect(fromArray.state).toEqual({});
    expect(fromAdkSessionJson(JSON.stringify({ events })).events).toEqual(fromArray.events);
  });

  it('gives id-less calls ids and pairs id-less responses by name and position', () => {
    const imported = fromAdkSessionJson([
      {
        id: 'm1',
        invocation_id: 'i',
        author: 'agent',
        timestamp: 1,
        content: {
          parts: [
            { function_call: { name: 'search', args: { q: 'a' } } },
            { function_call: { name: 'search', args: { q: 'b' } } },
          ],
        },
      },
      {
        id: 'r1',
        invocation_id: 'i',
        author: 'agent',
        timestamp: 2,
        content: {
          parts: [
            { function_response: { name: 'search', response: { hits: 1 } } },
            { function_response: { name: 'search', response: { hits: 2 } } },
          ],
        },
      },
    ]);
    const [calls, responses] = imported.events;
    const callIds = calls!.content!.parts.map((part) => part.functionCall?.id);
    expect(calls!.content!.role).toBe('model');
    expect(new Set(callIds).size).toBe(2);
    expect(responses!.content!.role).toBe('user');
    expect(responses!.content!.parts.map((part) => part.functionResponse?.id)).toEqual(callIds);
    // Deterministic: a second import agrees.
    expect(fromAdkSessionJson(JSON.parse(JSON.stringify(imported.events)))).toEqual(imported);
  });

  it('numbers a derived range by stored seq when the export carried it', () => {
    const imported = fromAdkSessionJson([
      {
        id: 'a',
        invocationId: 'i',
        author: 'user',
        timestamp: 5,
        customMetadata: { orrery: { seq: 10 } },
        content: { role: 'user', parts: [{ text: 'x' }] },
      },
      {
        id: 'b',
        invocationId: 'i',
        author: 'user',
        timestamp: 6,
        content: { role: 'user', parts: [{ text: 'y' }] },
      },
      {
        id: 'c',
        invocationId: 'j',
        author: 'user',
        timestamp: 7,
        actions: {
          compaction: {
            startTimestamp: 5,
            endTimestamp: 6,
            compactedContent: { role: 'model', parts: [{ text: 's' }] },
          },
        },
      },
    ]);
    expect(imported.events[0]!.seq).toBe(10);
    expect(imported.events[0]!.customMetadata).toBeUndefined();
    expect(imported.events[2]!.actions.compaction).toMatchObject({ startSeq: 10, endSeq: 11 });
  });
});
