import { afterEach, describe, expect, it } from 'vitest';
import {
  COMPACTION_DEFAULTS,
  createEventsCompactionConfig,
  resolveSummarizerModel,
  validateEventsCompactionConfig,
} from './config.js';
import { InvalidConfigError } from './errors.js';
import type { EventsCompactionConfig, EventsSummarizer } from './types.js';

function catchConfigError(run: () => unknown): InvalidConfigError {
  try {
    run();
  } catch (error) {
    if (InvalidConfigError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected an InvalidConfigError');
}

const summarizer: EventsSummarizer = {
  name: 'digest',
  summarize: async () => null,
};

describe('createEventsCompactionConfig', () => {
  it('uses the documented defaults with an empty environment', () => {
    const config = createEventsCompactionConfig({ env: {} });
    expect(config).toEqual({
      tokenThreshold: 250_000,
      eventRetentionSize: 10,
      compactionInterval: 100,
      overlapSize: 1,
      retentionTokenBudget: 62_500,
    });
    expect(config?.tokenThreshold).toBe(COMPACTION_DEFAULTS.tokenThreshold);
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('reads every variable', () => {
    const config = createEventsCompactionConfig({
      env: {
        ORRERY_CONTEXT_COMPACTION: 'On',
        ORRERY_COMPACTION_TOKEN_THRESHOLD: '120000',
        ORRERY_COMPACTION_RETENTION_EVENTS: '0',
        ORRERY_COMPACTION_INTERVAL: ' 7 ',
        ORRERY_COMPACTION_OVERLAP: '2',
        ORRERY_COMPACTION_MAX_REQUEST_BYTES: '4000000',
        ORRERY_COMPACTION_RETENTION_TOKENS: '9000',
      },
    });
    expect(config).toEqual({
      tokenThreshold: 120_000,
      eventRetentionSize: 0,
      compactionInterval: 7,
      overlapSize: 2,
      maxRequestBytes: 4_000_000,
      retentionTokenBudget: 9000,
    });
  });

  it('lets code options win over the environment', () => {
    const config = createEventsCompactionConfig({
      env: {
        ORRERY_COMPACTION_TOKEN_THRESHOLD: '120000',
        ORRERY_COMPACTION_RETENTION_EVENTS: '3',
        ORRERY_COMPACTION_INTERVAL: '0',
        ORRERY_COMPACTION_OVERLAP: '2',
        ORRERY_COMPACTION_MAX_REQUEST_BYTES: '4000000',
        ORRERY_COMPACTION_RETENTION_TOKENS: '9000',
      },
      tokenThreshold: 50_000,
      eventRetentionSize: 6,
      compactionInterval: 4,
      overlapSize: 0,
      maxRequestBytes: 1000,
      retentionTokenBudget: 800,
      summarizer,
    });
    expect(config).toEqual({
      tokenThreshold: 50_000,
      eventRetentionSize: 6,
      compactionInterval: 4,
      overlapSize: 0,
      maxRequestBytes: 1000,
      retentionTokenBudget: 800,
      summarizer,
    });
  });

  it('lets the enabled option win over ORRERY_CONTEXT_COMPACTION', () => {
    expect(
      createEventsCompactionConfig({ env: { ORRERY_CONTEXT_COMPACTION: 'false' }, enabled: true }),
    ).not.toBeNull();
    expect(
      createEventsCompactionConfig({ env: { ORRERY_CONTEXT_COMPACTION: 'true' }, enabled: false }),
    ).toBeNull();
  });

  it('derives the retention token budget from the threshold it ends up with', () => {
    const config = createEventsCompactionConfig({
      env: { ORRERY_COMPACTION_TOKEN_THRESHOLD: '1000' },
      tokenThreshold: 400,
    });
    expect(config?.retentionTokenBudget).toBe(100);
  });

  it.each(['false', 'FALSE', '0', 'off', ' Off '])(
    'returns null when ORRERY_CONTEXT_COMPACTION=%j',
    (value) => {
      expect(
        createEventsCompactionConfig({ env: { ORRERY_CONTEXT_COMPACTION: value } }),
      ).toBeNull();
    },
  );

  it.each(['true', 'TRUE', '1', 'on'])('is on when ORRERY_CONTEXT_COMPACTION=%j', (value) => {
    expect(
      createEventsCompactionConfig({ env: { ORRERY_CONTEXT_COMPACTION: value } }),
    ).not.toBeNull();
  });

  it('returns null with a threshold of 0 and no sliding window', () => {
    expect(
      createEventsCompactionConfig({
        env: { ORRERY_COMPACTION_TOKEN_THRESHOLD: '0', ORRERY_COMPACTION_INTERVAL: '0' },
      }),
    ).toBeNull();
    expect(
      createEventsCompactionConfig({ env: {}, tokenThreshold: 0, compactionInterval: 0 }),
    ).toBeNull();
  });

  it('turns compaction off with a threshold of 0 alone (the default interval does not count)', () => {
    expect(
      createEventsCompactionConfig({ env: { ORRERY_COMPACTION_TOKEN_THRESHOLD: '0' } }),
    ).toBeNull();
    expect(createEventsCompactionConfig({ env: {}, tokenThreshold: 0 })).toBeNull();
  });

  it('keeps only the sliding window when the threshold is 0 and an interval is set', () => {
    expect(
      createEventsCompactionConfig({
        env: { ORRERY_COMPACTION_TOKEN_THRESHOLD: '0', ORRERY_COMPACTION_INTERVAL: '100' },
      }),
    ).toEqual({ compactionInterval: 100, overlapSize: 1 });
    expect(
      createEventsCompactionConfig({ env: {}, tokenThreshold: 0, compactionInterval: 5 }),
    ).toEqual({ compactionInterval: 5, overlapSize: 1 });
  });

  it('reads the summarizer timeout from ORRERY_COMPACTION_SUMMARIZER_TIMEOUT_MS or the option', () => {
    expect(
      createEventsCompactionConfig({
        env: { ORRERY_COMPACTION_SUMMARIZER_TIMEOUT_MS: '30000' },
      })?.summarizerTimeoutMs,
    ).toBe(30_000);
    expect(
      createEventsCompactionConfig({
        env: { ORRERY_COMPACTION_SUMMARIZER_TIMEOUT_MS: '30000' },
        summarizerTimeoutMs: 5,
      })?.summarizerTimeoutMs,
    ).toBe(5);
    // Unset: the Compactor applies the documented default.
    expect(createEventsCompactionConfig({ env: {} })?.summarizerTimeoutMs).toBeUndefined();
    expect(COMPACTION_DEFAULTS.summarizerTimeoutMs).toBe(120_000);
  });

  it('reads the summarizer cool-down from ORRERY_COMPACTION_SUMMARIZER_(MAX_)COOL_DOWN_MS or the options', () => {
    const config = createEventsCompactionConfig({
      env: {
        ORRERY_COMPACTION_SUMMARIZER_COOL_DOWN_MS: '0',
        ORRERY_COMPACTION_SUMMARIZER_MAX_COOL_DOWN_MS: '600000',
      },
    });
    expect(config?.summarizerCoolDownMs).toBe(0);
    expect(config?.summarizerMaxCoolDownMs).toBe(600_000);
    expect(
      createEventsCompactionConfig({ env: {}, summarizerCoolDownMs: 5_000 })?.summarizerCoolDownMs,
    ).toBe(5_000);
    expect(COMPACTION_DEFAULTS.summarizerCoolDownMs).toBe(60_000);
    expect(COMPACTION_DEFAULTS.summarizerMaxCoolDownMs).toBe(1_800_000);
    const error = catchConfigError(() =>
      validateEventsCompactionConfig({
        tokenThreshold: 10,
        eventRetentionSize: 0,
        summarizerCoolDownMs: 1.5,
      }),
    );
    expect(error.field).toBe('summarizerCoolDownMs');
  });

  it('keeps only the token trigger when the interval is 0', () => {
    expect(createEventsCompactionConfig({ env: { ORRERY_COMPACTION_INTERVAL: '0' } })).toEqual({
      tokenThreshold: 250_000,
      eventRetentionSize: 10,
      retentionTokenBudget: 62_500,
    });
  });

  const badValues: Array<[string, string]> = [
    ['ORRERY_CONTEXT_COMPACTION', 'maybe'],
    ['ORRERY_CONTEXT_COMPACTION', ''],
    ['ORRERY_CONTEXT_COMPACTION', 'yes'],
    ['ORRERY_COMPACTION_TOKEN_THRESHOLD', 'abc'],
    ['ORRERY_COMPACTION_TOKEN_THRESHOLD', '-5'],
    ['ORRERY_COMPACTION_TOKEN_THRESHOLD', '1.5'],
    ['ORRERY_COMPACTION_TOKEN_THRESHOLD', ''],
    ['ORRERY_COMPACTION_TOKEN_THRESHOLD', '1e5'],
    ['ORRERY_COMPACTION_TOKEN_THRESHOLD', '99999999999999999999'],
    ['ORRERY_COMPACTION_RETENTION_EVENTS', 'abc'],
    ['ORRERY_COMPACTION_RETENTION_EVENTS', '-5'],
    ['ORRERY_COMPACTION_RETENTION_EVENTS', '1.5'],
    ['ORRERY_COMPACTION_RETENTION_EVENTS', ''],
    ['ORRERY_COMPACTION_INTERVAL', 'abc'],
    ['ORRERY_COMPACTION_INTERVAL', '-5'],
    ['ORRERY_COMPACTION_INTERVAL', '1.5'],
    ['ORRERY_COMPACTION_INTERVAL', ''],
    ['ORRERY_COMPACTION_OVERLAP', 'abc'],
    ['ORRERY_COMPACTION_OVERLAP', '-5'],
    ['ORRERY_COMPACTION_OVERLAP', '1.5'],
    ['ORRERY_COMPACTION_OVERLAP', ''],
    ['ORRERY_COMPACTION_MAX_REQUEST_BYTES', 'abc'],
    ['ORRERY_COMPACTION_MAX_REQUEST_BYTES', '-5'],
    ['ORRERY_COMPACTION_MAX_REQUEST_BYTES', '1.5'],
    ['ORRERY_COMPACTION_MAX_REQUEST_BYTES', '0'],
    ['ORRERY_COMPACTION_MAX_REQUEST_BYTES', ''],
    ['ORRERY_COMPACTION_RETENTION_TOKENS', 'abc'],
    ['ORRERY_COMPACTION_RETENTION_TOKENS', '-5'],
    ['ORRERY_COMPACTION_RETENTION_TOKENS', '1.5'],
    ['ORRERY_COMPACTION_RETENTION_TOKENS', '0'],
    ['ORRERY_COMPACTION_RETENTION_TOKENS', ''],
    ['ORRERY_COMPACTION_SUMMARIZER_TIMEOUT_MS', '0'],
    ['ORRERY_COMPACTION_SUMMARIZER_TIMEOUT_MS', '2m'],
    ['ORRERY_COMPACTION_SUMMARIZER_COOL_DOWN_MS', '-1'],
    ['ORRERY_COMPACTION_SUMMARIZER_COOL_DOWN_MS', '1m'],
    ['ORRERY_COMPACTION_SUMMARIZER_MAX_COOL_DOWN_MS', '0'],
  ];

  it.each(badValues)('rejects %s=%j naming the variable and the value', (name, value) => {
    const error = catchConfigError(() => createEventsCompactionConfig({ env: { [name]: value } }));
    expect(error.field).toBe(name);
    expect(error.value).toBe(value);
    expect(error.message).toMatch(
      new RegExp(
        `^Invalid ${name}=${JSON.stringify(value).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `,
      ),
    );
  });

  it('reports a bad variable even when compaction is off', () => {
    const error = catchConfigError(() =>
      createEventsCompactionConfig({
        env: { ORRERY_CONTEXT_COMPACTION: 'false', ORRERY_COMPACTION_OVERLAP: 'x' },
      }),
    );
    expect(error.field).toBe('ORRERY_COMPACTION_OVERLAP');
  });

  it('names the example from the spec exactly', () => {
    expect(() =>
      createEventsCompactionConfig({ env: { ORRERY_COMPACTION_TOKEN_THRESHOLD: 'abc' } }),
    ).toThrow(/^Invalid ORRERY_COMPACTION_TOKEN_THRESHOLD="abc": /);
  });

  it.each<[string, unknown]>([
    ['tokenThreshold', -1],
    ['tokenThreshold', 1.5],
    ['tokenThreshold', Number.NaN],
    ['eventRetentionSize', -1],
    ['compactionInterval', 2.5],
    ['overlapSize', -1],
    ['maxRequestBytes', 0],
    ['retentionTokenBudget', 0],
    ['tokenThreshold', '100'],
    ['summarizerTimeoutMs', 0],
  ])('rejects the code option %s=%j naming the option', (name, value) => {
    const error = catchConfigError(() => createEventsCompactionConfig({ env: {}, [name]: value }));
    expect(error.field).toBe(name);
    expect(error.message).toContain(`Invalid ${name}=`);
  });

  it('rejects a summarizer that is not one', () => {
    const error = catchConfigError(() =>
      createEventsCompactionConfig({ env: {}, summarizer: { name: 'x' } as never }),
    );
    expect(error.field).toBe('summarizer');
  });

  describe('reading process.env', () => {
    const saved = process.env.ORRERY_COMPACTION_TOKEN_THRESHOLD;
    afterEach(() => {
      if (saved === undefined) delete process.env.ORRERY_COMPACTION_TOKEN_THRESHOLD;
      else process.env.ORRERY_COMPACTION_TOKEN_THRESHOLD = saved;
    });

    it('reads process.env at call time, not at import', () => {
      process.env.ORRERY_COMPACTION_TOKEN_THRESHOLD = '4321';
      expect(createEventsCompactionConfig()?.tokenThreshold).toBe(4321);
      process.env.ORRERY_COMPACTION_TOKEN_THRESHOLD = '1234';
      expect(createEventsCompactionConfig()?.tokenThreshold).toBe(1234);
    });
  });
});

describe('validateEventsCompactionConfig', () => {
  const valid: EventsCompactionConfig = {
    tokenThreshold: 1000,
    eventRetentionSize: 2,
    compactionInterval: 3,
    overlapSize: 1,
  };

  it('returns a frozen copy without unset keys', () => {
    const input: EventsCompactionConfig = { ...valid, maxRequestBytes: undefined, summarizer };
    const result = validateEventsCompactionConfig(input);
    expect(result).toEqual({ ...valid, summarizer });
    expect('maxRequestBytes' in result).toBe(false);
    expect(Object.isFrozen(result)).toBe(true);
    expect(result).not.toBe(input);
  });

  it('accepts either trigger pair alone', () => {
    expect(validateEventsCompactionConfig({ tokenThreshold: 5, eventRetentionSize: 0 })).toEqual({
      tokenThreshold: 5,
      eventRetentionSize: 0,
    });
    expect(validateEventsCompactionConfig({ compactionInterval: 1, overlapSize: 0 })).toEqual({
      compactionInterval: 1,
      overlapSize: 0,
    });
  });

  it.each<[EventsCompactionConfig, string]>([
    [{ tokenThreshold: 1000 }, 'eventRetentionSize'],
    [{ eventRetentionSize: 3 }, 'tokenThreshold'],
    [{ compactionInterval: 3 }, 'overlapSize'],
    [{ overlapSize: 1, tokenThreshold: 10, eventRetentionSize: 1 }, 'compactionInterval'],
    [{}, 'tokenThreshold'],
    [{ maxRequestBytes: 100 }, 'tokenThreshold'],
    [{ ...valid, compactionInterval: 0 }, 'compactionInterval'],
    [{ ...valid, overlapSize: -1 }, 'overlapSize'],
    [{ ...valid, tokenThreshold: 0 }, 'tokenThreshold'],
    [{ ...valid, eventRetentionSize: -2 }, 'eventRetentionSize'],
    [{ ...valid, retentionTokenBudget: 0 }, 'retentionTokenBudget'],
    [{ ...valid, maxRequestBytes: -10 }, 'maxRequestBytes'],
    [{ ...valid, tokenThreshold: Number.POSITIVE_INFINITY }, 'tokenThreshold'],
    [{ ...valid, tokenThreshold: -100 }, 'tokenThreshold'],
    [{ ...valid, summarizerTimeoutMs: 0 }, 'summarizerTimeoutMs'],
    [{ ...valid, compactionIntervall: 3 } as EventsCompactionConfig, 'compactionIntervall'],
    [null as unknown as EventsCompactionConfig, 'compaction'],
  ])('rejects %j on %s', (config, field) => {
    expect(catchConfigError(() => validateEventsCompactionConfig(config)).field).toBe(field);
  });
});

describe('resolveSummarizerModel', () => {
  it('prefers ORRERY_COMPACTION_MODEL', () => {
    expect(
      resolveSummarizerModel({
        agentModelId: 'google:gemini-2.5-pro',
        env: { ORRERY_COMPACTION_MODEL: 'openai:gpt-4.1-mini' },
      }),
    ).toBe('openai:gpt-4.1-mini');
    expect(resolveSummarizerModel({ env: { ORRERY_COMPACTION_MODEL: 'ollama:qwen2.5:7b' } })).toBe(
      'ollama:qwen2.5:7b',
    );
  });

  it('uses a cheap Gemini for agents on Google', () => {
    expect(resolveSummarizerModel({ agentModelId: 'google:gemini-2.5-pro', env: {} })).toBe(
      'google:gemini-flash-latest',
    );
  });

  it("falls back to the agent's own model, then to nothing", () => {
    expect(resolveSummarizerModel({ agentModelId: 'anthropic:claude-sonnet-4-5', env: {} })).toBe(
      'anthropic:claude-sonnet-4-5',
    );
    expect(resolveSummarizerModel({ env: {} })).toBeUndefined();
  });

  it.each(['gpt-4o', '', 'google:', ':model', 'open ai:gpt'])(
    'rejects ORRERY_COMPACTION_MODEL=%j',
    (value) => {
      const error = catchConfigError(() =>
        resolveSummarizerModel({ env: { ORRERY_COMPACTION_MODEL: value } }),
      );
      expect(error.field).toBe('ORRERY_COMPACTION_MODEL');
      expect(error.message).toContain(`Invalid ORRERY_COMPACTION_MODEL=${JSON.stringify(value)}`);
    },
  );
});

describe('elision settings', () => {
  const threshold = { tokenThreshold: 10_000, eventRetentionSize: 4 };

  it('is off by default and on with ORRERY_COMPACTION_ELISION, defaults from the threshold', () => {
    expect(createEventsCompactionConfig({ env: {}, ...threshold })?.elision).toBeUndefined();
    expect(
      createEventsCompactionConfig({ env: { ORRERY_COMPACTION_ELISION: '1' }, ...threshold })
        ?.elision,
    ).toEqual({ minOutputBytes: 2000, minReclaimTokens: 1000 });
    expect(
      createEventsCompactionConfig({
        env: {
          ORRERY_COMPACTION_ELISION: 'on',
          ORRERY_COMPACTION_ELISION_MIN_OUTPUT_BYTES: '4096',
          ORRERY_COMPACTION_ELISION_MIN_RECLAIM_TOKENS: '300',
        },
        ...threshold,
      })?.elision,
    ).toEqual({ minOutputBytes: 4096, minReclaimTokens: 300 });
  });

  it('takes code options over the environment', () => {
    const on = { ORRERY_COMPACTION_ELISION: '1' };
    expect(
      createEventsCompactionConfig({ env: on, ...threshold, elision: false })?.elision,
    ).toBeUndefined();
    expect(
      createEventsCompactionConfig({
        env: { ORRERY_COMPACTION_ELISION: '0' },
        ...threshold,
        elision: true,
      })?.elision,
    ).toEqual({ minOutputBytes: 2000, minReclaimTokens: 1000 });
    expect(
      createEventsCompactionConfig({ env: {}, ...threshold, elision: { minOutputBytes: 500 } })
        ?.elision,
    ).toEqual({ minOutputBytes: 500, minReclaimTokens: 1000 });
    // Off in the environment, settings in code without `enabled`: the environment decides.
    expect(
      createEventsCompactionConfig({
        env: { ORRERY_COMPACTION_ELISION: '0' },
        ...threshold,
        elision: { minOutputBytes: 500 },
      })?.elision,
    ).toBeUndefined();
  });

  it('needs the token trigger', () => {
    const windowOnly = { tokenThreshold: 0, compactionInterval: 3, overlapSize: 1 };
    expect(
      createEventsCompactionConfig({ env: { ORRERY_COMPACTION_ELISION: '1' }, ...windowOnly })
        ?.elision,
    ).toBeUndefined();
    expect(
      catchConfigError(() =>
        createEventsCompactionConfig({ env: {}, ...windowOnly, elision: true }),
      ).field,
    ).toBe('elision');
    expect(
      catchConfigError(() =>
        validateEventsCompactionConfig({ ...windowOnly, tokenThreshold: undefined, elision: {} }),
      ).field,
    ).toBe('elision');
  });

  it.each([
    [{ ORRERY_COMPACTION_ELISION: 'maybe' }, 'ORRERY_COMPACTION_ELISION'],
    [
      { ORRERY_COMPACTION_ELISION_MIN_OUTPUT_BYTES: '0' },
      'ORRERY_COMPACTION_ELISION_MIN_OUTPUT_BYTES',
    ],
    [
      { ORRERY_COMPACTION_ELISION_MIN_RECLAIM_TOKENS: '1.5' },
      'ORRERY_COMPACTION_ELISION_MIN_RECLAIM_TOKENS',
    ],
  ])('rejects %j, naming %s', (env, field) => {
    const error = catchConfigError(() => createEventsCompactionConfig({ env, ...threshold }));
    expect(error.field).toBe(field);
  });

  it.each([
    [{ minOutputBytes: 0 }, 'elision.minOutputBytes'],
    [{ minReclaimTokens: 2.5 }, 'elision.minReclaimTokens'],
    [{ enabled: 'yes' }, 'elision.enabled'],
    [{ minOutputByte: 10 }, 'elision.minOutputByte'],
    ['on', 'elision'],
  ])('rejects the option %j, naming %s', (elision, field) => {
    const error = catchConfigError(() =>
      createEventsCompactionConfig({ env: {}, ...threshold, elision: elision as never }),
    );
    expect(error.field).toBe(field);
  });

  it('holds a hand-built config to the same rules', () => {
    expect(validateEventsCompactionConfig({ ...threshold, elision: {} }).elision).toEqual({});
    expect(
      catchConfigError(() =>
        validateEventsCompactionConfig({ ...threshold, elision: { enabled: true } as never }),
      ).field,
    ).toBe('elision.enabled');
    expect(
      catchConfigError(() => validateEventsCompactionConfig({ ...threshold, elision: 5 as never }))
        .field,
    ).toBe('elision');
  });
});
