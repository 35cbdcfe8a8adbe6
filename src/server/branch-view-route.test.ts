/**
 * `GET /apps/:app/users/:user/sessions/:session/view?branch=`: the view a workflow branch's next
 * request would see (docs/workflows.md#branch-views), with the instruction of the agent on that
 * branch; never a sibling's event, call, answer or summary.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createTriageSweep } from '../../examples/triage-sweep/sweep.js';
import type { Event } from '../events/types.js';
import { Runner } from '../runtime/turn/runner.js';
import { InMemorySessionService } from '../sessions/in-memory-session-service.js';
import { startTestServer, type TestServer } from './test-helpers/test-server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const key = { appName: 'triage', userId: 'alice', sessionId: 'sweep' };

interface ViewJson {
  branch?: string;
  agent?: string;
  systemInstruction?: string;
  contents: unknown[];
  checkpointSeq?: number;
  tailEvents: number;
}

describe('GET .../view?branch=', () => {
  it("answers each branch's own view, its summary as checkpoint, never a sibling's event", async () => {
    const sweep = createTriageSweep({ pages: 4 });
    const service = new InMemorySessionService();
    const runner = new Runner({
      appName: key.appName,
      agent: sweep.agent,
      sessionService: service,
      compaction: sweep.compaction,
      summarizer: sweep.summarizer,
      logger: false,
    });
    await service.createSession(key);
    for await (const _event of runner.run({ ...key, newMessage: 'triage' })) {
      // stored as they come
    }
    server = await startTestServer({ service, serverOptions: { runner } });
    const stored: Event[] = (await service.listEvents({ ...key, limit: 1000 })).events;
    const path = `${server.url}/apps/triage/users/alice/sessions/sweep/view`;
    const read = async (query: string) => {
      const response = await fetch(`${path}${query}`);
      expect(response.status).toBe(200);
      return (await response.json()) as ViewJson;
    };
    const names = [...sweep.specialistModels.keys()];
    for (const name of names) {
      const branch = `sweep.${name}`;
      const view = await read(`?branch=${branch}`);
      expect(view).toMatchObject({ branch, agent: name });
      expect(view.systemInstruction).toContain(`You are the ${name} specialist.`);
      // The checkpoint is this branch's own summary.
      const checkpoint = stored.find((event) => event.seq === view.checkpointSeq);
      expect(checkpoint?.branch).toBe(branch);
      expect(checkpoint?.actions.branchCompaction).toBeDefined();
      const text = JSON.stringify(view.contents);
      expect(text).toContain(sweep.finalAnswers.get(name));
      for (const sibling of names.filter((other) => other !== name)) {
        expect(text).not.toContain(sweep.pageMarker(sibling));
        expect(text).not.toContain(`${sibling}-read-`);
        expect(text).not.toContain(`FINDING(${sibling})`);
        expect(text).not.toMatch(new RegExp(`Digest of \\[[^\\]]*\\b${sibling}\\b`));
      }
    }
    const trunk = await read('?branch=');
    expect(trunk).toMatchObject({ branch: '', agent: 'triage' });
    expect(trunk.checkpointSeq).toBeUndefined();
    const trunkText = JSON.stringify(trunk.contents);
    for (const answer of sweep.finalAnswers.values()) expect(trunkText).toContain(answer);
    for (const name of names) expect(trunkText).not.toContain(sweep.pageMarker(name));
    // Absent: the unscoped view, as before (the whole session, every branch's pages).
    const whole = await read('');
    expect(whole.branch).toBeUndefined();
    for (const name of names)
      expect(JSON.stringify(whole.contents)).toContain(sweep.pageMarker(name));
  });
});
