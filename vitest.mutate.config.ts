import { defineConfig } from 'vitest/config'
import { parserDeps, parserPlugin } from './vitest.config.js'

/**
 * The tests `npm run mutate` measures: the in-process ones. The end-to-end tests run the
 * committed bundle, which Stryker's mutants never reach, and the repository checks (workflows,
 * README, release, install) test no code under mutation. MUTATE_TESTS (files and folders,
 * comma-separated; set by scripts/mutate.mjs) narrows them to one module's own tests.
 */
const own = (process.env['MUTATE_TESTS'] ?? '').split(',').filter(Boolean)

export default defineConfig({
  plugins: [parserPlugin],
  test: {
    include:
      own.length > 0
        ? own.map(path => (path.endsWith('/') ? `${path}**/*.test.ts` : path))
        : ['test/**/*.test.ts'],
    // The bundle's process runs (e2e) and the repository checks (repo) test no code under mutation,
    // but a repository check a module names as its own (the troubleshooting page, which pins the
    // outcomes' words) runs.
    exclude: [
      'test/e2e/**',
      ...(own.some(path => path.startsWith('test/repo/')) ? [] : ['test/repo/**'])
    ],
    testTimeout: 30_000,
    server: { deps: parserDeps }
  }
})
