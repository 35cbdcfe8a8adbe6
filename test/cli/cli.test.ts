import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from './in-process.js';
import { orrery, root, scratch } from './run-cli.js';

const line = (record: object) => JSON.stringify(record);
const transcript = [
  line({
    type: 'user',
    timestamp: '2025-06-01T10:00:00Z',
    message: { role: 'user', content: 'Why is checkout slow?' },
  }),
  line({
    type: 'assistant',
    timestamp: '2025-06-01T10:00:02Z',
    message: {
      id: 'm1',
      role: 'assistant',
      content: [
        { type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'kubectl get pods' } },
      ],
    },
  }),
  line({
    type: 'user',
    timestamp: '2025-06-01T10:00:03Z',
    message: {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 't1', content: 'checkout-api-1 Running\n'.repeat(40) },
      ],
    },
  }),
  line({
    type: 'assistant',
    timestamp: '2025-06-01T10:00:05Z',
    message: { id: 'm2', role: 'assistant', content: [{ type: 'text', text: 'Pods are fine.' }] },
  }),
  line({
    type: 'user',
    timestamp: '2025-06-01T10:01:00Z',
    message: { role: 'user', content: 'Check the database.' },
  }),
  line({
    type: 'assistant',
    timestamp: '2025-06-01T10:01:02Z',
    message: {
      id: 'm3',
      role: 'assistant',
      content: [
        { type: 'tool_use', id: 't2', name: 'Bash', input: { command: 'psql -c "select 1"' } },
      ],
    },
  }),
  line({
    type: 'user',
    timestamp: '2025-06-01T10:01:04Z',
    message: {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 't2', content: 'seq scan on order_items' }],
    },
  }),
  line({
    type: 'assistant',
    timestamp: '2025-06-01T10:01:09Z',
    message: { id: 'm4', role: 'assistant', content: 'Missing index on order_items.' },
  }),
].join('\n');

function fixture(directory: string, name = 'session.jsonl', text = transcript): string {
  const file = join(directory, name);
  writeFileSync(file, text);
  return file;
}

