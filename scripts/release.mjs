// Cuts a release: `node scripts/release.mjs X.Y.Z [--repository owner/name] [--push]`.
//
// First it refuses a release that users could not reach with what the documentation tells
// them: every `@vN` the README's examples and the reusable workflow reference must be the
// release's major tag (a copied example that says @v1 fails with "unable to resolve action"
// when only v0 or v2 exists), and the reusable workflow's `uses:` must name this repository,
// not the `OWNER/` placeholder: the repository comes from --repository, GITHUB_REPOSITORY, or
// the `origin` remote, and is filled in; with none of them it refuses while the placeholder
// is there. `--check` runs these checks only, changing nothing; `--check --tagged` checks a
// commit already tagged (the release workflow), where the placeholder must already be gone.
//
// Then it sets the version in package.json (and its lock) and in src/version.ts (the
// User-Agent), turns the changelog's "Unreleased" section into the version's (or keeps a
// section already written for it), rebuilds dist/, runs the tests, commits, and tags vX.Y.Z
// and the moving major tag vX. With --push it pushes the commit and both tags (the major tag
// with --force, as it moves); the release workflow then publishes the GitHub release.
import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

export const STATS_WORKFLOW = '.github/workflows/stats.yml'
export const PLACEHOLDER = 'OWNER/'

/**
 * `uses:` lines (and their commented examples) in the reusable workflow that name this action or
 * workflow. The repository may have any name (a fork), so these are told apart from steps of
 * other actions by owner: GitHub's own (`actions/`, `github/`) are never this action.
 */
