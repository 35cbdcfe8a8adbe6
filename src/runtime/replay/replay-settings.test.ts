import { describe, expect, it } from 'vitest';
import { DigestSummarizer } from '../../summarizers/digest-summarizer.js';
import {
  REPLAY_DEFAULT_THRESHOLD,
  type ReplaySettingNames,
  replayCompactionSettings,
} from './replay-settings.js';
import { ReplaySettingsError } from './replay-settings-error.js';

const names: ReplaySettingNames = {
  threshold: 'threshold',
  interval: 'interval',
  maxRequestBytes: 'maxRequestBytes',
};
const summarizer = new DigestSummarizer();

describe('replayCompactionSettings', () => {
  it("takes replay's own default threshold unless the environment sets one", () => {
    const plain = replayCompactionSettings({ env: {}, summarizer, names });
    expect(plain.config?.tokenThreshold).toBe(REPLAY_DEFAULT_THRESHOLD);
    expect(plain.replayConfig).toBe(plain.config);
    const fromEnv = replayCompactionSettings({
      env: { ORRERY_COMPACTION_TOKEN_THRESHOLD: '9000' },
      summarizer,
      names,
    });
    expect(fromEnv.config?.tokenThreshold).toBe(9000);
  });

  it('reports compaction off as null, and replays with a trigger no request reaches', () => {
    const off = replayCompactionSettings({ env: {}, summarizer, names, threshold: 0 });
    expect(off.config).toBeNull();
    expect(off.replayConfig.tokenThreshold).toBe(Number.MAX_SAFE_INTEGER);
    expect(off.replayConfig.compactionInterval ?? 0).toBe(0);
  });

  it('refuses a byte ceiling with compaction off, naming both settings as the caller does', () => {
    const refusal = (() => {
      try {
        replayCompactionSettings({
          env: {},
          summarizer,
          names,
          threshold: 0,
          maxRequestBytes: 500,
        });
      } catch (error) {
        return error;
      }
    })();
    expect(ReplaySettingsError.isInstance(refusal)).toBe(true);
    expect(refusal).toMatchObject({
      field: 'maxRequestBytes',
      message:
        'maxRequestBytes 500 needs compaction, which threshold 0 turns off: pass a threshold above 0 or an interval',
    });
    expect(() =>
      replayCompactionSettings({
        env: { ORRERY_COMPACTION_TOKEN_THRESHOLD: '0' },
        summarizer,
        names: { threshold: '--threshold', interval: '--interval', maxRequestBytes: '--bytes' },
        maxRequestBytes: 500,
      }),
    ).toThrow('--bytes 500 needs compaction, which ORRERY_COMPACTION_TOKEN_THRESHOLD=0 turns off');
  });
});
