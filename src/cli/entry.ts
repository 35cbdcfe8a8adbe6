/**
 * Runs the CLI from source (`tsx src/cli/entry.ts ...`): what the CLI tests spawn, so they test
 * the real process (exit codes, stdout/stderr) without a build. `bin/orrery.js` runs the build.
 */
import { main } from './main.js';

process.exitCode = await main(process.argv.slice(2));
