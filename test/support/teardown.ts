/**
 * Teardown at the end of the test that set something up. vitest's own onTestFinished, called
 * outside a test's context, attaches to the test that started last: among concurrent tests that
 * may be another one, which would close a server its own test still uses. So every test runs in
 * an async context of its own (trackTests, for every file), and afterTest registers with it.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import { aroundEach, onTestFinished, type TestContext } from 'vitest'

/** The running test's own onTestFinished. */
const running = new AsyncLocalStorage<TestContext['onTestFinished']>()

/** Runs each test of the file in an async context that knows the test. */
export function trackTests(): void {
  // Destructured: vitest reads a hook's second parameter as the fixtures it needs (test.extend).
  aroundEach(async (runTest, { onTestFinished: finished }) => running.run(finished, runTest))
}

/** Runs `teardown` when the current test has finished, passed or failed. Call it inside a test. */
export function afterTest(teardown: () => unknown): void {
  const finished = running.getStore() ?? onTestFinished
  finished(async () => {
    await teardown()
  })
}
