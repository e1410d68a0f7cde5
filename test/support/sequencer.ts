import { BaseSequencer, type TestSpecification } from 'vitest/node'

/**
 * The files whose one test is long by nature: a build of the bundle, and a tool's start-up.
 * Vitest runs the files it has timings for longest first, but without timings (a fresh clone,
 * as in CI) it runs larger files first, and these two are small: they started last and held
 * the run up by ten seconds. They start first.
 */
const FIRST = ['test/dist.test.ts', 'test/local-action.test.ts']

export default class SlowFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification): number => FIRST.findIndex(path => file.moduleId.replaceAll('\\', '/').endsWith(path))
    const sorted = await super.sort(files)
    return [...sorted.filter(file => rank(file) >= 0).sort((a, b) => rank(a) - rank(b)), ...sorted.filter(file => rank(file) < 0)]
  }
}
