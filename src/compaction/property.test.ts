/**
 * Property tests: random histories compacted by actually running `planCompaction` and appending
 * its compaction, sometimes late, and elided by running `planTieredCompaction` and appending its
 * rule (the simulation: `test-helpers/compaction-simulation.ts`). Every view must be
 * provider-safe and every stored event must survive unchanged.
 */
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { checkRun, type Operation } from './test-helpers/compaction-simulation.js';
import type { EventsCompactionConfig } from './types.js';

const operation: fc.Arbitrary<Operation> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ type: fc.constant('user' as const), size: fc.nat(300) }) },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('text' as const), size: fc.nat(300) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      type: fc.constant('calls' as const),
      count: fc.integer({ min: 1, max: 3 }),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      type: fc.constant('respond' as const),
      count: fc.integer({ min: 1, max: 3 }),
      size: fc.nat(2000),
    }),
  },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('confirm' as const) }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('answer' as const) }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('abandon' as const) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      type: fc.constant('elide' as const),
      // Mostly over a placeholder's size (smaller outputs would grow when elided).
      minOutputBytes: fc.integer({ min: 1, max: 1500 }),
      retentionEvents: fc.nat(2),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      type: fc.constant('compact' as const),
      trigger: fc.constantFrom(
        'token_threshold' as const,
        'manual' as const,
        'sliding_window' as const,
      ),
      retentionEvents: fc.nat(6),
      budget: fc.integer({ min: 0, max: 3000 }),
      late: fc.nat(2),
    }),
  },
);

/** Long tool sessions, the elision tier's ground: big outputs, rules, now and then a summary. */
const toolSessionOperation: fc.Arbitrary<Operation> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ type: fc.constant('user' as const), size: fc.nat(300) }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('text' as const), size: fc.nat(300) }) },
  {
    weight: 4,
    arbitrary: fc.record({
      type: fc.constant('calls' as const),
      count: fc.integer({ min: 1, max: 2 }),
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      type: fc.constant('respond' as const),
      count: fc.integer({ min: 1, max: 2 }),
      size: fc.integer({ min: 100, max: 4000 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('abandon' as const) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      type: fc.constant('elide' as const),
      minOutputBytes: fc.integer({ min: 200, max: 2500 }),
      retentionEvents: fc.nat(2),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      type: fc.constant('compact' as const),
      trigger: fc.constant('token_threshold' as const),
      retentionEvents: fc.nat(6),
      budget: fc.integer({ min: 0, max: 3000 }),
      late: fc.nat(2),
    }),
  },
);

describe('compaction properties', () => {
  const config: EventsCompactionConfig = {
    tokenThreshold: 1,
    compactionInterval: 2,
    overlapSize: 1,
  };

  it('views stay provider-safe, history stays lossless, splits keep what was asked', () => {
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 40 }), (operations) =>
        checkRun(operations, config),
      ),
      { numRuns: 1500 },
    );
  });

  it('elision rules keep all of that, in long tool sessions with summaries between', () => {
    fc.assert(
      fc.property(fc.array(toolSessionOperation, { minLength: 10, maxLength: 60 }), (operations) =>
        checkRun(operations, config),
      ),
      { numRuns: 250 },
    );
  }, 120_000);
});
