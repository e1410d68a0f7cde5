import type { Reporter, TestModule } from 'vitest/node'

/**
 * Ends the run with one plain line, `Tests: N passed, N failed[, N skipped]`, that any CI log
 * reader understands.
 */
export default class ClosingLineReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const counts = { passed: 0, failed: 0, skipped: 0, pending: 0 }
    for (const module of modules) {
      for (const test of module.children.allTests()) counts[test.result().state] += 1
    }
    const failedModules = modules.filter(
      m => m.state() === 'failed' && m.children.size === 0
    ).length
    const skipped = counts.skipped + counts.pending
    process.stdout.write(
      `\nTests: ${counts.passed} passed, ${counts.failed + failedModules} failed${skipped ? `, ${skipped} skipped` : ''}\n`
    )
  }
}
