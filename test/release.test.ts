/**
 * scripts/release.mjs refuses a release users could not reach with what the documentation
 * says: the README's examples and the reusable workflow must reference the release's major
 * tag, and the reusable workflow must not ship `uses: OWNER/…`.
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { changelogFor, fillRepository, releaseProblems, repositoryOfRemote, STATS_WORKFLOW } from '../scripts/release.mjs'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8')
const README = read('README.md')
/**
 * The reusable workflow as it is before a release fills in the repository (the release
 * commit runs these tests with the repository filled in).
 */
const WORKFLOW = fillRepository(read(STATS_WORKFLOW), 'OWNER/discord-place-bot-stats')
const VERSION = (JSON.parse(read('package.json')) as { version: string }).version

/**
 * Runs the release script's checks only (--check changes nothing) in a directory holding the
 * README and the placeholder reusable workflow, with no git repository or GITHUB_REPOSITORY
 * to take the repository from.
 */
function check(...args: string[]): { status: number | null; out: string } {
  const dir = mkdtempSync(join(tmpdir(), 'release-check-'))
  try {
    writeFileSync(join(dir, 'README.md'), README)
    mkdirSync(join(dir, dirname(STATS_WORKFLOW)), { recursive: true })
    writeFileSync(join(dir, STATS_WORKFLOW), WORKFLOW)
    const env = { ...process.env, GITHUB_REPOSITORY: '', GIT_CEILING_DIRECTORIES: dirname(dir) }
    const result = spawnSync(process.execPath, [join(ROOT, 'scripts/release.mjs'), ...args, '--check'], { cwd: dir, env, encoding: 'utf8' })
    return { status: result.status, out: result.stdout + result.stderr }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

describe('the first release', () => {
  it('is 1.0.0 (and the version stays 1.x), so that the @v1 of every example resolves', () => {
    expect(VERSION).toMatch(/^1\.\d+\.\d+$/)
    expect(read('src/version.ts')).toContain(`ACTION_VERSION = '${VERSION}'`)
  })

  it("is the CHANGELOG's first entry, and the version has a section", () => {
    const sections = [...read('CHANGELOG.md').matchAll(/^## (.+)$/gm)].map(match => match[1])
    expect(sections[0]).toBe('Unreleased')
    expect(sections.at(-1)).toBe('1.0.0')
    expect(sections).toContain(VERSION)
    expect(() => changelogFor(read('CHANGELOG.md'), VERSION)).not.toThrow()
  })

  it('can be cut from this repository as it is (once the repository is known)', () => {
    expect(
      releaseProblems({ version: VERSION, readme: README, workflow: WORKFLOW, repository: 'example/discord-place-bot-stats' })
    ).toEqual([])
  })
})

describe('the major tag the documentation references', () => {
  it('refuses a release whose major tag the README and the reusable workflow do not reference', () => {
    const problems = releaseProblems({ version: '2.0.0', readme: README, workflow: WORKFLOW, repository: 'me/bot' })
    const readmeLines = [...README.matchAll(/discord-place-bot-stats(?:\/\.github\/workflows\/stats\.yml)?@v1/g)].length
    expect(problems.filter(p => p.startsWith('README.md:') && p.includes("does not match the release's major tag v2"))).toHaveLength(
      readmeLines
    )
    expect(problems.some(p => p.startsWith(`${STATS_WORKFLOW}:`) && p.includes('@v1 does not match'))).toBe(true)
  })

  it('refuses one stray reference', () => {
    const readme = `${README}\n    uses: OWNER/discord-place-bot-stats@v0\n`
    expect(releaseProblems({ version: VERSION, readme, workflow: WORKFLOW, repository: 'me/bot' })).toEqual([
      `README.md:${readme.split('\n').length - 1}: OWNER/discord-place-bot-stats@v0 does not match the release's major tag v1`
    ])
    const workflow = WORKFLOW.replace(/(uses: OWNER\/discord-place-bot-stats)@v1/, '$1@v2')
    expect(releaseProblems({ version: VERSION, readme: README, workflow, repository: 'me/bot' })).toEqual([
      expect.stringMatching(/stats\.yml:\d+: OWNER\/discord-place-bot-stats@v2 does not match the release's major tag v1/)
    ])
  })

  it('the script exits 1 and says why, before changing anything', () => {
    const { status, out } = check('2.0.0', '--repository', 'me/bot')
    expect(status).toBe(1)
    expect(out).toContain('Refusing to release 2.0.0')
    expect(out).toMatch(/README\.md:\d+: OWNER\/discord-place-bot-stats@v1 does not match the release's major tag v2/)
  })
})

describe('the repository in the reusable workflow', () => {
  it('refuses to tag while the placeholder is there and the repository is unknown', () => {
    expect(WORKFLOW).toContain('uses: OWNER/discord-place-bot-stats@v1')
    const problems = releaseProblems({ version: VERSION, readme: README, workflow: WORKFLOW, repository: undefined })
    expect(problems).toEqual([expect.stringContaining(`${STATS_WORKFLOW} still says OWNER/`)])
    const { status, out } = check(VERSION)
    expect(status).toBe(1)
    expect(out).toContain('pass --repository owner/name')
  })

  it('fills in the repository it is released from, the step and the commented example', () => {
    const filled = fillRepository(WORKFLOW, 'acme/dp-stats')
    expect(filled).not.toContain('OWNER/')
    expect(filled).toContain('uses: acme/dp-stats/.github/workflows/stats.yml@v1')
    const step = (parse(filled) as { jobs: Record<string, { steps: { id?: string; uses?: string }[] }> }).jobs['stats']!.steps.find(
      s => s.id === 'action'
    )
    expect(step?.uses).toBe('acme/dp-stats@v1')
    // Nothing else changes, and a release from another repository fills in that one.
    expect(filled.replace(/acme\/dp-stats/g, 'OWNER/discord-place-bot-stats')).toBe(WORKFLOW)
    expect(fillRepository(filled, 'fork/other')).toContain('uses: fork/other@v1')
    // Steps of GitHub's own actions are not this action: never rewritten, never checked against the tag.
    const withCheckout = filled.replace('      - id: action', '      - uses: actions/checkout@v6\n      - id: action')
    expect(withCheckout).toContain('uses: actions/checkout@v6')
    expect(fillRepository(withCheckout, 'fork/other')).toContain('uses: actions/checkout@v6')
    expect(releaseProblems({ version: VERSION, readme: README, workflow: withCheckout, repository: undefined })).toEqual([])
    expect(releaseProblems({ version: VERSION, readme: README, workflow: filled, repository: undefined })).toEqual([])
  })

  it('at a tagged commit (the release workflow), refuses the placeholder whatever the repository', () => {
    expect(releaseProblems({ version: VERSION, readme: README, workflow: WORKFLOW, repository: 'acme/dp-stats', tagged: true })).toEqual([
      expect.stringContaining('at the tagged commit')
    ])
    const filled = fillRepository(WORKFLOW, 'acme/dp-stats')
    expect(releaseProblems({ version: VERSION, readme: README, workflow: filled, repository: 'acme/dp-stats', tagged: true })).toEqual([])
    // A fork that tags without the script would publish a workflow running another repository's action.
    expect(releaseProblems({ version: VERSION, readme: README, workflow: filled, repository: 'fork/dp-stats', tagged: true })).toEqual([
      expect.stringContaining('acme/dp-stats is not fork/dp-stats'),
      expect.stringContaining('acme/dp-stats is not fork/dp-stats')
    ])
    const { status, out } = check(VERSION, '--repository', 'acme/dp-stats', '--tagged')
    expect(status).toBe(1)
    expect(out).toContain('at the tagged commit')
  })

  it('reads the repository from a GitHub remote', () => {
    expect(repositoryOfRemote('https://github.com/acme/dp-stats.git')).toBe('acme/dp-stats')
    expect(repositoryOfRemote('git@github.com:acme/dp-stats.git')).toBe('acme/dp-stats')
    expect(repositoryOfRemote('https://github.com/acme/dp-stats')).toBe('acme/dp-stats')
    expect(repositoryOfRemote('/srv/git/dp-stats.git')).toBeUndefined()
  })

  it('the script passes with the repository given', () => {
    const { status, out } = check(VERSION, '--repository', 'acme/dp-stats')
    expect(out).toContain(`v${VERSION} can be released from acme/dp-stats.`)
    expect(status).toBe(0)
  })
})

describe('the changelog section', () => {
  const base = '# Changelog\n\n## Unreleased\n\n- A fix.\n\n## 1.0.0\n\nFirst release.\n'

  it('moves the Unreleased notes under the new version', () => {
    expect(changelogFor(base, '1.0.1')).toBe('# Changelog\n\n## Unreleased\n\n## 1.0.1\n\n- A fix.\n\n## 1.0.0\n\nFirst release.\n')
  })

  it('keeps a section already written, and refuses notes in two places or none', () => {
    const written = '# Changelog\n\n## Unreleased\n\n## 1.0.0\n\nFirst release.\n'
    expect(changelogFor(written, '1.0.0')).toBe(written)
    expect(() => changelogFor(base, '1.0.0')).toThrow(/move them into one/)
    expect(() => changelogFor(written, '1.0.1')).toThrow(/nothing under "Unreleased"/)
  })
})