const WORKFLOW_USES =
  /^(\s*(?:#\s*)?(?:-\s+)?uses:\s+)((?!actions\/|github\/)[\w.-]+\/[\w.-]+)((?:\/\.github\/workflows\/stats\.yml)?@)(v\d+)(?=[ \t]*$)/gm
/** The README's references to the action or its reusable workflow at a major tag. */
const README_USES = /\b[\w.-]+\/discord-place-bot-stats(?:\/\.github\/workflows\/stats\.yml)?@(v[^\s'"`]*)/g

function lineOf(text, index) {
  return text.slice(0, index).split('\n').length
}

/**
 * What stops version `version` from being released with these files, one line each; empty
 * when nothing does. `repository` is where it is released from (owner/name), if known.
 */
export function releaseProblems({ version, readme, workflow, repository, tagged = false }) {
  const problems = []
  if (!/^\d+\.\d+\.\d+$/.test(version ?? '')) return [`the version must be X.Y.Z, not ${JSON.stringify(version)}`]
  const major = `v${version.split('.')[0]}`
  const readmeRefs = [...readme.matchAll(README_USES)]
  if (readmeRefs.length === 0) problems.push('README.md references the action at no major tag (owner/discord-place-bot-stats@vN)')
  for (const match of readmeRefs) {
    if (match[1] !== major)
      problems.push(`README.md:${lineOf(readme, match.index)}: ${match[0]} does not match the release's major tag ${major}`)
  }
  const workflowRefs = [...workflow.matchAll(WORKFLOW_USES)]
  if (!workflowRefs.some(match => !/^\s*#/.test(match[1]))) problems.push(`${STATS_WORKFLOW}: no \`uses: owner/name@vN\` step to check`)
  for (const match of workflowRefs) {
    const where = `${STATS_WORKFLOW}:${lineOf(workflow, match.index)}`
    if (match[4] !== major) problems.push(`${where}: ${match[2]}${match[3]}${match[4]} does not match the release's major tag ${major}`)
  }
  // At a tagged commit the workflow must name the repository it is released from: a fork that
  // tags without the script would otherwise publish a workflow that runs another repository's action.
  if (tagged && repository !== undefined) {
    for (const match of workflowRefs) {
      if (match[2] !== repository && !match[2].startsWith(PLACEHOLDER))
        problems.push(`${STATS_WORKFLOW}:${lineOf(workflow, match.index)}: ${match[2]} is not ${repository}, the repository released from`)
    }
  }
  if (workflow.includes(PLACEHOLDER) && tagged) {
    problems.push(
      `${STATS_WORKFLOW} still says ${PLACEHOLDER}… at the tagged commit: tag with scripts/release.mjs, which fills in the repository`
    )
  } else if (workflow.includes(PLACEHOLDER) && repository === undefined) {
    problems.push(
      `${STATS_WORKFLOW} still says ${PLACEHOLDER}…, and the repository to fill in is unknown: pass --repository owner/name (or set GITHUB_REPOSITORY, or an origin remote on GitHub)`
    )
  }
  if (repository !== undefined && !/^[\w.-]+\/[\w.-]+$/.test(repository))
    problems.push(`the repository must be owner/name, not ${repository}`)
  return problems
}

/** The reusable workflow with every `uses:` of this action (and its commented examples) naming `repository`. */
export function fillRepository(workflow, repository) {
  return workflow.replace(WORKFLOW_USES, (_, before, _name, after, tag) => `${before}${repository}${after}${tag}`)
}

/** owner/name of a GitHub remote address (https or ssh), or undefined. */
export function repositoryOfRemote(url) {
  const match = /github\.com[:/]([\w.-]+)\/([\w.-]+?)(?:\.git)?\/?$/.exec(url.trim())
  return match ? `${match[1]}/${match[2]}` : undefined
}

/** The changelog with a section for `version`: the "Unreleased" notes moved under it, or the one already written. */
export function changelogFor(changelog, version) {
  const unreleased = /^## Unreleased\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(changelog)
  if (unreleased === null) throw new Error('CHANGELOG.md has no "## Unreleased" section')
  const notes = unreleased[1].trim()
  const written = new RegExp(`^## \\[?v?${version.replace(/\./g, '\\.')}\\]?\\s*$`, 'm').test(changelog)
  if (written) {
    if (notes !== '') throw new Error(`CHANGELOG.md has a ${version} section and notes under "Unreleased": move them into one`)
    return changelog
  }
  if (notes === '') throw new Error(`CHANGELOG.md has nothing under "Unreleased" to release as ${version}`)
  return changelog.replace(unreleased[0], `## Unreleased\n\n## ${version}\n\n${notes}\n\n`)
}

function main() {
  const args = process.argv.slice(2)
  const version = args.find(arg => !arg.startsWith('--') && args[args.indexOf(arg) - 1] !== '--repository')
  const flag = name => args.includes(name)
  const git = (...gitArgs) => execFileSync('git', gitArgs, { encoding: 'utf8' }).trim()
  let origin = ''
  try {
    origin = execFileSync('git', ['remote', 'get-url', 'origin'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
  } catch {
    // No origin remote: --repository or GITHUB_REPOSITORY must say it.
  }
  const given = flag('--repository') ? args[args.indexOf('--repository') + 1] : undefined
  const repository = given || process.env['GITHUB_REPOSITORY'] || repositoryOfRemote(origin)
  const read = path => readFileSync(path, 'utf8')
  const tagged = flag('--tagged')
  const problems = releaseProblems({ version, readme: read('README.md'), workflow: read(STATS_WORKFLOW), repository, tagged })
  if (problems.length > 0) {
    console.error(`Refusing to release ${version ?? '(no version)'}:`)
    for (const problem of problems) console.error(`  - ${problem}`)
    console.error('usage: node scripts/release.mjs X.Y.Z [--repository owner/name] [--check [--tagged]] [--push]')
    process.exit(1)
  }
  if (flag('--check')) {
    console.log(`v${version} can be released from ${repository ?? 'this repository'}.`)
    return
  }
  if (git('status', '--porcelain') !== '') {
    console.error('the working tree has changes: commit or stash them first')
    process.exit(1)
  }
  const run = (command, commandArgs) => execFileSync(command, commandArgs, { stdio: 'inherit', shell: process.platform === 'win32' })

  writeFileSync('CHANGELOG.md', changelogFor(read('CHANGELOG.md'), version))
  writeFileSync(STATS_WORKFLOW, fillRepository(read(STATS_WORKFLOW), repository))
  run('npm', ['version', version, '--no-git-tag-version', '--allow-same-version'])
  const versionFile = 'src/version.ts'
  writeFileSync(versionFile, read(versionFile).replace(/ACTION_VERSION = '[^']*'/, `ACTION_VERSION = '${version}'`))
  run('npm', ['run', 'bundle'])
  run('npm', ['test'])

  const major = `v${version.split('.')[0]}`
  git('add', '-A')
  git('commit', '-m', `Release v${version}`)
  git('tag', '-a', `v${version}`, '-m', `v${version}`)
  git('tag', '-f', major, `v${version}^{}`)
  console.log(`Tagged v${version} and moved ${major}.`)
  if (flag('--push')) {
    git('push', 'origin', 'HEAD', `v${version}`)
    git('push', '--force', 'origin', major)
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main()