describe('orrery (spawned)', () => {
  it('prints help with examples for the program and each command', () => {
    const help = orrery(['--help']);
    expect(help.code).toBe(0);
    for (const command of ['chat', 'run', 'sessions', 'import', 'view', 'compact', 'replay']) {
      expect(help.stdout).toContain(command);
    }
    const replay = orrery(['replay', '--help']);
    expect(replay.code).toBe(0);
    expect(replay.stdout).toContain('--threshold');
    expect(replay.stdout).toContain('Examples:');
  });

  it('imports, lists, shows, views, compacts, exports and deletes a session', async () => {
    const directory = scratch();
    const db = join(directory, 'test.db');
    const file = fixture(directory);
    const imported = await cli(['import', file, '--db', db, '--session', 's1']);
    expect(imported.stderr).toBe('');
    expect(imported.code).toBe(0);
    expect(imported.stdout).toContain('as session s1: 8 events, 4 model calls, 2 invocations');
    expect(imported.stdout).toContain('repairs: nothing to repair');

    const again = await cli(['import', file, '--db', db, '--session', 's1']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already exists/);

    const list = await cli(['sessions', 'list', '--db', db, '--json']);
    expect(JSON.parse(list.stdout)).toEqual([
      expect.objectContaining({ sessionId: 's1', eventCount: 8 }),
    ]);

    const before = JSON.parse((await cli(['view', 's1', '--db', db, '--json'])).stdout);
    expect(before.contents[0].parts[0].text).toBe('Why is checkout slow?');

    const compacted = await cli(['compact', 's1', '--db', db, '--retention', '2']);
    expect(compacted.stderr).toBe('');
    expect(compacted.stdout).toMatch(
      /^compacted s1: seq 1-\d+ by digest in \d+ ms; next request ~[\d,]+ -> ~[\d,]+ tokens/,
    );

    const after = JSON.parse((await cli(['view', 's1', '--db', db, '--json'])).stdout);
    expect(after.contents[0].parts[0].text).toMatch(/^Summary of the conversation so far/);
    expect(after.checkpointSeq).toBe(9);

    const show = await cli(['sessions', 'show', 's1', '--db', db]);
    expect(show.stdout).toContain('compaction #1 (current checkpoint): manual');
    expect(show.stdout).toContain('Why is checkout slow?');

    const exported = JSON.parse(
      (await cli(['sessions', 'export', 's1', '--db', db, '--format', 'adk'])).stdout,
    );
    expect(exported.events).toHaveLength(9);
    expect(exported.events[8].actions.compaction.compactedContent.role).toBe('model');

    expect((await cli(['sessions', 'delete', 's1', '--db', db])).code).toBe(0);
    expect(JSON.parse((await cli(['sessions', 'list', '--db', db, '--json'])).stdout)).toEqual([]);
    const missing = await cli(['view', 's1', '--db', db]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/SessionNotFoundError: Session 's1' not found/);
  });

  it('replays the README example: several compactions, no orphans, lossless', () => {
    const result = orrery(['replay', join(root, 'examples', 'incident-session.jsonl'), '--json']);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(Object.keys(report).sort()).toEqual(
      [
        'compactions',
        'events',
        'file',
        'lossless',
        'maxViewBytes',
        'maxViewTokens',
        'modelCalls',
        'orphans',
        'requests',
        'tokens',
      ].sort(),
    );
    expect(report.events).toBeGreaterThanOrEqual(300);
    expect(report.compactions.length).toBeGreaterThanOrEqual(3);
    expect(report.orphans).toBe(0);
    expect(report.lossless).toBe(true);
    expect(report.tokens.withCompaction).toBeLessThan(report.tokens.withoutCompaction);
    for (const compaction of report.compactions) {
      expect(compaction.tokensAfter).toBeLessThan(compaction.tokensBefore);
      expect(compaction.endSeq).toBeLessThanOrEqual(report.events);
    }
  });

  it("prints what the README's quick start shows, line for line", async () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const quickStart = readme.slice(readme.indexOf('## Quick start'));
    const block = /```text\n([\s\S]*?)```/.exec(quickStart)?.[1];
    expect(block, 'a text block in the quick start').toBeDefined();
    const shown = (block ?? '')
      .split('\n')
      .filter((text) => text.trim() !== '' && text.trim() !== '...');
    const result = await cli(['replay', join(root, 'examples', 'incident-session.jsonl')]);
    expect(result.code).toBe(0);
    const printed = result.stdout.split('\n').map((text) => text.trimEnd());
    for (const text of shown) expect(printed).toContain(text.trimEnd());
  });

  it("prints the README's quick-start dollars, with and without --cost-aware", async () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const quoted = /\$([\d.]+) against \$([\d.]+) here, and \$([\d.]+)\s+with `--cost-aware`/.exec(
      readme,
    );
    expect(quoted, "the README's cost sentence").not.toBeNull();
    const [withCompaction, withoutCompaction, costAware] = (quoted ?? [])
      .slice(1)
      .map((dollars) => dollars.replace('.', '\\.'));
    const incident = join(root, 'examples', 'incident-session.jsonl');
    const price = ['--price', 'anthropic:claude-sonnet-4-5'];
    const plain = await cli(['replay', incident, ...price]);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toMatch(new RegExp(`with compaction\\s+\\$${withCompaction} `));
    expect(plain.stdout).toMatch(new RegExp(`without compaction \\$${withoutCompaction} `));
    const aware = await cli(['replay', incident, ...price, '--cost-aware']);
    expect(aware.code).toBe(0);
    expect(aware.stdout).toMatch(new RegExp(`with compaction\\s+\\$${costAware} `));
  });

  it('prints a human report and one JSON object per file', async () => {
    const directory = scratch();
    const file = fixture(directory);
    const human = await cli(['replay', file, '--threshold', '150', '--retention', '1']);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('Compactions (');
    expect(human.stdout).toContain('Request size per model call');
    expect(human.stdout).toMatch(/lossless\s+yes/);
    const several = JSON.parse((await cli(['replay', file, file, '--json'])).stdout);
    expect(several).toHaveLength(2);
    expect(several[0].modelCalls).toBe(4);
  });

  it('fails with one clear line and writes nothing on bad input', () => {
    const directory = scratch();
    const missing = orrery(['import', join(directory, 'nope.jsonl')], { cwd: directory });
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);
    expect(missing.stderr).toContain('file not found');

    const file = fixture(directory);
    const unknown = orrery(['import', file, '--format', 'csv'], { cwd: directory });
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('unknown format "csv"');

    const broken = fixture(
      directory,
      'broken.jsonl',
      `${transcript.split('\n')[0]}\n{"type": "user", oops\n`,
    );
    const malformed = orrery(['import', broken], { cwd: directory });
    expect(malformed.code).toBe(1);
    expect(malformed.stderr).toMatch(/ImportError: broken\.jsonl, line 2: not valid JSON/);
    const replayMalformed = orrery(['replay', broken], { cwd: directory });
    expect(replayMalformed.stderr).toMatch(/line 2/);

    const unreachable = orrery(['import', file, '--db', 'postgres://nobody@127.0.0.1:1/x'], {
      cwd: directory,
    });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr.trim().split('\n')).toHaveLength(1);
    expect(unreachable.stderr).toMatch(/^orrery: \w+Error: /);

    const badFlag = orrery(['replay', file, '--threshold', 'lots'], { cwd: directory });
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr).toContain('--threshold must be an integer');

    // Nothing reached the default store.
    expect(existsSync(join(directory, '.orrery'))).toBe(false);
  });

  it('chat and run without a model name ORRERY_MODEL and exit 2', () => {
    const directory = scratch();
    const chat = orrery(['chat'], { cwd: directory });
    expect(chat.code).toBe(2);
    expect(chat.stderr).toContain('ORRERY_MODEL');
    const run = orrery(['run', '--session', 'x', 'hello'], { cwd: directory });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('ORRERY_MODEL');
    expect(existsSync(join(directory, '.orrery'))).toBe(false);
  });

  const built = join(root, 'dist', 'cli', 'main.js');
  it.skipIf(
    !existsSync(built) ||
      statSync(built).mtimeMs < statSync(join(root, 'src', 'cli', 'main.ts')).mtimeMs,
  )('runs the built bin/orrery.js', () => {
    const result = spawnSync(process.execPath, [join(root, 'bin', 'orrery.js'), '--help'], {
      encoding: 'utf8',
    });
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('replay');
  });
});
