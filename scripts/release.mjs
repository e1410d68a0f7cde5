// Cuts a release: `node scripts/release.mjs X.Y.Z [--repository owner/name] [--check] [--push]`.
//
// First it refuses a release that users could not reach with what the documentation tells
// them. The action's home is package.json's `repository` (owner/name on GitHub):
// - every reference to the action or its reusable workflow in README.md, docs/ and the
//   reusable workflow names the home, at the release's major tag (a copied example that
//   says @v1 fails with "unable to resolve action" when only v0 or v2 exists); a full commit
//   SHA, shown where the docs explain pinning, is allowed;
// - it is released from the home: the repository comes from --repository, GITHUB_REPOSITORY,
//   or the `origin` remote, and a fork (or an unknown repository) is refused, since its tags
//   would publish documentation that runs another repository's action.
// `--check` runs these checks only, changing nothing (the release workflow runs it at the tag).
//
// Then, before changing anything, it runs the Marketplace's rules for action.yml
// (test/repo/marketplace.test.ts): the Marketplace checks action.yml at the release's tag, so a
// description it refuses would need another release. It sets the version in package.json and
// its lock (the bundle reads it from there for the User-Agent), turns the changelog's
// "Unreleased" section into the version's (or keeps a section already written for it),
// rebuilds dist/, runs the tests, commits, tags vX.Y.Z and says which commit it points to. With
// --push it pushes the commit and the tag; the release workflow then checks the tag again,
// attests dist/ and drafts the release. The major tag vX moves only once the maintainer has
// published it (.github/workflows/major-tag.yml).
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

export const STATS_WORKFLOW = '.github/workflows/stats.yml'

/** The test of action.yml against the Marketplace's rules, run before a release is tagged. */
export const MARKETPLACE_TEST = 'test/repo/marketplace.test.ts'

/**
 * The files whose references are checked: the README, every page of docs/, the reusable workflow.
 */
export function documentedFiles(root = '.') {
  const docs = existsSync(join(root, 'docs'))
    ? readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' })
        .filter(name => name.endsWith('.md'))
        .map(name => `docs/${name.split('\\').join('/')}`)
        .sort()
    : []
  return ['README.md', ...docs, STATS_WORKFLOW].filter(path => existsSync(join(root, path)))
}

/** owner/name from package.json's `repository` (a string or `{ url }`, https, git+https or ssh). */
export function homeOf(packageJson) {
  const repository = packageJson.repository
  const url = typeof repository === 'string' ? repository : repository?.url
  return url === undefined
    ? undefined
    : (repositoryOfRemote(url) ?? (/^[\w.-]+\/[\w.-]+$/.test(url) ? url : undefined))
}

/**
 * References to this action or its reusable workflow: `owner/name@ref` or
 * `owner/name/.github/workflows/stats.yml@ref`, where name is the home's name (a copy under
 * another owner is still a reference to this action) or owner/name is the home. GitHub's own
 * actions (`actions/`, `github/`) are never this action.
 */
function references(text, home) {
  const name = home.split('/')[1]
  const pattern =
    /(?<![\w./-])((?!actions\/|github\/)[\w.-]+\/[\w.-]+)(\/\.github\/workflows\/stats\.yml)?@([\w.-]+)/g
  return [...text.matchAll(pattern)].filter(
    match => match[1] === home || match[1].split('/')[1] === name || match[1].startsWith('OWNER/')
  )
}

function lineOf(text, index) {
  return text.slice(0, index).split('\n').length
}

/**
 * What stops version `version` from being released, one line each; empty when nothing does.
 * `files` maps a path to its text; `home` is package.json's repository; `repository` is where
 * the release is made from, if known.
 */
export function releaseProblems({ version, files, home, repository }) {
  if (!/^\d+\.\d+\.\d+$/.test(version ?? ''))
    return [`the version must be X.Y.Z, not ${JSON.stringify(version)}`]
  if (home === undefined)
    return [
      'package.json names no repository on GitHub (its "repository" field): the documentation cannot name the action'
    ]
  const problems = []
  const major = `v${version.split('.')[0]}`
  let found = 0
  for (const [path, text] of Object.entries(files)) {
    for (const match of references(text, home)) {
      found++
      const where = `${path}:${lineOf(text, match.index)}: ${match[0]}`
      if (match[1] !== home)
        problems.push(`${where} does not name ${home}, the action's home (package.json repository)`)
      else if (match[3] !== major && !/^[0-9a-f]{40}$/.test(match[3]))
        problems.push(`${where} does not match the release's major tag ${major}`)
    }
  }
  if (found === 0)
    problems.push(`no file references ${home}@${major}: the README's examples should`)
  if (repository === undefined) {
    problems.push(
      'the repository released from is unknown: pass --repository owner/name (or set GITHUB_REPOSITORY, or an origin remote on GitHub)'
    )
  } else if (repository !== home) {
    problems.push(
      `this release is made from ${repository}, not from ${home}, the home every example names: release from ${home}`
    )
  }
  return problems
}

