/** `orrery eval --context` and `--memory`: the options reach the figures and the output. */
import { describe, expect, it } from 'vitest';
import { cli } from './in-process.js';

describe('orrery eval --context and --memory', () => {
  it('prints the memory table and reports the context in JSON', async () => {
    const text = await cli(['eval', '--generate', '--conversations', '1', '--memory']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('recall top 5, context 2');
    expect(text.stdout).toMatch(/memory across sessions \(each conversation split into 4\)/);
    const json = await cli([
      'eval',
      '--generate',
      '--conversations',
      '1',
      '--context',
      '0',
      '--memory',
      '--memory-sessions',
      '3',
      '--json',
    ]);
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout) as {
      context: number;
      memorySessions: number;
      memory: Array<{ total: { sessions: number; answers: number; inAllSessions: number } }>;
    };
    expect(report.context).toBe(0);
    expect(report.memorySessions).toBe(3);
    expect(report.memory[0]?.total).toMatchObject({ sessions: 3, inAllSessions: 1 });
    expect(report.memory[0]?.total.answers).toBeGreaterThan(0);
    const bad = await cli(['eval', '--generate', '--memory-sessions', '0']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--memory-sessions');
  });
});
