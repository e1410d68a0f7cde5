import { readFile } from 'node:fs/promises'
import { defineConfig } from 'vitest/config'

/** GitHub's workflow parser imports its schemas as JSON, which only a bundler resolves: vitest loads it inline. */
const PARSER = /[\\/]node_modules[\\/]@actions[\\/]workflow-parser[\\/]/

export default defineConfig({
  plugins: [
    {
      // The package's source maps point at files it does not ship; without them, vite warns once per module.
      name: 'workflow-parser-without-source-maps',
      enforce: 'pre',
      async load(id) {
        if (!PARSER.test(id) || !id.endsWith('.js')) return null
        const code = await readFile(id.split('?')[0]!, 'utf8')
        return { code: code.replace(/^\/\/# sourceMappingURL=.*$/m, ''), map: null }
      }
    }
  ],
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    server: { deps: { inline: ['@actions/workflow-parser'] } },
    reporters: ['default', './test/support/closing-line.ts']
  }
})
