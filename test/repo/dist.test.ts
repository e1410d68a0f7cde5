/**
 * dist/ is the bundle of the committed source: a workflow runs dist/, so a change to src/
 * without a rebuild would ship the old action. scripts/check-dist.mjs builds the source into
 * a temporary folder and compares; here it runs beside the other tests. CHECK_DIST=skip leaves
 * it to a CI job of its own (the GitHub workflow checks dist/ once, not in every matrix cell).
 */
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../support/action.js'

describe.skipIf(process.env['CHECK_DIST'] === 'skip')('dist/', () => {
  it('is the build of the committed source', () => {
    const check = spawnSync(process.execPath, [join(ROOT, 'scripts/check-dist.mjs')], {
      cwd: ROOT,
      encoding: 'utf8'
    })
    expect(check.stderr + check.stdout).toMatch(/dist\/ matches a fresh build/)
    expect(check.status).toBe(0)
  }, 120_000)
})

describe('dist/index.js', () => {
  // A reviewer reads a release's diff: the bundle keeps the source's names and lines (ncc without
  // --minify).
  it('is readable code, not minified', () => {
    const lines = readFileSync(join(ROOT, 'dist/index.js'), 'utf8').split('\n')
    const average = lines.reduce((sum, line) => sum + line.length, 0) / lines.length
    expect(average, `average line length ${average.toFixed(0)}`).toBeLessThan(80)
    expect(lines).toContain(
      'function refuseMisplacedSecrets(apiKey, discordToken, githubToken, botId) {'
    )
  })
})
