/** The inspector chart's legend names only what the chart draws (assets/inspector/chart.js). */
import { describe, expect, it } from 'vitest';
// @ts-expect-error: the inspector's browser modules are plain JavaScript without types.
import { legendEntries } from '../../../assets/inspector/chart.js';
// @ts-expect-error: the inspector's browser modules are plain JavaScript without types.
import { COST_MEASURE } from '../../../assets/inspector/cost-view.js';

const keys = (options: object) =>
  (legendEntries(options) as { key: string }[]).map((entry) => entry.key);

describe('inspector chart legend', () => {
  it('lists each drawn line and marker', () => {
    const points = [{ call: 1, tokens: 10, uncompactedTokens: 12 }];
    expect(keys({ points, threshold: 100, compactions: [{ call: 1 }] })).toEqual([
      'with',
      'without',
      'threshold',
      'compaction',
    ]);
  });

  it('has no entry for a line not drawn: no figures without compaction, a 0 threshold', () => {
    const points = [{ call: 1, tokens: 10 }];
    expect(keys({ points, threshold: 0, compactions: [] })).toEqual(['with']);
    expect(keys({ points, threshold: null })).toEqual(['with']);
  });

  it('labels the figure the line shows', () => {
    expect((legendEntries({ points: [] }) as { label: string }[])[0]?.label).toBe(
      'with compaction (estimated request tokens)',
    );
  });

  it('labels dollars per call in the cost view (no threshold: it is in tokens)', () => {
    const points = [{ call: 1, tokens: 0.01, uncompactedTokens: 0.02 }];
    expect(
      legendEntries({ points, threshold: null, compactions: [{ call: 1 }], measure: COST_MEASURE }),
    ).toEqual([
      { key: 'with', label: 'with compaction (USD per model call)' },
      { key: 'without', label: 'without compaction' },
      { key: 'compaction', label: 'compaction' },
    ]);
  });
});
