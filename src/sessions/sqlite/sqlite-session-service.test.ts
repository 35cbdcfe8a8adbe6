import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { runSessionServiceConformance } from '../../testing/session-service-conformance.js';
import { SqliteSessionService } from './sqlite-session-service.js';

const folder = mkdtempSync(join(tmpdir(), 'orrery-sqlite-conformance-'));
let counter = 0;

runSessionServiceConformance({
  name: 'SqliteSessionService',
  createService: async () =>
    new SqliteSessionService({ path: join(folder, `test-${++counter}.db`) }),
});

afterAll(() => rmSync(folder, { recursive: true, force: true }));
