import { shuffle } from '@vitest/utils/helpers'
import { BaseSequencer, type TestSpecification } from 'vitest/node'

/**
 * The files whose one test is long by nature: a build of the bundle, and a tool's start-up.
 * Without timings (a fresh clone, as in CI) vitest runs larger files first, and these small two
 * started last and held the run up by ten seconds: they start first.
 *
 * With `--sequence.shuffle` (and its `--sequence.seed`), the files are shuffled by vitest's own
 * shuffle, as its random sequencer does: the test files share their workers' modules (`isolate:
 * false`), and a shuffled order catches a file that depends on another's leftovers. The same
 * seed gives the same order, so a failing order can be run again.
 */
const FIRST = ['test/repo/dist.test.ts', 'test/repo/local-action.test.ts']

export default class SlowFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { shuffle: shuffled, seed } = this.ctx.config.sequence
    if (shuffled) return shuffle([...files], seed)
    const rank = (file: TestSpecification): number =>
      FIRST.findIndex(path => file.moduleId.replaceAll('\\', '/').endsWith(path))
    const sorted = await super.sort(files)
    return [
      ...sorted.filter(file => rank(file) >= 0).sort((a, b) => rank(a) - rank(b)),
      ...sorted.filter(file => rank(file) < 0)
    ]
  }
}
