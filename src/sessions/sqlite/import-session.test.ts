import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { describeImportSessionCases } from '../test-helpers/import-session-cases.js';
import { SqliteSessionService } from './sqlite-session-service.js';

const folder = mkdtempSync(join(tmpdir(), 'orrery-sqlite-import-'));
let counter = 0;

describeImportSessionCases({
  name: 'SqliteSessionService (file)',
  createService: async () =>
    new SqliteSessionService({ path: join(folder, `import-${++counter}.db`) }),
});

describeImportSessionCases({
  name: 'SqliteSessionService (file, exclusive)',
  createService: async () =>
    new SqliteSessionService({ path: join(folder, `import-${++counter}.db`), exclusive: true }),
});

describeImportSessionCases({
  name: 'SqliteSessionService (:memory:)',
  createService: async () => new SqliteSessionService({ path: ':memory:' }),
});

afterAll(() => rmSync(folder, { recursive: true, force: true }));
