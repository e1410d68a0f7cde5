import { BaseSequencer, type TestSpecification } from 'vitest/node'

/**
 * The files whose one test is long by nature: a build of the bundle, and a tool's start-up.
 * Vitest runs the files it has timings for longest first, but without timings (a fresh clone,
 * as in CI) it runs larger files first, and these two are small: they started last and held
 * the run up by ten seconds. They start first.
 *
 * With `--sequence.shuffle` (and its `--sequence.seed`), the files are shuffled as vitest's own
 * random sequencer would: the test files share their workers' modules (`isolate: false`), and a
 * shuffled order is how a file that depends on another's leftovers is caught. The same seed
 * gives the same order, so a failing order can be run again.
 */
const FIRST = ['test/repo/dist.test.ts', 'test/repo/local-action.test.ts']

export default class SlowFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { shuffle, seed } = this.ctx.config.sequence
    if (shuffle) return shuffled(files, seed)
    const rank = (file: TestSpecification): number => FIRST.findIndex(path => file.moduleId.replaceAll('\\', '/').endsWith(path))
    const sorted = await super.sort(files)
    return [...sorted.filter(file => rank(file) >= 0).sort((a, b) => rank(a) - rank(b)), ...sorted.filter(file => rank(file) < 0)]
  }
}

/** A Fisher–Yates shuffle driven by a seeded generator (mulberry32): one seed, one order. */
export function shuffled<T>(items: readonly T[], seed: number): T[] {
  let state = seed >>> 0
  const random = (): number => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
  const out = [...items]
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[out[i], out[j]] = [out[j]!, out[i]!]
  }
  return out
}
