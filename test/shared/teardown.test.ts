/**
 * afterTest (test/support/teardown.ts): what a test starts is torn down when that test
 * finishes, not when another one does. vitest's own onTestFinished, called outside a test's
 * context, attaches to the test that started last; among tests that run at once, a server would
 * then be closed under the test still using it.
 */
import { describe, expect, it } from 'vitest'
import { afterTest } from '../support/teardown.js'

const sleep = (ms: number): Promise<void> => new Promise(resolve => setTimeout(resolve, ms))

describe.concurrent('afterTest among tests that run at once', () => {
  const finished = new Set<string>()

  // Each registers its teardown once all three have started, then runs for its own time: a
  // teardown attached to the test that started last would run before its own test is done.
  it.each([
    ['a long test', 120],
    ['a short test', 10],
    ['a middling test', 60]
  ])('%s: its teardown runs once it is done', async (name, ms) => {
    await sleep(20)
    afterTest(() => expect(finished.has(name), `${name} is done when its teardown runs`).toBe(true))
    await sleep(ms)
    finished.add(name)
  })
})
