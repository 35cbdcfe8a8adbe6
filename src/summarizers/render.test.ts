import { describe, expect, it } from 'vitest';
import type { Event } from '../events/types.js';
import { capText, renderEvent, renderEvents } from './render.js';
import { agentText, makeEvent, userText } from './test-helpers/test-events.js';

describe('capText', () => {
  it('returns text within the cap unchanged', () => {
    expect(capText({ text: 'short', maxChars: 10 })).toBe('short');
  });

  it('keeps head and tail and says how much was omitted', () => {
    const text = `HEAD${'x'.repeat(5000)}TAIL`;
    const capped = capText({ text, maxChars: 100 });
    expect(capped.startsWith('HEAD')).toBe(true);
    expect(capped.endsWith('TAIL')).toBe(true);
    expect(capped).toContain(`… [${text.length - 100} chars omitted] …`);
    expect(capped.length).toBeLessThan(140);
  });

  it('never cuts a surrogate pair in half', () => {
    const text = '😀'.repeat(100);
    const capped = capText({ text, maxChars: 11 });
    expect(capped).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
    expect(capped).not.toMatch(/(?<![\ud800-\udbff])[\udc00-\udfff]/);
  });
});

describe('renderEvent', () => {
  it('renders text verbatim, leaves thoughts out and names author and role', () => {
    const event = makeEvent(1, 'planner', [
      { text: 'secret reasoning', thought: true },
      { text: 'Line one\n  indented {x}' },
    ]);
    const block = renderEvent({ event });
    expect(block).toBe('[planner (model)]\nLine one\n  indented {x}');
    expect(block).not.toContain('secret reasoning');
  });

  it('renders calls, responses and inline data', () => {
    const call = makeEvent(1, 'agent', [
      { functionCall: { id: 'c1', name: 'read_file', args: { path: '/etc/hosts' } } },
    ]);
    const response = makeEvent(2, 'agent', [
      { functionResponse: { id: 'c1', name: 'read_file', response: { content: 'ok' } } },
    ]);
    const image = makeEvent(3, 'user', [{ inlineData: { mimeType: 'image/png', data: 'AAAA' } }]);
    expect(renderEvent({ event: call })).toBe(
      '[agent (model)]\ncall read_file(c1) {"path":"/etc/hosts"}',
    );
    expect(renderEvent({ event: response })).toBe(
      '[agent (user)]\nresult read_file(c1): {"content":"ok"}',
    );
    expect(renderEvent({ event: image })).toBe('[user (user)]\n[inline image/png, 3 bytes]');
  });

  it('caps each call and response item, keeping head and tail', () => {
    const log = `BEGIN${'.'.repeat(10_000)}END`;
    const event = makeEvent(1, 'agent', [
      { functionResponse: { id: 'c1', name: 'tail_log', response: { log } } },
      { functionCall: { id: 'c2', name: 'grep', args: { pattern: `P${'y'.repeat(500)}Q` } } },
    ]);
    const block = renderEvent({ event, maxItemChars: 200 })!;
    const [, resultLine, callLine] = block.split('\n');
    expect(resultLine).toMatch(
      /^result tail_log\(c1\): \{"log":"BEGIN\.+… \[\d+ chars omitted\] …\.+END"\}$/,
    );
    expect(resultLine!.length).toBeLessThan(300);
    expect(callLine).toContain('chars omitted');
    expect(callLine).toContain('"pattern":"P');
    expect(callLine!.endsWith('Q"}')).toBe(true);
  });

  it('shows an event error and skips empty and compaction events', () => {
    const failed = makeEvent(1, 'agent', [], {
      errorCode: 'RATE_LIMIT',
      errorMessage: 'slow down',
    });
    expect(renderEvent({ event: failed })).toBe('[agent (model)]\nerror RATE_LIMIT: slow down');
    const thoughtOnly = makeEvent(2, 'agent', [{ text: 'hmm', thought: true }]);
    expect(renderEvent({ event: thoughtOnly })).toBeNull();
    const compaction: Event = {
      ...makeEvent(3, 'user', []),
      content: undefined,
      actions: {
        compaction: {
          startSeq: 1,
          endSeq: 2,
          startTimestamp: 1,
          endTimestamp: 2,
          compactedContent: { role: 'model', parts: [{ text: 'OLD SUMMARY' }] },
          trigger: 'manual',
          tokensBefore: 10,
          tokensAfter: 5,
          summarizer: 'digest',
        },
      },
    };
    expect(renderEvent({ event: compaction })).toBeNull();
    const transcript = renderEvents({
      events: [userText(1, 'hello'), compaction, agentText(4, 'hi')],
    });
    expect(transcript).toBe('[user (user)]\nhello\n\n[agent (model)]\nhi');
  });
});
