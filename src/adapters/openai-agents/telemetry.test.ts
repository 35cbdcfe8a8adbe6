/**
 * The adapter's compaction spans: `orrery.compaction {trigger}` under the span the host has
 * active when it calls the session (the Agents SDK's run, or the app's), recorded by an
 * in-memory exporter.
 */
import { trace } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import { DigestSummarizer } from '../../summarizers/digest-summarizer.js';
import { captureSpans } from '../shared/test-helpers/span-capture.js';
import { OrreryAgentsSession } from './orrery-agents-session.js';

const exporter = captureSpans();

describe('OrreryAgentsSession spans', () => {
  it("records each compaction as orrery.compaction under the host's active span", async () => {
    const session = new OrreryAgentsSession({
      sessionService: new InMemorySessionService(),
      sessionId: 'traced',
      compaction: { tokenThreshold: 600, eventRetentionSize: 2 },
      summarizer: new DigestSummarizer(),
    });
    for (let turn = 0; turn < 4; turn++) {
      await session.addItems([
        { role: 'user', content: `question ${turn} ${'about the deploy '.repeat(20)}` },
        {
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: `answer ${turn} ${'details '.repeat(30)}` }],
        },
      ]);
    }
    const tracer = trace.getTracer('host');
    await tracer.startActiveSpan('host turn', async (hostSpan) => {
      await session.runCompaction({ force: true });
      hostSpan.end();
    });
    const spans = exporter.getFinishedSpans();
    const host = spans.find((span) => span.name === 'host turn');
    const compaction = spans.find((span) => span.name === 'orrery.compaction manual');
    expect(host).toBeDefined();
    expect(compaction, spans.map((span) => span.name).join(', ')).toBeDefined();
    expect(compaction?.parentSpanContext?.spanId).toBe(host?.spanContext().spanId);
    expect(compaction?.attributes).toMatchObject({
      'gen_ai.conversation.id': 'traced',
      'orrery.compaction.trigger': 'manual',
      'orrery.compaction.outcome': 'compacted',
      'orrery.compaction.summarizer': 'digest',
    });
    expect(compaction?.attributes['orrery.compaction.tokens_before']).toBeGreaterThan(0);
  });
});
