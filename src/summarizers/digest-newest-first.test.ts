import { describe, expect, it } from 'vitest';
import type { Content, Event } from '../events/types.js';
import { DigestSummarizer } from './digest-summarizer.js';
import { ReferenceDigestSummarizer } from './test-helpers/reference-digest-summarizer.js';
import { agentText, makeEvent, userText } from './test-helpers/test-events.js';

/**
 * A session that exercises every section: repeated and new requests, repeated tool calls,
 * errors (a field, a status, an event error), paths, UUIDs and tickets, secrets, calls left
 * open and calls answered later. `variety` bounds how many distinct values repeat.
 */
function mixedSession(count: number, variety: number): Event[] {
  const events: Event[] = [];
  for (let seq = 1; events.length < count; seq++) {
    const turn = seq % variety;
    switch (seq % 7) {
      case 0:
        events.push(userText(seq, `Check INC-${1000 + turn} on host-${turn % 3} please`));
        break;
      case 1:
        events.push(
          makeEvent(seq, 'agent', [
            {
              functionCall: {
                id: `call-${seq}`,
                name: 'read_file',
                args: { path: `/srv/app/module-${turn}.ts`, token: 'sk-abcdefghijklmnopqrstu' },
              },
            },
          ]),
        );
        break;
      case 2:
        events.push(
          makeEvent(seq, 'agent', [
            {
              functionResponse: {
                id: `call-${seq - 1}`,
                name: 'read_file',
                response:
                  turn % 5 === 0
                    ? { error: `ENOENT /srv/app/module-${turn}.ts`, password: 'hunter2hunter2' }
                    : {
                        status: turn % 11 === 0 ? 'failed' : 'ok',
                        lines: [
                          `trace 123e4567-e89b-12d3-a456-4266141740${String(turn % 100).padStart(2, '0')}`,
                        ],
                      },
              },
            },
          ]),
        );
        break;
      case 3:
        events.push(agentText(seq, `Module ${turn} looks fine; mail ops@example.com if not.`));
        break;
      case 4:
        // Left open: never answered.
        events.push(
          makeEvent(seq, 'agent', [
            {
              functionCall: { id: `open-${seq}`, name: 'page_oncall', args: { team: `t${turn}` } },
            },
          ]),
        );
        break;
      case 5:
        events.push(
          makeEvent(seq, 'agent', [], { errorCode: 'E42', errorMessage: `boom ${turn}` }),
        );
        break;
      default:
        events.push(userText(seq, 'Check INC-1000 on host-0 please'));
    }
  }
  return events;
}

describe('DigestSummarizer reads its sections newest first', () => {
  it('writes the digest the oldest-first reader wrote, for one window', async () => {
    for (const variety of [3, 40, 5_000]) {
      const events = mixedSession(1_500, variety);
      const expected = await new ReferenceDigestSummarizer().summarize({ events });
      const actual = await new DigestSummarizer().summarize({ events });
      expect(actual).toEqual(expected);
    }
  });

  it('writes the same rolling digest window after window (the carried sections too)', async () => {
    const events = mixedSession(1_200, 60);
    const reference = new ReferenceDigestSummarizer({ maxChars: 3_000 });
    const summarizer = new DigestSummarizer({ maxChars: 3_000 });
    let expectedPrevious: Content | undefined;
    let actualPrevious: Content | undefined;
    for (let start = 0; start < events.length; start += 150) {
      const window = events.slice(start, start + 150);
      const expected = await reference.summarize({
        events: window,
        previousSummary: expectedPrevious,
      });
      const actual = await summarizer.summarize({
        events: window,
        previousSummary: actualPrevious,
      });
      expect(actual).toEqual(expected);
      expect(actual?.content).toBeDefined();
      expectedPrevious = expected?.content;
      actualPrevious = actual?.content;
    }
  });

  it('redacts only the newest events once every newest-first section is full', async () => {
    // Every event has identifiers and fills every section quickly; a secret in each old event
    // would be redacted (and counted) only if the reader reached it.
    const events = mixedSession(20_000, 20_000);
    let reads = 0;
    const counted = events.map((event) => {
      const parts = event.content?.parts ?? [];
      const call = parts[0]?.functionCall;
      if (!call) return event;
      const args = call.args ?? {};
      return {
        ...event,
        content: {
          ...event.content,
          role: event.content?.role ?? 'model',
          parts: [
            {
              functionCall: {
                ...call,
                get args() {
                  reads++;
                  return args;
                },
              },
            },
          ],
        },
      } as Event;
    });
    await new DigestSummarizer().summarize({ events: counted });
    const calls = counted.filter((event) => event.content?.parts[0]?.functionCall).length;
    // Read only by the newest events' sections, not once (or more) per call.
    expect(reads).toBeLessThan(calls / 20);
  });
});
