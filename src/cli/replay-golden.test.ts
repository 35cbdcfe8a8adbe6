/**
 * Replay's reports are pinned: on the incident example and two generated transcripts the same
 * compactions, token figures and bytes, request by request, as recorded in
 * `fixtures/replay-goldens.json` before replay was made linear (and, with `ORRERY_DATASETS`, the
 * same per-transcript digests on every public dataset). Events keep the random ids import gives
 * them: no id enters what replay measures (`test/cli/replay.test.ts` checks that).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  datasetGoldens,
  GOLDEN_CASES,
  type GoldenReport,
  runGoldenCase,
} from './test-helpers/replay-goldens.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const readJson = <T>(name: string) =>
  JSON.parse(readFileSync(join(here, 'fixtures', name), 'utf8')) as T;

describe('replay reports match the recorded goldens', () => {
  const goldens = readJson<Record<string, GoldenReport>>('replay-goldens.json');

  it('has a golden for every case', () => {
    expect(Object.keys(goldens).sort()).toEqual(GOLDEN_CASES.map((golden) => golden.name).sort());
  });

  for (const golden of GOLDEN_CASES) {
    it(golden.name, async () => {
      const report = await runGoldenCase(golden, root);
      const expected = goldens[golden.name];
      // The figures first, so a failure shows the compactions and totals that moved.
      const { requests, ...figures } = report;
      const { requests: expectedRequests, ...expectedFigures } = expected ?? ({} as GoldenReport);
      expect(figures).toEqual(expectedFigures);
      expect(requests.split(' ')).toEqual(expectedRequests?.split(' '));
    }, 120_000);
  }
});

const datasets = process.env.ORRERY_DATASETS;

describe.skipIf(!datasets)('replay of the public datasets matches its goldens', () => {
  it('gives every transcript the recorded figures and digest', async () => {
    const expected = readJson<Record<string, string>>('replay-goldens-datasets.json');
    expect(await datasetGoldens(datasets ?? '')).toEqual(expected);
  }, 600_000);
});
