import { describe, expect, it } from 'vitest';
import type { Content, Event } from '../events/types.js';
import { parseDigest } from './digest-format.js';
import { DigestSummarizer } from './digest-summarizer.js';
import { agentText, makeEvent, userText } from './test-helpers/test-events.js';

function textOf(content: Content | undefined): string {
  return content?.parts[0]?.text ?? '';
}

/** Identifier lines (`a, b [seq N]`) as the identifiers they list, tags left out. */
function untag(items: string[] | undefined): string[] {
  return (items ?? []).flatMap((item) => item.replace(/ \[seq [0-9][0-9, -]*\]$/, '').split(', '));
}

function incidentEvents(): Event[] {
  return [
    userText(1, 'Investigate INC-4411: checkout latency\nsince v2.3.1 deploy'),
    makeEvent(2, 'agent', [
      { text: 'internal planning', thought: true },
      {
        functionCall: {
          id: 'c1',
          name: 'query_logs',
          args: {
            service: 'checkout',
            since: '2024-05-01',
            limit: 200,
            filters: { level: 'error' },
          },
        },
      },
    ]),
    makeEvent(3, 'agent', [
      {
        functionResponse: {
          id: 'c1',
          name: 'query_logs',
          response: {
            lines: ['timeout at /srv/checkout/app.py'],
            traceId: '123e4567-e89b-12d3-a456-426614174000',
          },
        },
      },
    ]),
    makeEvent(4, 'agent', [
      { functionCall: { id: 'c2', name: 'restart_pod', args: { pod: 'checkout-7f9c' } } },
    ]),
    makeEvent(5, 'agent', [
      {
        functionResponse: {
          id: 'c2',
          name: 'restart_pod',
          response: { error: 'permission denied for role viewer' },
        },
      },
    ]),
    makeEvent(6, 'agent', [], { errorCode: 'MALFORMED_FUNCTION_CALL', errorMessage: 'bad args' }),
    makeEvent(7, 'agent', [{ functionCall: { id: 'c3', name: 'page_oncall', args: {} } }]),
    agentText(8, 'Root cause is the pool size; see https://grafana.example.com/d/abc.'),
  ];
}

