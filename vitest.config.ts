import { spawnSync } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import type { Plugin } from 'vite'
import { defineConfig } from 'vitest/config'
import SlowFirst from './test/support/sequencer.js'

/**
 * GitHub's workflow parser imports its schemas as JSON, which only a bundler resolves: vitest loads
 * it inline.
 */
const PARSER = /[\\/]node_modules[\\/]@actions[\\/]workflow-parser[\\/]/

/**
 * The end-to-end tests run dist/ on Node 24, the runtime action.yml declares. Without one at
 * hand (NODE24=skip, offline), they are left out, and the run says so.
 */
const node24 = spawnSync(process.execPath, ['scripts/node24.mjs', '--locate'], { encoding: 'utf8' })
const e2e = node24.status === 0 && node24.stdout.trim() !== ''
if (!e2e)
  console.warn(
    `SKIPPED: the end-to-end tests (dist/ on Node 24): ${node24.stderr.trim() || 'no Node 24 at hand'}.`
  )

/**
 * GitHub's parser, loaded inline; its source maps point at files it does not ship (vite would warn
 * once per module).
 */
export const parserPlugin: Plugin = {
  name: 'workflow-parser-without-source-maps',
  enforce: 'pre',
  async load(id) {
    if (!PARSER.test(id) || !id.endsWith('.js')) return null
    const code = await readFile(id.split('?')[0]!, 'utf8')
    return { code: code.replace(/^\/\/# sourceMappingURL=.*$/m, ''), map: null }
  }
}
export const parserDeps = { inline: ['@actions/workflow-parser'] }

export default defineConfig({
  plugins: [parserPlugin],
  test: {
    include: ['test/**/*.test.ts'],
    exclude: e2e ? [] : ['test/e2e/**'],
    // Many test files wait on sockets, timers and child processes rather than on the CPU, so
    // more files run at once than there are cores (vitest's default is one fewer than the
    // cores: a single worker on a 2-core machine, which doubled the suite's time). Three was the
    // fastest there: a fourth worker loads every module once more and saves no waiting.
    maxWorkers: 3,
    // The files share their workers' loaded modules instead of loading them afresh each (which
    // took half the suite's time); the setup file gives each file the state a new run starts with.
    isolate: false,
    setupFiles: ['./test/support/isolation.ts'],
    sequence: { sequencer: SlowFirst },
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // A table's object rows name their tests by a field (`$label`), shown whole up to this many
    // characters (vitest's default cuts it at 40, mid-word); values in a failure's message too.
    chaiConfig: { truncateThreshold: 200 },
    server: { deps: parserDeps },
    reporters: ['default', './test/support/closing-line.ts']
  }
})
