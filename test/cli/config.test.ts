/** `orrery config`: every effective setting with its source, as a table or JSON. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, tempDir } from './in-process.js';

describe('orrery config', () => {
  it('shows a threshold set in the environment as { value, source: "env" }', async () => {
    const result = await cli(['config', '--json'], {
      env: { ORRERY_COMPACTION_TOKEN_THRESHOLD: '12345' },
    });
    expect(result.code).toBe(0);
    const settings = JSON.parse(result.stdout);
    expect(settings.tokenThreshold).toMatchObject({ value: 12345, source: 'env' });
    expect(settings.eventRetentionSize).toEqual({ value: 10, source: 'default' });
    expect(Object.keys(settings)).toEqual(
      expect.arrayContaining(['enabled', 'model', 'summarizerModel', 'db', 'appName', 'userId']),
    );
  });

  it("shows an agent module's compaction winning over the variable it hides", async () => {
    const directory = tempDir();
    const module = join(directory, 'app.mjs');
    writeFileSync(
      module,
      "export default { agent: { name: 'helper', async *runAsync() {} }, appName: 'helper-app', compaction: { tokenThreshold: 5000, eventRetentionSize: 4 } };\n",
    );
    const result = await cli(['config', '--agent', module, '--user', 'ana'], {
      env: { ORRERY_COMPACTION_TOKEN_THRESHOLD: '12345' },
    });
    expect(result.code).toBe(0);
    const line = (name: string) =>
      result.stdout.split('\n').find((text) => text.startsWith(`${name} `)) ?? '';
    expect(line('tokenThreshold')).toMatch(
      /^tokenThreshold +5000 +the agent module; ignores ORRERY_COMPACTION_TOKEN_THRESHOLD=12345$/,
    );
    expect(line('appName')).toMatch(/helper-app +the agent module$/);
    expect(line('userId')).toMatch(/ana +flag: --user$/);
  });

  it('a bad variable is a usage error naming it', async () => {
    const result = await cli(['config'], { env: { ORRERY_COMPACTION_TOKEN_THRESHOLD: 'lots' } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('ORRERY_COMPACTION_TOKEN_THRESHOLD');
  });
});
