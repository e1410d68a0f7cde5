// Fails when dist/ differs from a fresh build of the source: a workflow runs dist/, so
// the committed bundle must be exactly what the source builds to.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

// Without the patch of @actions/core (applied by `npm ci`'s postinstall), the build differs and
// would pull its OIDC client into dist/: say that, rather than "commit a new dist/".
const core = JSON.parse(readFileSync('node_modules/@actions/core/package.json', 'utf8'))
if (core.sideEffects !== false) {
  console.error(
    'node_modules/@actions/core lacks the patch in patches/ ("sideEffects": false), so a build would differ from dist/. ' +
      'Run npm ci without --ignore-scripts (its postinstall applies the patch), or npx patch-package.'
  )
  process.exit(1)
}

const fresh = mkdtempSync(join(tmpdir(), 'dist-check-'))
try {
  execFileSync(process.execPath, ['scripts/bundle.mjs', fresh], {
    stdio: ['ignore', 'ignore', 'inherit']
  })
  const files = new Set([...readdirSync('dist'), ...readdirSync(fresh)])
  const stale = [...files].filter(file => {
    try {
      return !readFileSync(join('dist', file)).equals(readFileSync(join(fresh, file)))
    } catch {
      return true
    }
  })
  if (stale.length > 0) {
    console.error(
      `dist/ is not the build of the source (differs: ${stale.join(', ')}). Run "npm run bundle" and commit dist/.`
    )
    process.exit(1)
  }
  console.log(`dist/ matches a fresh build (${files.size} files).`)
} finally {
  rmSync(fresh, { recursive: true, force: true })
}
