/**
 * `orrery view ID --branch B`: a workflow branch's next-request view, by the server's rule
 * (`describeNextRequest`, as `GET .../view?branch=` answers): the branch's own summary as its
 * checkpoint, never a sibling's event; `--branch ''` the trunk's, scoped.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTriageSweep } from '../../examples/triage-sweep/sweep.js';
import type { Event } from '../../src/events/types.js';
import { Runner } from '../../src/runtime/turn/runner.js';
import { SqliteSessionService } from '../../src/sessions/sqlite/index.js';
import { cli, tempDir } from './in-process.js';

const key = { appName: 'triage', userId: 'alice', sessionId: 'sweep' };

interface ViewJson {
  branch?: string;
  contents: unknown[];
  checkpointSeq?: number;
  tailEvents: number;
}

describe('orrery view --branch', () => {
  it("prints each branch's own view, never a sibling's event; '' the trunk's", async () => {
    const db = join(tempDir(), 'sweep.db');
    const sweep = createTriageSweep({ pages: 4 });
    const service = new SqliteSessionService({ path: db });
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
    const stored: Event[] = (await service.listEvents({ ...key, limit: 1000 })).events;
    await service.close();
    const scope = ['--db', db, '--app', key.appName, '--user', key.userId];
    const names = [...sweep.specialistModels.keys()];
    expect(names.length).toBeGreaterThan(1);
    for (const name of names) {
      const branch = `sweep.${name}`;
      const result = await cli(['view', 'sweep', '--branch', branch, '--json', ...scope]);
      expect(result.code).toBe(0);
      const view = JSON.parse(result.stdout) as ViewJson;
      expect(view.branch).toBe(branch);
      const checkpoint = stored.find((event) => event.seq === view.checkpointSeq);
      expect(checkpoint?.branch).toBe(branch);
      expect(checkpoint?.actions.branchCompaction).toBeDefined();
      const text = JSON.stringify(view.contents);
      expect(text).toContain(sweep.finalAnswers.get(name));
      for (const sibling of names.filter((other) => other !== name)) {
        expect(text).not.toContain(sweep.pageMarker(sibling));
        expect(text).not.toContain(`FINDING(${sibling})`);
      }
      const human = await cli(['view', 'sweep', '--branch', branch, ...scope]);
      expect(human.code).toBe(0);
      expect(human.stdout).toContain(`next request for sweep on branch ${branch}: summary (seq `);
      expect(human.stdout).toContain(`contents, ~`);
    }
    const trunk = JSON.parse(
      (await cli(['view', 'sweep', '--branch', '', '--json', ...scope])).stdout,
    ) as ViewJson;
    expect(trunk.branch).toBe('');
    expect(trunk.checkpointSeq).toBeUndefined();
    const trunkText = JSON.stringify(trunk.contents);
    for (const answer of sweep.finalAnswers.values()) expect(trunkText).toContain(answer);
    for (const name of names) expect(trunkText).not.toContain(sweep.pageMarker(name));
    // Without --branch: the whole session's view, every branch's pages in it.
    const whole = JSON.parse((await cli(['view', 'sweep', '--json', ...scope])).stdout) as ViewJson;
    const wholeText = JSON.stringify(whole.contents);
    expect(names.some((name) => wholeText.includes(sweep.pageMarker(name)))).toBe(true);
  });
});
