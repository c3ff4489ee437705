import { processEnvironment } from '../config.js';
import { runSigner } from './cli.js';

/** `npm run signer -- <command>`: see cli.ts. */
// exitCode rather than exit(): stdout to a pipe may still be flushing.
process.exitCode = await runSigner(process.argv.slice(2), {
  env: processEnvironment(),
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
