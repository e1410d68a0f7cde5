// Fails when dist/ differs from a fresh build of the source: a workflow runs dist/, so
// the committed bundle must be exactly what the source builds to.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const fresh = mkdtempSync(join(tmpdir(), 'dist-check-'))
try {
  execFileSync(process.execPath, ['scripts/bundle.mjs', fresh], { stdio: ['ignore', 'ignore', 'inherit'] })
  const files = new Set([...readdirSync('dist'), ...readdirSync(fresh)])
  const stale = [...files].filter(file => {
    try {
      return !readFileSync(join('dist', file)).equals(readFileSync(join(fresh, file)))
    } catch {
      return true
    }
  })
  if (stale.length > 0) {
    console.error(`dist/ is not the build of the source (differs: ${stale.join(', ')}). Run "npm run bundle" and commit dist/.`)
    process.exit(1)
  }
  console.log(`dist/ matches a fresh build (${files.size} files).`)
} finally {
  rmSync(fresh, { recursive: true, force: true })
}
