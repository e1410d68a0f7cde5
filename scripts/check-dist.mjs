// Fails when dist/ differs from a fresh build of the source: a workflow runs dist/, so
// the committed bundle must be exactly what the source builds to.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const script = JSON.parse(readFileSync('package.json', 'utf8')).scripts.bundle
if (!/ -o dist\b/.test(script)) throw new Error('the bundle script must write to dist with "-o dist"')
const fresh = mkdtempSync(join(tmpdir(), 'dist-check-'))
try {
  const command = script.replace(/ -o dist\b/, ` -o ${fresh}`)
  execFileSync('sh', ['-c', command.replace(/^ncc /, 'npx --no-install ncc ')], { stdio: ['ignore', 'ignore', 'inherit'] })
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
