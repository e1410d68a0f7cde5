// Cuts a release: `node scripts/release.mjs 1.2.3 [--push]`.
//
// Sets the version in package.json (and its lock) and in src/version.ts (the User-Agent),
// turns the changelog's "Unreleased" section into the version's, rebuilds dist/, runs the
// tests, commits, and tags vX.Y.Z and the moving major tag vX. With --push it pushes the
// commit and both tags (the major tag with --force, as it moves); the release workflow then
// publishes the GitHub release.
import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'

const [version, ...flags] = process.argv.slice(2)
if (!/^\d+\.\d+\.\d+$/.test(version ?? '')) {
  console.error('usage: node scripts/release.mjs X.Y.Z [--push]')
  process.exit(2)
}
const run = (command, args) => execFileSync(command, args, { stdio: 'inherit' })
const git = (...args) => execFileSync('git', args, { encoding: 'utf8' }).trim()
if (git('status', '--porcelain') !== '') {
  console.error('the working tree has changes: commit or stash them first')
  process.exit(1)
}

run('npm', ['version', version, '--no-git-tag-version', '--allow-same-version'])
const versionFile = 'src/version.ts'
writeFileSync(versionFile, readFileSync(versionFile, 'utf8').replace(/ACTION_VERSION = '[^']*'/, `ACTION_VERSION = '${version}'`))
const changelog = readFileSync('CHANGELOG.md', 'utf8')
if (!changelog.includes('## Unreleased')) throw new Error('CHANGELOG.md has no "## Unreleased" section')
writeFileSync('CHANGELOG.md', changelog.replace('## Unreleased', `## Unreleased\n\n## ${version}`))
run('npm', ['run', 'bundle'])
run('npm', ['test'])

const major = `v${version.split('.')[0]}`
git('add', '-A')
git('commit', '-m', `Release v${version}`)
git('tag', '-a', `v${version}`, '-m', `v${version}`)
git('tag', '-f', major, `v${version}^{}`)
console.log(`Tagged v${version} and moved ${major}.`)
if (flags.includes('--push')) {
  git('push', 'origin', 'HEAD', `v${version}`)
  git('push', '--force', 'origin', major)
}
