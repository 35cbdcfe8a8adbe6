import { defineConfig } from 'vitest/config';

/**
 * Three disjoint projects, so `npm test` runs each file once (docs/testing.md): `unit` needs no
 * server and spawns no store process (`npm run test:unit`); `integration` holds PostgreSQL,
 * server, browser and end-to-end tests; `processes` holds the files that start a crowd of store
 * processes at once (6 to 8 writers, lease holders SIGKILLed), which run alone, last.
 */
const processes = ['src/**/*multi-process*.test.ts'];

const integration = [
  'src/sessions/postgres/**/*.test.ts',
  'src/runtime/turn/postgres-*.test.ts',
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
      // Unit files are pure (no server, no process): one worker a core. Integration files also
      // run two at a time after them: each works in its own PostgreSQL schema, temp folders,
      // port 0 and browser profile, and none waits on wall-clock speed. The crowds of store
      // processes run one file at a time, last, so they never share the two cores with another
      // file's work.
      {
        test: {
          ...shared,
          name: 'unit',
          include: ['src/**/*.test.ts'],
          exclude: [...integration, ...processes],
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          ...shared,
          name: 'integration',
          include: integration,
          exclude: processes,
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          ...shared,
          name: 'processes',
          include: processes,
          maxWorkers: 1,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
