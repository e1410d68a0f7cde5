/**
 * action.yml against the rules GitHub Marketplace applies when a release is listed, at the
 * release's tag, after the tag is pushed (a fix then takes another release): so they are checked
 * here, by the release workflow and by scripts/release.mjs before anything is tagged. The rules
 * (GitHub's metadata syntax and the release form): a `name`; a `description` of fewer than 125
 * characters as YAML folds it; a `branding.icon` and `branding.color` from GitHub's lists;
 * action.yml (not also action.yaml) at the root, with a README.md. The name's uniqueness is the
 * form's to check.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { MARKETPLACE_TEST } from '../../scripts/release.mjs'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const source = (path: string): string => readFileSync(join(ROOT, path), 'utf8')

/** The form refuses a description of this many characters or more. */
const DESCRIPTION_LIMIT = 125
/**
 * GitHub documents no limit for the name (the listing's title): the project holds it under the
 * description's, a bound of its own.
 */
const NAME_LIMIT = 124

/**
 * `branding.icon` and `branding.color`: the values GitHub's own parser allows (its schema for
 * action.yml). They are a subset of the documented lists (257 Feather icons, nine colors: the
 * parser leaves out one icon and `black`), so what passes here passes the form.
 */
const schema = JSON.parse(
  source('node_modules/@actions/workflow-parser/dist/action-v1.0.min.json')
) as {
  definitions: Record<string, { 'allowed-values': string[] }>
}
const BRANDING_ICONS = schema.definitions['branding-icon']!['allowed-values']
const BRANDING_COLORS = schema.definitions['branding-color']!['allowed-values']

/** Characters as the form counts them: code points, not UTF-16 units. */
const length = (text: string): number => [...text].length

interface ActionMetadata {
  name?: unknown
  description?: unknown
  branding?: { icon?: unknown; color?: unknown }
}

/**
 * What the Marketplace would refuse in parsed action.yml metadata, one line each; empty when
 * nothing.
 */
function marketplaceProblems({ name, description, branding }: ActionMetadata): string[] {
  const problems: string[] = []
  if (typeof name !== 'string' || name.trim() === '') problems.push('name: missing')
  else if (/[\r\n]/.test(name)) problems.push('name: more than one line')
  else if (length(name) > NAME_LIMIT)
    problems.push(`name: ${length(name)} characters, over ${NAME_LIMIT}`)
  if (typeof description !== 'string' || description.trim() === '')
    problems.push('description: missing')
  else if (length(description) >= DESCRIPTION_LIMIT)
    problems.push(
      `description: ${length(description)} characters once folded; the Marketplace needs fewer than ${DESCRIPTION_LIMIT}`
    )
  if (typeof branding?.icon !== 'string' || !BRANDING_ICONS.includes(branding.icon))
    problems.push(
      `branding.icon: ${JSON.stringify(branding?.icon)} is not one of GitHub's Feather icons for actions`
    )
  if (typeof branding?.color !== 'string' || !BRANDING_COLORS.includes(branding.color))
    problems.push(
      `branding.color: ${JSON.stringify(branding?.color)} is not one of ${BRANDING_COLORS.join(', ')}`
    )
  return problems
}

describe('action.yml meets the Marketplace rules', () => {
  const action = parse(source('action.yml')) as ActionMetadata

  it('has a name, a description under 125 characters once folded, a listed icon and color', () => {
    expect(marketplaceProblems(action)).toEqual([])
  })

  it('is the one metadata file at the root, next to a README, its description one line that says what the action does', () => {
    expect(existsSync(join(ROOT, 'action.yaml')), 'action.yaml beside action.yml').toBe(false)
    expect(existsSync(join(ROOT, 'README.md'))).toBe(true)
    expect(action.description).not.toMatch(/[\r\n]/)
    for (const words of [/command and server counts/, /discord\.place/, /6-hour rule/, /vote/])
      expect(action.description).toMatch(words)
  })
})