/** owner/name of a GitHub remote address (https or ssh), or undefined. */
export function repositoryOfRemote(url) {
  const match = /github\.com[:/]([\w.-]+)\/([\w.-]+?)(?:\.git)?\/?$/.exec(url.trim())
  return match ? `${match[1]}/${match[2]}` : undefined
}

/**
 * The changelog with a section for `version`: the "Unreleased" notes moved under it, or the one
 * already written.
 */
export function changelogFor(changelog, version) {
  const unreleased = /^## Unreleased\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(changelog)
  if (unreleased === null) throw new Error('CHANGELOG.md has no "## Unreleased" section')
  const notes = unreleased[1].trim()
  const written = new RegExp(`^## \\[?v?${version.replace(/\./g, '\\.')}\\]?\\s*$`, 'm').test(
    changelog
  )
  if (written) {
    if (notes !== '')
      throw new Error(
        `CHANGELOG.md has a ${version} section and notes under "Unreleased": move them into one`
      )
    return changelog
  }
  if (notes === '')
    throw new Error(`CHANGELOG.md has nothing under "Unreleased" to release as ${version}`)
  return changelog.replace(unreleased[0], `## Unreleased\n\n## ${version}\n\n${notes}\n\n`)
}

function main() {
  const args = process.argv.slice(2)
  const version = args.find(
    arg => !arg.startsWith('--') && args[args.indexOf(arg) - 1] !== '--repository'
  )
  const flag = name => args.includes(name)
  const git = (...gitArgs) => execFileSync('git', gitArgs, { encoding: 'utf8' }).trim()
  let origin = ''
  try {
    origin = execFileSync('git', ['remote', 'get-url', 'origin'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore']
    })
  } catch {
    // No origin remote: --repository or GITHUB_REPOSITORY must say it.
  }
  const given = flag('--repository') ? args[args.indexOf('--repository') + 1] : undefined
  const repository = given || process.env['GITHUB_REPOSITORY'] || repositoryOfRemote(origin)
  const read = path => readFileSync(path, 'utf8')
  const files = Object.fromEntries(documentedFiles().map(path => [path, read(path)]))
  const problems = releaseProblems({
    version,
    files,
    home: homeOf(JSON.parse(read('package.json'))),
    repository
  })
  if (problems.length > 0) {
    console.error(`Refusing to release ${version ?? '(no version)'}:`)
    for (const problem of problems) console.error(`  - ${problem}`)
    console.error(
      'usage: node scripts/release.mjs X.Y.Z [--repository owner/name] [--check] [--push]'
    )
    process.exit(1)
  }
  if (flag('--check')) {
    console.log(`v${version} can be released from ${repository}.`)
    return
  }
  if (git('status', '--porcelain') !== '') {
    console.error('the working tree has changes: commit or stash them first')
    process.exit(1)
  }
  const run = (command, commandArgs) =>
    execFileSync(command, commandArgs, { stdio: 'inherit', shell: process.platform === 'win32' })

  // This Node runs vitest directly (no shell: its path may hold spaces on Windows).
  execFileSync(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', MARKETPLACE_TEST], {
    stdio: 'inherit'
  })
  writeFileSync('CHANGELOG.md', changelogFor(read('CHANGELOG.md'), version))
  run('npm', ['version', version, '--no-git-tag-version', '--allow-same-version'])
  run('npm', ['run', 'bundle'])
  run('npm', ['test'])

  git('add', '-A')
  git('commit', '-m', `Release v${version}`)
  git('tag', '-a', `v${version}`, '-m', `v${version}`)
  const commit = git('rev-parse', `v${version}^{commit}`)
  console.log(`Tagged v${version}: it points to commit ${commit}.`)
  console.log(`Pinned, the release is: uses: ${repository}@${commit} # v${version}`)
  if (flag('--push')) git('push', 'origin', 'HEAD', `v${version}`)
  console.log(
    'Once pushed, the release workflow drafts the release: publish it, then run major-tag.yml (its job summary says how).'
  )
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  main()
