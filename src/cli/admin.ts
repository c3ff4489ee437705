import { processEnvironment } from '../config.js';
import { runAdmin } from './admin-run.js';

/** `npm run admin -- <command>`: see admin-run.ts. */
// exitCode rather than exit(): stdout to a pipe may still be flushing.
process.exitCode = await runAdmin(process.argv.slice(2), {
  env: processEnvironment(),
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
