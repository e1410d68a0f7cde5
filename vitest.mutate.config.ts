import { defineConfig } from 'vitest/config'
import { parserDeps, parserPlugin } from './vitest.config.js'

/**
 * The tests `npm run mutate` measures: the in-process ones. The end-to-end tests run the
 * committed bundle, which Stryker's mutants never reach, and the repository checks (workflows,
 * README, release, install) test no code under mutation.
 */
export default defineConfig({
  plugins: [parserPlugin],
  test: {
    include: ['test/*.test.ts'],
    exclude: [
      'test/local-action.test.ts',
      'test/install.test.ts',
      'test/release.test.ts',
      'test/workflows.test.ts',
      'test/github-parser.test.ts',
      'test/readme.test.ts',
      'test/metadata.test.ts',
      'test/dist.test.ts',
      'test/hardening.test.ts',
      'test/marketplace.test.ts',
      'test/sequencer.test.ts',
      'test/architecture.test.ts'
    ],
    testTimeout: 30_000,
    server: { deps: parserDeps }
  }
})
