/**
 * `npm run bench`: runs every benchmark module in this folder (each exports `run`) and prints
 * its tables. `ORRERY_DATASETS=../shared/datasets npm run bench` adds the real-transcript rows.
 * `npm run bench -- sqlite` runs only the modules whose file name contains `sqlite`.
 */
import { readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export interface BenchOptions {
  /** Folder of the public transcripts (`ORRERY_DATASETS`), when set. */
  datasets?: string;
  /** `ORRERY_TEST_PG_URL` or `ORRERY_BENCH_PG_URL`, when set. */
  postgresUrl?: string;
}

const folder = dirname(fileURLToPath(import.meta.url));
const filter = process.argv[2];
const files = (await readdir(folder))
  .filter((file) => file.endsWith('.bench.ts'))
  .filter((file) => !filter || file.includes(filter))
  .sort();

const options: BenchOptions = {
  datasets: process.env.ORRERY_DATASETS,
  postgresUrl: process.env.ORRERY_BENCH_PG_URL ?? process.env.ORRERY_TEST_PG_URL,
};

for (const file of files) {
  const module = (await import(pathToFileURL(join(folder, file)).href)) as {
    run: (options: BenchOptions) => Promise<void>;
  };
  console.log(`\n## ${file.replace('.bench.ts', '')}\n`);
  await module.run(options);
}
