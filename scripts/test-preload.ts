import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const PRELOAD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'test-process.mjs');

/**
 * The environment a test pass runs with so that every process of it preloads
 * scripts/test-process.mjs (it acts in test processes only): a test process that lingers after
 * its tests is ended, and, with `cpuLog`, each one's CPU is written there.
 */
export function preloadEnv(nodeOptions: string | undefined, cpuLog: string | undefined): Record<string, string> {
  return {
    NODE_OPTIONS: `${nodeOptions ?? ''} --import ${pathToFileURL(PRELOAD).href}`.trim(),
    ...(cpuLog === undefined ? {} : { TEST_CPU: cpuLog }),
  };
}
