/**
 * Child process of `import-memory.test.ts`: imports one file and prints the most heap it kept
 * (`heapUsed` after a full GC, above the baseline before the import), sampled after the first
 * pass and every 2,000 events of the second. `node --expose-gc --import tsx <this> MODE FILE`;
 * MODE `stream` (importTranscriptFile) or `whole` (the file read whole, as before, a control).
 */
import { readFileSync } from 'node:fs';
import { importTranscriptFile, importTranscripts } from '../../src/entries/importers.js';

const [mode, path] = process.argv.slice(2);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc || !path) throw new Error('usage: node --expose-gc --import tsx child.ts MODE FILE');

gc();
const baseline = process.memoryUsage().heapUsed;
let retained = 0;
const sample = () => {
  gc();
  retained = Math.max(retained, process.memoryUsage().heapUsed - baseline);
};

let events = 0;
if (mode === 'stream') {
  const [result] = await importTranscriptFile({ path });
  sample();
  for await (const _event of result?.events() ?? []) {
    events++;
    if (events % 2_000 === 0) sample();
  }
} else {
  const [result] = importTranscripts({ text: readFileSync(path), fileName: path });
  sample();
  events = result?.events.length ?? 0;
}
sample();
process.stdout.write(`${JSON.stringify({ retained, events })}\n`);
