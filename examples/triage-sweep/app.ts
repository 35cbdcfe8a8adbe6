/**
 * The triage sweep as an agent module for the CLI and the server, offline (scripted models: one
 * run's worth of answers per module load):
 *
 *   node bin/orrery.js run --agent examples/triage-sweep/app.ts "Checkout is failing: triage."
 *   node bin/orrery.js serve --agent examples/triage-sweep/app.ts
 *
 * In your own project, import from 'orrery' instead of '../../src/index.js'.
 */
import { defineApp } from '../../src/index.js';
import { createTriageSweep } from './sweep.js';

const sweep = createTriageSweep();

export default defineApp({
  appName: 'triage',
  agent: sweep.agent,
  compaction: sweep.compaction,
  // A workflow root has no model: its summarizer is given.
  summarizer: sweep.summarizer,
});
