/**
 * Top self-time frames of a V8 .cpuprofile (node --cpu-prof), and self time per origin
 * (our src, each node_modules package, node internals, GC, idle).
 * `node --import tsx bench/profile-summary.ts <file.cpuprofile> [top]`
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface CpuProfile {
  startTime: number;
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface FrameTime {
  frame: string;
  origin: string;
  ms: number;
  share: number;
}

export interface ProfileSummary {
  totalMs: number;
  /** Share of sampled time the thread was busy (not idle). */
  busyShare: number;
  frames: FrameTime[];
  origins: FrameTime[];
}

function originOf(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules?.[1] !== undefined) return modules[1];
  if (url.startsWith('node:')) return 'node internals';
  // The server runs compiled (dist/ mirrors src/, scripts/build.mjs); the tests' copies are dist-*/.
  const src = /\/(src|bench|dist(?:-[^/]+)?)\//.exec(url);
  if (src !== null) return src[1] === 'bench' ? 'our bench' : 'our src';
  // PGlite's engine: the one WebAssembly module these servers load.
  if (url.startsWith('wasm://')) return 'WebAssembly';
  return path.basename(url);
}

/** A span of CLOCK_MONOTONIC time in µs (`process.hrtime.bigint() / 1000n` in any process). */
export type Window = readonly [startUs: number, endUs: number];

/**
 * Self time per frame; with `windows`, only samples taken inside them (the measured load runs,
 * not start-up or idle gaps). V8 stamps samples with the same monotonic clock as hrtime.
 */
export async function summariseProfile(file: string, top = 15, windows?: readonly Window[]): Promise<ProfileSummary> {
  const profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<number, number>();
  let totalUs = 0;
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (windows !== undefined && !windows.some(([start, end]) => at >= start && at <= end)) return;
    totalUs += delta;
    self.set(id, (self.get(id) ?? 0) + delta);
  });
  const frames = new Map<string, FrameTime>();
  const origins = new Map<string, FrameTime>();
  let idleUs = 0;
  for (const [id, us] of self) {
    const node = byId.get(id);
    if (node === undefined) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)') idleUs += us;
    const origin = originOf(url, functionName);
    const short = url === '' ? '' : ` ${url.replace(/^file:\/\/.*?\/(node_modules|src|bench|dist(?:-[^/]+)?)\//, '$1/')}:${lineNumber + 1}`;
    const key = `${functionName || '(anonymous)'}${short}`;
    const frame = frames.get(key) ?? { frame: key, origin, ms: 0, share: 0 };
    frame.ms += us / 1000;
    frames.set(key, frame);
    const group = origins.get(origin) ?? { frame: origin, origin, ms: 0, share: 0 };
    group.ms += us / 1000;
    origins.set(origin, group);
  }
  const totalMs = totalUs / 1000;
  const rank = (items: Iterable<FrameTime>) =>
    [...items].map((item) => ({ ...item, share: item.ms / totalMs })).sort((a, b) => b.ms - a.ms);
  return {
    totalMs,
    busyShare: 1 - idleUs / Math.max(totalUs, 1),
    frames: rank(frames.values()).slice(0, top),
    origins: rank(origins.values()).slice(0, top),
  };
}

export function formatSummary(title: string, summary: ProfileSummary): string {
  const pct = (share: number) => `${(share * 100).toFixed(1)}%`;
  const lines = [
    `#### ${title}`,
    '',
    `${(summary.totalMs / 1000).toFixed(1)} s sampled, busy ${pct(summary.busyShare)}`,
    '',
    '| self | origin | frame |',
    '|---:|---|---|',
    ...summary.frames.map((frame) => `| ${pct(frame.share)} | ${frame.origin} | \`${frame.frame.replace(/\|/g, '\\|')}\` |`),
    '',
    '| self | origin |',
    '|---:|---|',
    ...summary.origins.map((origin) => `| ${pct(origin.share)} | ${origin.frame} |`),
    '',
  ];
  return lines.join('\n');
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [file, top] = process.argv.slice(2);
  if (file === undefined) throw new Error('usage: profile-summary.ts <file.cpuprofile> [top]');
  console.log(formatSummary(path.basename(file), await summariseProfile(file, Number(top ?? 15))));
}
