/**
 * Writes the replay goldens (`src/cli/fixtures/replay-goldens*.json`) that
 * `src/cli/replay-golden.test.ts` compares against. Run it only when replay's figures are meant
 * to change, and say why in the commit:
 *
 *   npx tsx scripts/replay-goldens.ts                                  # examples + generated
 *   ORRERY_DATASETS=../shared/datasets npx tsx scripts/replay-goldens.ts  # also the datasets
 *
 * `ORRERY_GOLDEN_ROOT` replays another checkout's code (e.g. a copy of the tree before a change)
 * and writes its goldens here.
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(dirname(fileURLToPath(import.meta.url)));
const root = process.env.ORRERY_GOLDEN_ROOT ?? here;
const helper = (await import(
  pathToFileURL(join(root, 'src/cli/test-helpers/replay-goldens.ts')).href
)) as typeof import('../src/cli/test-helpers/replay-goldens.js');

const cases: Record<string, unknown> = {};
for (const golden of helper.GOLDEN_CASES) {
  cases[golden.name] = await helper.runGoldenCase(golden, root);
}
const fixtures = join(here, 'src/cli/fixtures');
writeFileSync(join(fixtures, 'replay-goldens.json'), `${JSON.stringify(cases, null, 2)}\n`);
console.log(`wrote ${Object.keys(cases).length} cases to src/cli/fixtures/replay-goldens.json`);

const datasets = process.env.ORRERY_DATASETS;
if (datasets) {
  const goldens = await helper.datasetGoldens(datasets);
  writeFileSync(
    join(fixtures, 'replay-goldens-datasets.json'),
    `${JSON.stringify(goldens, null, 2)}\n`,
  );
  console.log(`wrote ${Object.keys(goldens).length} dataset transcripts`);
}
