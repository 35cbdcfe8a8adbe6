import { describe, expect, it } from 'vitest';
import type { Event } from '../events/types.js';
import { capText } from './cap-text.js';
import { capToolOutput } from './cap-tool-output.js';
import { renderEvent, renderEvents } from './render.js';
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
    expect(block).toBe('[seq 1 · planner (model)]\nLine one\n  indented {x}');
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
      '[seq 1 · agent (model)]\ncall read_file(c1) {"path":"/etc/hosts"}',
    );
    expect(renderEvent({ event: response })).toBe(
      '[seq 2 · agent (user)]\nresult read_file(c1): {"content":"ok"}',
    );
    expect(renderEvent({ event: image })).toBe(
      '[seq 3 · user (user)]\n[inline image/png, 3 bytes]',
    );
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
    expect(renderEvent({ event: failed })).toBe(
      '[seq 1 · agent (model)]\nerror RATE_LIMIT: slow down',
    );
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
    expect(transcript).toBe('[seq 1 · user (user)]\nhello\n\n[seq 4 · agent (model)]\nhi');
  });
});

describe('tool output for the summarizer', () => {
  /** A test run: 400 passing lines, one failure with its assertion and stack in the middle. */
  function testRun(): string {
    const lines: string[] = [];
    for (let index = 0; index < 200; index++) lines.push(`  ✓ case ${index} passes (3 ms)`);
    lines.push(' FAIL  src/billing/invoice.test.ts > totals > applies VAT');
    lines.push('AssertionError: expected 119 to be 121');
    lines.push('    at src/billing/invoice.test.ts:42:17');
    for (let index = 200; index < 400; index++) lines.push(`  ✓ case ${index} passes (3 ms)`);
    lines.push('Tests  1 failed | 400 passed');
    return lines.join('\n');
  }

  it('keeps the failure, its assertion and its stack frame from the middle of a long output', () => {
    const event = makeEvent(7, 'agent', [
      {
        functionResponse: {
          id: 'c1',
          name: 'run_tests',
          response: { stdout: testRun(), exitCode: 1 },
        },
      },
    ]);
    const block = renderEvent({ event, maxItemChars: 2000 })!;
    expect(block).toContain('FAIL  src/billing/invoice.test.ts > totals > applies VAT');
    expect(block).toContain('AssertionError: expected 119 to be 121');
    expect(block).toContain('at src/billing/invoice.test.ts:42:17');
    expect(block).toContain('Tests  1 failed | 400 passed');
    expect(block.length).toBeLessThan(2300);
  });

  it('shows a multi-line result as lines, never as JSON escapes', () => {
    const event = makeEvent(3, 'agent', [
      {
        functionResponse: {
          id: 'c1',
          name: 'ls',
          response: { output: 'README.md\nlib/util.ts', code: 0 },
        },
      },
    ]);
    expect(renderEvent({ event })).toBe(
      '[seq 3 · agent (user)]\nresult ls(c1): output:\nREADME.md\nlib/util.ts\ncode: 0',
    );
  });

  it('keeps diff file names and falls back to head and tail when no line stands out', () => {
    const hunk = Array.from({ length: 300 }, (_, index) => ` context line ${index}`).join('\n');
    const diff = `diff --git a/src/a.ts b/src/a.ts\n--- a/src/a.ts\n+++ b/src/a.ts\n${hunk}\ndiff --git a/src/z.ts b/src/z.ts\n--- a/src/z.ts\n+++ b/src/z.ts\n${hunk}\n${hunk}`;
    const capped = capToolOutput({ text: diff, maxChars: 1000 });
    expect(capped).toContain('diff --git a/src/z.ts b/src/z.ts');
    const plain = `HEAD${'x'.repeat(5000)}TAIL`;
    expect(capToolOutput({ text: plain, maxChars: 100 })).toBe(
      capText({ text: plain, maxChars: 100 }),
    );
  });
});
