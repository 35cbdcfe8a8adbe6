import { InMemorySessionService } from './in-memory-session-service.js';
import { describeImportSessionCases } from './test-helpers/import-session-cases.js';

describeImportSessionCases({
  name: 'InMemorySessionService',
  createService: async () => new InMemorySessionService(),
});