describe('the rules themselves', () => {
  const valid: ActionMetadata = {
    name: 'An action',
    description: 'Does one thing.',
    branding: { icon: 'bar-chart-2', color: 'purple' }
  }

  it('refuse the 149-character description the Marketplace refused, and 125 exactly (folded from two lines), but not 124', () => {
    const before =
      "Update a Discord bot's command and server counts on discord.place, safely within the service's 6-hour rule, or " +
      'check whether users voted for the bot.'
    expect(marketplaceProblems({ ...valid, description: before })).toEqual([
      'description: 149 characters once folded; the Marketplace needs fewer than 125'
    ])
    // Two lines of 62 in the file, 125 characters once YAML folds the line break into a space.
    const folded = parse(
      `description: >-\n  ${'x'.repeat(62)}\n  ${'y'.repeat(62)}\n`
    ) as ActionMetadata
    expect(marketplaceProblems({ ...valid, description: folded.description })).toEqual([
      'description: 125 characters once folded; the Marketplace needs fewer than 125'
    ])
    expect(
      marketplaceProblems({ ...valid, description: '📊'.repeat(124) }),
      'code points, not UTF-16 units'
    ).toEqual([])
  })

  it.each<[string, ActionMetadata]>([
    ['a missing name', { name: undefined }],
    ['a name of two lines', { name: 'An\naction' }],
    ['a name over the bound', { name: 'n'.repeat(NAME_LIMIT + 1) }],
    ['a blank description', { description: ' ' }],
    ...['key', 'github', 'bar-chart-3', undefined].map(
      icon =>
        [`the icon ${icon}`, { branding: { icon, color: 'purple' } }] as [string, ActionMetadata]
    ),
    ...['pink', 'gray', 'Purple'].map(
      color =>
        [`the color ${color}`, { branding: { icon: 'zap', color } }] as [string, ActionMetadata]
    )
  ])('refuse %s', (_, change) => {
    expect(marketplaceProblems({ ...valid, ...change })).toHaveLength(1)
  })
})

describe('a release runs these rules before it is tagged or published', () => {
  interface Job {
    needs?: string | string[]
    steps?: { run?: string }[]
  }
  const jobs = Object.entries(
    (parse(source('.github/workflows/release.yml')) as { jobs: Record<string, Job> }).jobs
  )
  /** The job and the index of each step whose `run` matches. */
  const locate = (run: RegExp): [string, number][] =>
    jobs.flatMap(([id, job]) =>
      (job.steps ?? []).flatMap((step, i) =>
        run.test(step.run ?? '') ? [[id, i] as [string, number]] : []
      )
    )
  /**
   * Whether step `a` runs before step `b`: earlier in the same job, or in a job that `b`'s job
   * needs.
   */
  const before = ([jobA, a]: [string, number], [jobB, b]: [string, number]): boolean =>
    jobA === jobB
      ? a < b
      : [jobs.find(([id]) => id === jobB)?.[1].needs ?? []].flat().includes(jobA)

  // The major tag moves in release.yml, if at all, only after the rules (major-tag.yml moves it
  // once a release is published).
  it('the release workflow, before it creates the release or moves the major tag', () => {
    expect(MARKETPLACE_TEST).toBe('test/repo/marketplace.test.ts')
    const [rules] = locate(
      new RegExp(`^\\s*npx vitest run ${MARKETPLACE_TEST.replaceAll('.', '\\.')}\\s*$`)
    )
    expect(rules, 'a step runs this test').toBeDefined()
    const creates = locate(/gh release create/)
    expect(creates).not.toEqual([])
    for (const later of [...creates, ...locate(/git\/refs/)]) {
      expect(before(rules!, later), `the rules before ${later.join(' step ')}`).toBe(true)
      expect(before(later, rules!)).toBe(false)
    }
  })

  it('scripts/release.mjs, before it changes or tags anything', () => {
    const script = source('scripts/release.mjs')
    const rules = script.indexOf("'run', MARKETPLACE_TEST]")
    expect(rules).toBeGreaterThan(0)
    for (const later of ["writeFileSync('CHANGELOG.md'", "git('tag'"])
      expect(rules, later).toBeLessThan(script.indexOf(later))
  })
})
