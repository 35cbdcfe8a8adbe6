import { defineConfig } from 'vitest/config';

/**
 * Two disjoint projects, so `npm test` runs each file once: `unit` needs no server and spawns no
 * store process (`npm run test:unit`); `integration` holds PostgreSQL, multi-process, server and
 * end-to-end tests.
 */
const integration = [
  'src/sessions/postgres/**/*.test.ts',
  'src/runtime/turn/postgres-*.test.ts',
  'src/**/*multi-process*.test.ts',
  'src/server/**/*.test.ts',
  'src/adapters/adk/**/*.test.ts',
  'test/**/*.test.ts',
];

const shared = { testTimeout: 30_000, hookTimeout: 30_000, pool: 'forks' as const };

export default defineConfig({
  test: {
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts'],
      exclude: ['src/**/*.test.ts', 'src/**/test-helpers/**', 'src/**/fixtures/**'],
      reporter: ['text-summary', 'json-summary'],
      // The figure is wanted most when something failed.
      reportOnFailure: true,
    },
    projects: [
      // Unit files are pure (no server, no process): one worker a core. The integration files
      // (processes, servers, browsers) keep one at a time after them.
      {
        test: {
          ...shared,
          name: 'unit',
          include: ['src/**/*.test.ts'],
          exclude: integration,
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          ...shared,
          name: 'integration',
          include: integration,
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
