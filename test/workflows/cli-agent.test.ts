/**
 * A workflow root loaded from `--agent` (the loader `orrery run` and `orrery serve` share): the
 * triage sweep runs end to end offline, on branches, and the lead answers last.
 */
import { describe, expect, it } from 'vitest';
import { cli } from '../cli/in-process.js';

describe('orrery run --agent with a workflow root', () => {
  it('runs the parallel specialists on their branches, then the lead', async () => {
    const result = await cli([
      'run',
      '--agent',
      'examples/triage-sweep/app.ts',
      '--json',
      'Checkout is failing: triage.',
    ]);
    expect(result.code).toBe(0);
    // Each branch compacted on its way (the CLI prints a line per compaction).
    expect(result.stderr.match(/compacted \(token_threshold\)/g)?.length).toBeGreaterThan(3);
    const { events } = JSON.parse(result.stdout) as {
      events: { author: string; branch?: string }[];
    };
    const branches = new Set(events.map((event) => event.branch).filter(Boolean));
    expect(branches).toEqual(new Set(['sweep.network', 'sweep.database', 'sweep.deploys']));
    const last = events.at(-1)!;
    expect(last.author).toBe('lead');
    expect(last.branch).toBeUndefined();
  });
});
