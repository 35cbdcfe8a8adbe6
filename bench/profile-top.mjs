/**
 * The top self-time functions of a V8 CPU profile (`node --cpu-prof`), heaviest first:
 * `node bench/profile-top.mjs CPU.*.cpuprofile [count]`. Frames are named `function file:line`
 * (paths from `src/` or `node_modules/`); `(idle)` is time the thread waited.
 */
import { readFileSync } from 'node:fs';

const [file, countText = '25'] = process.argv.slice(2);
const count = Number.isInteger(Number(countText)) ? Number(countText) : 25;
if (!file) {
  console.error('usage: node bench/profile-top.mjs <file.cpuprofile> [count]');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8'));
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const self = new Map();
let total = 0;
profile.samples.forEach((id, index) => {
  const frame = nodes.get(id).callFrame;
  const where = frame.url.replace(/.*\/(src|node_modules)\//, '$1/');
  const name = `${frame.functionName || '(anonymous)'} ${where}:${frame.lineNumber + 1}`;
  const delta = profile.timeDeltas[index] ?? 0;
  self.set(name, (self.get(name) ?? 0) + delta);
  total += delta;
});
console.log(`| self ms | share | function |\n|---:|---:|---|`);
for (const [name, micros] of [...self].sort((a, b) => b[1] - a[1]).slice(0, count)) {
  console.log(
    `| ${(micros / 1000).toFixed(1)} | ${((100 * micros) / total).toFixed(1)}% | ${name} |`,
  );
}
console.log(`\ntotal sampled: ${(total / 1000).toFixed(0)} ms`);