describe('DigestSummarizer', () => {
  it('returns null with no events and no previous summary', async () => {
    expect(await new DigestSummarizer().summarize({ events: [] })).toBeNull();
  });

  it('lists requests, calls, errors, open calls, identifiers and last results', async () => {
    const summary = await new DigestSummarizer().summarize({ events: incidentEvents() });
    const sections = parseDigest(textOf(summary?.content))!;
    expect(summary?.content.role).toBe('model');
    expect(summary?.usageMetadata).toBeUndefined();
    expect(sections.userRequests).toEqual([
      'Investigate INC-4411: checkout latency\nsince v2.3.1 deploy [seq 1]',
    ]);
    expect(sections.toolCalls).toEqual([
      'query_logs(service="checkout", since="2024-05-01", limit=200, filters={…}) [seq 2]',
      'restart_pod(pod="checkout-7f9c") [seq 4]',
      'page_oncall() [seq 7]',
    ]);
    expect(sections.errors).toEqual([
      'restart_pod(c2): permission denied for role viewer [seq 5]',
      'agent: MALFORMED_FUNCTION_CALL: bad args [seq 6]',
    ]);
    expect(sections.openCalls).toEqual(['page_oncall(c3) [seq 7]']);
    // One line per seq: the identifiers of seq 1, of seq 3 (the tool's result), of seq 8.
    expect(sections.identifiers[0]).toBe('v2.3.1, INC-4411 [seq 1]');
    expect(sections.identifiers).toContain(
      '123e4567-e89b-12d3-a456-426614174000, /srv/checkout/app.py [seq 3]',
    );
    for (const identifier of [
      'INC-4411',
      'v2.3.1',
      '/srv/checkout/app.py',
      '123e4567-e89b-12d3-a456-426614174000',
      'https://grafana.example.com/d/abc',
    ]) {
      expect(untag(sections.identifiers)).toContain(identifier);
    }
    expect(sections.agentAnswers.at(-1)).toMatch(
      /^agent: Root cause is the pool size; see https:\/\/grafana.example.com\/d\/abc. \[seq \d+\]$/,
    );
    expect(textOf(summary?.content)).not.toContain('internal planning');
  });

  it('is deterministic: the same input gives the same output', async () => {
    const first = await new DigestSummarizer().summarize({ events: incidentEvents() });
    const second = await new DigestSummarizer().summarize({ events: incidentEvents() });
    expect(textOf(second?.content)).toBe(textOf(first?.content));
  });

  it('carries the previous digest forward, merged without duplicates', async () => {
    const summarizer = new DigestSummarizer();
    const first = await summarizer.summarize({ events: incidentEvents() });
    const second = await summarizer.summarize({
      previousSummary: first!.content,
      events: [
        userText(9, 'Now raise the pool size to 50 in config/pool.yaml'),
        makeEvent(10, 'agent', [
          { functionCall: { id: 'c4', name: 'restart_pod', args: { pod: 'checkout-7f9c' } } },
        ]),
        makeEvent(11, 'agent', [
          { functionResponse: { id: 'c3', name: 'page_oncall', response: { paged: 'alice' } } },
        ]),
        makeEvent(12, 'agent', [
          { functionResponse: { id: 'c4', name: 'restart_pod', response: { restarted: true } } },
        ]),
      ],
    });
    const sections = parseDigest(textOf(second?.content))!;
    expect(sections.userRequests).toEqual([
      'Investigate INC-4411: checkout latency\nsince v2.3.1 deploy [seq 1]',
      'Now raise the pool size to 50 in config/pool.yaml [seq 9]',
    ]);
    // The repeated call appears once, as the most recent, with its newest seq.
    expect(sections.toolCalls.filter((call) => call.startsWith('restart_pod'))).toHaveLength(1);
    expect(sections.toolCalls.at(-1)).toBe('restart_pod(pod="checkout-7f9c") [seq 10]');
    expect(sections.errors).toContain('restart_pod(c2): permission denied for role viewer [seq 5]');
    // c3 was answered in this window: no longer open.
    expect(sections.openCalls).toEqual([]);
    expect(sections.identifiers).toContain('v2.3.1, INC-4411 [seq 1]');
    expect(sections.identifiers).toContain('config/pool.yaml [seq 9]');
  });

  it('keeps a model-written previous summary as the earlier summary', async () => {
    const summary = await new DigestSummarizer().summarize({
      previousSummary: { role: 'model', parts: [{ text: '## User goal\nShip release 4.2.0' }] },
      events: [userText(7, 'continue')],
    });
    const sections = parseDigest(textOf(summary?.content))!;
    // A rolling summary: it covered every seq before the new events.
    expect(sections.earlierSummary).toEqual(['## User goal\nShip release 4.2.0 [seq 1-6]']);
    expect(sections.userRequests).toEqual(['continue [seq 7]']);
  });

  it('stays within maxChars, keeping the goal, the latest request and recent identifiers', async () => {
    const events: Event[] = [userText(1, 'GOAL: migrate every service to node 20')];
    for (let index = 0; index < 60; index++) {
      events.push(userText(2 + index * 2, `step ${index}: handle SVC-${1000 + index}`));
      events.push(
        makeEvent(3 + index * 2, 'agent', [
          { functionCall: { id: `c${index}`, name: 'migrate', args: { service: `svc-${index}` } } },
        ]),
      );
    }
    events.push(userText(200, 'LATEST: report the results'));
    const summarizer = new DigestSummarizer({ maxChars: 1500 });
    const summary = await summarizer.summarize({ events });
    const text = textOf(summary?.content);
    expect(text.length).toBeLessThanOrEqual(1500);
    const sections = parseDigest(text)!;
    expect(sections.userRequests[0]).toBe('GOAL: migrate every service to node 20 [seq 1]');
    expect(sections.userRequests.at(-1)).toBe('LATEST: report the results [seq 200]');
    expect(untag(sections.identifiers)).toContain('SVC-1059');
    expect(untag(sections.identifiers)).not.toContain('SVC-1000');
  });

  it('rejects a tiny maxChars, naming it', () => {
    expect(() => new DigestSummarizer({ maxChars: 10 })).toThrow(/maxChars=10/);
  });
});

