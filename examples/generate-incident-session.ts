/**
 * Writes `examples/incident-session.jsonl`: a long, tool-heavy on-call session in Claude Code's
 * JSONL format (an agent chasing a checkout latency regression through kubectl, logs, SQL and
 * the release diff). Deterministic: a seeded generator and fixed clock, so the file only changes
 * when this script (or `examples/incident/`) does.
 *
 *   npx tsx examples/generate-incident-session.ts
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { incidentSessionLines } from './incident/session-script.js';

const lines = incidentSessionLines();
const folder = dirname(fileURLToPath(import.meta.url));
const target = join(folder, 'incident-session.jsonl');
writeFileSync(target, `${lines.join('\n')}\n`);
console.log(`wrote ${target}: ${lines.length} records`);
