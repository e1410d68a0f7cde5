/**
 * scripts/release.mjs refuses a release users could not reach with what the documentation
 * says: every `uses:` of the action or its reusable workflow, in the README, docs/ and the
 * reusable workflow, names the home (package.json `repository`) at the release's major tag,
 * and the release is made from the home.
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import {
  changelogFor,
  documentedFiles,
  homeOf,
  releaseProblems,
  repositoryOfRemote,
  STATS_WORKFLOW
} from '../../scripts/release.mjs'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8')
const PACKAGE = JSON.parse(read('package.json')) as { version: string; repository: { url: string } }
const VERSION = PACKAGE.version
const HOME = homeOf(PACKAGE)!
const FILES = Object.fromEntries(documentedFiles(ROOT).map(path => [path, read(path)]))

/**
 * Runs the release script's checks only (--check changes nothing) in a directory holding
 * package.json and the documented files, with no git repository or GITHUB_REPOSITORY to take
 * the repository from.
 */
function check(...args: string[]): { status: number | null; out: string } {
  const dir = mkdtempSync(join(tmpdir(), 'release-check-'))
  try {
    for (const [path, text] of Object.entries({ ...FILES, 'package.json': read('package.json') })) {
      mkdirSync(join(dir, dirname(path)), { recursive: true })
      writeFileSync(join(dir, path), text)
    }
    const env = { ...process.env, GITHUB_REPOSITORY: '', GIT_CEILING_DIRECTORIES: dirname(dir) }
    const result = spawnSync(
      process.execPath,
      [join(ROOT, 'scripts/release.mjs'), ...args, '--check'],
      { cwd: dir, env, encoding: 'utf8' }
    )
    return { status: result.status, out: result.stdout + result.stderr }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

describe('the home', () => {
  it("is package.json's repository, on GitHub", () => {
    expect(HOME).toBe('discord-place-bot-stats/discord-place-bot-stats')
    expect(homeOf({ repository: 'https://github.com/acme/dp-stats' })).toBe('acme/dp-stats')
    expect(homeOf({ repository: { url: 'git+https://github.com/acme/dp-stats.git' } })).toBe(
      'acme/dp-stats'
    )
    expect(homeOf({})).toBeUndefined()
  })

  it('is what every documented `uses:` names, in the README, docs/ and the reusable workflow', () => {
    expect(Object.keys(FILES)).toEqual(expect.arrayContaining(['README.md', STATS_WORKFLOW]))
    expect(
      releaseProblems({ version: VERSION, files: FILES, home: HOME, repository: HOME })
    ).toEqual([])
    expect(FILES[STATS_WORKFLOW]).toContain(`uses: ${HOME}@v`)
  })
})

describe('the first release', () => {
  it('is 1.x, so that the @v1 of every example resolves', () => {
    expect(VERSION).toMatch(/^1\.\d+\.\d+$/)
  })

  it("is the CHANGELOG's first entry, and the version has a section", () => {
    const sections = [...read('CHANGELOG.md').matchAll(/^## (.+)$/gm)].map(match => match[1])
    expect(sections[0]).toBe('Unreleased')
    expect(sections.at(-1)).toBe('1.0.0')
    expect(sections).toContain(VERSION)
  })
})

describe('what the release refuses', () => {
  it('a major tag the documentation does not reference', () => {
    const problems = releaseProblems({
      version: '2.0.0',
      files: FILES,
      home: HOME,
      repository: HOME
    })
    expect(problems.length).toBeGreaterThan(0)
    expect(
      problems.every(problem => problem.includes("does not match the release's major tag v2"))
    ).toBe(true)
  })

  it('one stray reference: another major, another owner, or the old placeholder', () => {
    const readme = (extra: string): Record<string, string> => ({
      ...FILES,
      'README.md': `${FILES['README.md']}\n${extra}\n`
    })
    const line = FILES['README.md']!.split('\n').length + 1
    expect(
      releaseProblems({
        version: VERSION,
        files: readme(`    uses: ${HOME}@v0`),
        home: HOME,
        repository: HOME
      })
    ).toEqual([`README.md:${line}: ${HOME}@v0 does not match the release's major tag v1`])
    expect(
      releaseProblems({
        version: VERSION,
        files: readme('    uses: someone/discord-place-bot-stats@v1'),
        home: HOME,
        repository: HOME
      })
    ).toEqual([expect.stringContaining('someone/discord-place-bot-stats@v1 does not name')])
    expect(
      releaseProblems({
        version: VERSION,
        files: readme('    uses: OWNER/anything@v1'),
        home: HOME,
        repository: HOME
      })
    ).toEqual([expect.stringContaining('OWNER/anything@v1 does not name')])
    // A commit SHA (pinning) is fine; GitHub's own actions are not this action.
    const pinned = readme(`    uses: ${HOME}@${'a'.repeat(40)}\n    uses: actions/checkout@v7`)
    expect(
      releaseProblems({ version: VERSION, files: pinned, home: HOME, repository: HOME })
    ).toEqual([])
  })

  it('a release made from another repository (a fork), or from an unknown one', () => {
    expect(
      releaseProblems({
        version: VERSION,
        files: FILES,
        home: HOME,
        repository: 'fork/discord-place-bot-stats'
      })
    ).toEqual([
      `this release is made from fork/discord-place-bot-stats, not from ${HOME}, the home every example names: release from ${HOME}`
    ])
    expect(
      releaseProblems({ version: VERSION, files: FILES, home: HOME, repository: undefined })
    ).toEqual([expect.stringContaining('pass --repository owner/name')])
  })

  it('the script exits 1 and says why, before changing anything; it passes from the home', () => {
    const refused = check('2.0.0', '--repository', HOME)
    expect(refused.status).toBe(1)
    expect(refused.out).toContain('Refusing to release 2.0.0')
    expect(refused.out).toMatch(/README\.md:\d+: .*@v1 does not match the release's major tag v2/)
    expect(check(VERSION).out).toContain('pass --repository owner/name')
    const passed = check(VERSION, '--repository', HOME)
    expect(passed.out).toContain(`v${VERSION} can be released from ${HOME}.`)
    expect(passed.status).toBe(0)
  })

  it('reads the repository from a GitHub remote', () => {
    expect(repositoryOfRemote('https://github.com/acme/dp-stats.git')).toBe('acme/dp-stats')
    expect(repositoryOfRemote('git@github.com:acme/dp-stats.git')).toBe('acme/dp-stats')
    expect(repositoryOfRemote('https://github.com/acme/dp-stats')).toBe('acme/dp-stats')
    expect(repositoryOfRemote('/srv/git/dp-stats.git')).toBeUndefined()
  })
})

describe('the changelog section', () => {
  const base = '# Changelog\n\n## Unreleased\n\n- A fix.\n\n## 1.0.0\n\nFirst release.\n'

  it('moves the Unreleased notes under the new version', () => {
    expect(changelogFor(base, '1.0.1')).toBe(
      '# Changelog\n\n## Unreleased\n\n## 1.0.1\n\n- A fix.\n\n## 1.0.0\n\nFirst release.\n'
    )
  })

  it('keeps a section already written, and refuses notes in two places or none', () => {
    const written = '# Changelog\n\n## Unreleased\n\n## 1.0.0\n\nFirst release.\n'
    expect(changelogFor(written, '1.0.0')).toBe(written)
    expect(() => changelogFor(base, '1.0.0')).toThrow(/move them into one/)
    expect(() => changelogFor(written, '1.0.1')).toThrow(/nothing under "Unreleased"/)
  })
})