describe('DigestSummarizer redaction', () => {
  it('copies no secret into the digest, even from events stored unredacted', async () => {
    const password = 'Tr0ub4dor&3';
    const awsSecret = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
    const iban = 'DE89370400440532013000';
    const events = [
      userText(1, `Pay ${iban} and log in as bob with password: ${password}`),
      makeEvent(2, 'agent', [
        { functionCall: { id: 'c1', name: 'login', args: { user: 'bob', password } } },
      ]),
      makeEvent(3, 'agent', [
        {
          functionResponse: {
            id: 'c1',
            name: 'login',
            response: { error: `denied for key AKIAIOSFODNN7EXAMPLE / ${awsSecret}`, iban },
          },
        },
      ]),
      makeEvent(4, 'agent', [], { errorCode: 'FAILED', errorMessage: `bad secret ${awsSecret}` }),
    ];
    const summary = await new DigestSummarizer().summarize({ events });
    const text = textOf(summary?.content);
    expect(text).toContain('login(user="bob", password="[REDACTED:secret]")');
    expect(text).toContain('[REDACTED:iban]');
    for (const secret of [password, awsSecret, iban, 'AKIAIOSFODNN7EXAMPLE']) {
      expect(text, secret).not.toContain(secret);
    }
  });

  it('names the seq range it covers and the seq of every item', async () => {
    const summary = await new DigestSummarizer().summarize({ events: incidentEvents() });
    const text = textOf(summary?.content);
    expect(text.split('\n')[1]).toMatch(/^Covers seq 1-\d+;/);
    // Every bullet (an item's first line; a multi-line request ends with it) names its seq.
    const items = Object.values(parseDigest(text) ?? {}).flat();
    expect(items.length).toBeGreaterThan(10);
    for (const item of items) expect(item).toMatch(/ \[seq \d+\]$/);
  });

  it('keeps a long path argument whole instead of cutting it in the middle', async () => {
    const path = `/home/dev/projects/orrery/packages/runtime/src/compaction/strategies/${'nested/'.repeat(3)}summary-window.ts`;
    const summary = await new DigestSummarizer().summarize({
      events: [
        makeEvent(1, 'agent', [{ functionCall: { id: 'c1', name: 'read_file', args: { path } } }]),
      ],
    });
    expect(parseDigest(textOf(summary?.content))?.toolCalls).toEqual([
      `read_file(path="${path}") [seq 1]`,
    ]);
  });

  it('keeps more than five of the agent answers', async () => {
    const events = Array.from({ length: 12 }, (_, index) =>
      agentText(index + 1, `answer number ${index}`),
    );
    const summary = await new DigestSummarizer().summarize({ events });
    expect(parseDigest(textOf(summary?.content))?.agentAnswers).toHaveLength(12);
  });

  it('reads identifiers from the text a tool returned, not from its JSON escapes', async () => {
    const summary = await new DigestSummarizer().summarize({
      events: [
        makeEvent(1, 'agent', [
          {
            functionResponse: {
              id: 'c1',
              name: 'ls',
              response: { output: 'README.md\nlib/util.ts\ntest/a.test.ts' },
            },
          },
        ]),
      ],
    });
    const identifiers = untag(parseDigest(textOf(summary?.content))?.identifiers);
    expect(identifiers).toContain('lib/util.ts');
    expect(
      identifiers.filter(
        (identifier) => identifier.startsWith('nlib') || identifier.startsWith('ntest'),
      ),
    ).toEqual([]);
  });
});
