/**
 * action.yml against the rules GitHub Marketplace applies when a release is listed. The
 * Marketplace reads action.yml at the release's tag and refuses it there, after the tag is
 * pushed: a fix then takes another release. So the rules are checked here (npm test), by the
 * release workflow before it moves the major tag and publishes, and by scripts/release.mjs
 * before it changes or tags anything.
 *
 * The rules (https://docs.github.com/en/actions/reference/workflows-and-actions/metadata-syntax
 * and the Marketplace's release form): a `name`; a `description` of fewer than 125 characters
 * as YAML folds it (the form says "Description must be less than 125 characters"); a
 * `branding.icon` from GitHub's list of Feather v4.28.0 icons, below, and a `branding.color`
 * from its nine colors; action.yml (or action.yaml, not both) at the root, with a README.md.
 * That the name is unique on GitHub is checked only by the form.
 */
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { MARKETPLACE_TEST } from '../../scripts/release.mjs'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const source = (path: string): string => readFileSync(join(ROOT, path), 'utf8')

/** The form refuses a description of this many characters or more. */
const DESCRIPTION_LIMIT = 125
/**
 * GitHub documents no length limit for the name (only that it is unique on GitHub and not a
 * Marketplace category); the listing shows it as the title. The project holds it under the
 * description's limit, a bound of its own.
 */
const NAME_LIMIT = 124

/** `branding.color`: the documented values. */
const BRANDING_COLORS = ['white', 'black', 'yellow', 'blue', 'green', 'orange', 'red', 'purple', 'gray-dark']

/** The Feather icons GitHub leaves out of actions branding (brand icons are left out too). */
const OMITTED_ICONS = [
  'coffee',
  'columns',
  'divide-circle',
  'divide-square',
  'divide',
  'frown',
  'hexagon',
  'key',
  'meh',
  'mouse-pointer',
  'smile',
  'tool',
  'x-octagon'
]

/** `branding.icon`: GitHub's "exhaustive list of all currently supported icons", in its order. */
const BRANDING_ICONS = `
activity airplay alert-circle alert-octagon alert-triangle align-center align-justify align-left align-right anchor aperture
archive arrow-down-circle arrow-down-left arrow-down-right arrow-down arrow-left-circle arrow-left arrow-right-circle
arrow-right arrow-up-circle arrow-up-left arrow-up-right arrow-up at-sign award bar-chart-2 bar-chart battery-charging
battery bell-off bell bluetooth bold book-open book bookmark box briefcase calendar camera-off camera cast check-circle
check-square check chevron-down chevron-left chevron-right chevron-up chevrons-down chevrons-left chevrons-right
chevrons-up circle clipboard clock cloud-drizzle cloud-lightning cloud-off cloud-rain cloud-snow cloud code command
compass copy corner-down-left corner-down-right corner-left-down corner-left-up corner-right-down corner-right-up
corner-up-left corner-up-right cpu credit-card crop crosshair database delete disc dollar-sign download-cloud download
droplet edit-2 edit-3 edit external-link eye-off eye fast-forward feather file-minus file-plus file-text file film filter
flag folder-minus folder-plus folder gift git-branch git-commit git-merge git-pull-request globe grid hard-drive hash
headphones heart help-circle home image inbox info italic layers layout life-buoy link-2 link list loader lock log-in
log-out mail map-pin map maximize-2 maximize menu message-circle message-square mic-off mic minimize-2 minimize
minus-circle minus-square minus monitor moon more-horizontal more-vertical move music navigation-2 navigation octagon
package paperclip pause-circle pause percent phone-call phone-forwarded phone-incoming phone-missed phone-off
phone-outgoing phone pie-chart play-circle play plus-circle plus-square plus pocket power printer radio refresh-ccw
refresh-cw repeat rewind rotate-ccw rotate-cw rss save scissors search send server settings share-2 share shield-off
shield shopping-bag shopping-cart shuffle sidebar skip-back skip-forward slash sliders smartphone speaker square star
stop-circle sun sunrise sunset table tablet tag target terminal thermometer thumbs-down thumbs-up toggle-left
toggle-right trash-2 trash trending-down trending-up triangle truck tv type umbrella underline unlock upload-cloud upload
user-check user-minus user-plus user-x user users video-off video voicemail volume-1 volume-2 volume-x volume watch
wifi-off wifi wind x-circle x-square x zap-off zap zoom-in zoom-out
`
  .trim()
  .split(/\s+/)

/** Characters as the form counts them: code points, not UTF-16 units. */
const length = (text: string): number => [...text].length

interface ActionMetadata {
  name?: unknown
  description?: unknown
  branding?: { icon?: unknown; color?: unknown }
}

/** What the Marketplace would refuse in parsed action.yml metadata, one line each; empty when nothing. */
function marketplaceProblems(action: ActionMetadata): string[] {
  const problems: string[] = []
  const { name, description, branding } = action
  if (typeof name !== 'string' || name.trim() === '') problems.push('name: missing')
  else if (/[\r\n]/.test(name)) problems.push('name: more than one line')
  else if (length(name) > NAME_LIMIT) problems.push(`name: ${length(name)} characters, over ${NAME_LIMIT}`)
  if (typeof description !== 'string' || description.trim() === '') problems.push('description: missing')
  else if (length(description) >= DESCRIPTION_LIMIT)
    problems.push(`description: ${length(description)} characters once folded; the Marketplace needs fewer than ${DESCRIPTION_LIMIT}`)
  if (typeof branding?.icon !== 'string' || !BRANDING_ICONS.includes(branding.icon))
    problems.push(`branding.icon: ${JSON.stringify(branding?.icon)} is not one of GitHub's Feather icons for actions`)
  if (typeof branding?.color !== 'string' || !BRANDING_COLORS.includes(branding.color))
    problems.push(`branding.color: ${JSON.stringify(branding?.color)} is not one of ${BRANDING_COLORS.join(', ')}`)
  return problems
}

describe('action.yml meets the Marketplace rules', () => {
  const action = parse(source('action.yml')) as ActionMetadata

  it('has a name, a description under 125 characters once folded, a listed icon and color', () => {
    expect(marketplaceProblems(action)).toEqual([])
  })

  it('is the one metadata file at the root, next to a README', () => {
    expect(existsSync(join(ROOT, 'action.yaml')), 'action.yaml beside action.yml').toBe(false)
    expect(existsSync(join(ROOT, 'README.md'))).toBe(true)
  })

  it('keeps the description one folded line that still says what the action does', () => {
    const description = action.description as string
    expect(description).not.toMatch(/[\r\n]/)
    expect(description).toMatch(/command and server counts/)
    expect(description).toMatch(/discord\.place/)
    expect(description).toMatch(/6-hour rule/)
    expect(description).toMatch(/vote/)
  })

  it("chooses an icon and a color that GitHub's parser accepts too", () => {
    // @actions/workflow-parser's schema for action.yml: GitHub's own list, a second source.
    const schema = JSON.parse(source('node_modules/@actions/workflow-parser/dist/action-v1.0.min.json')) as {
      definitions: Record<string, { 'allowed-values'?: string[] }>
    }
    const icons = schema.definitions['branding-icon']?.['allowed-values'] ?? []
    const colors = schema.definitions['branding-color']?.['allowed-values'] ?? []
    expect(icons).toContain(action.branding?.icon)
    expect(colors).toContain(action.branding?.color)
    // Every value the parser allows is in the documented lists above (a typo there would show).
    expect(icons.filter(icon => !BRANDING_ICONS.includes(icon))).toEqual([])
    expect(colors.filter(color => !BRANDING_COLORS.includes(color))).toEqual([])
  })
})

describe('the rules themselves', () => {
  const valid: ActionMetadata = { name: 'An action', description: 'Does one thing.', branding: { icon: 'bar-chart-2', color: 'purple' } }

  it('refuse the 149-character description the Marketplace refused, and 125 exactly, but not 124', () => {
    const before =
      "Update a Discord bot's command and server counts on discord.place, safely within the service's 6-hour rule, or " +
      'check whether users voted for the bot.'
    expect(length(before)).toBe(149)
    expect(marketplaceProblems({ ...valid, description: before })).toEqual([
      'description: 149 characters once folded; the Marketplace needs fewer than 125'
    ])
    expect(marketplaceProblems({ ...valid, description: 'x'.repeat(125) })).toHaveLength(1)
    expect(marketplaceProblems({ ...valid, description: 'x'.repeat(124) })).toEqual([])
  })

  it('count the description as YAML folds it, line breaks as spaces', () => {
    // Two lines of 62 in the file, 125 characters once folded: refused.
    const folded = parse(`description: >-\n  ${'x'.repeat(62)}\n  ${'y'.repeat(62)}\n`) as ActionMetadata
    expect(folded.description).toBe(`${'x'.repeat(62)} ${'y'.repeat(62)}`)
    expect(marketplaceProblems({ ...valid, description: folded.description })).toEqual([
      'description: 125 characters once folded; the Marketplace needs fewer than 125'
    ])
  })

  it('refuse a missing name or description, an omitted or unknown icon, and an unknown color', () => {
    expect(marketplaceProblems({ ...valid, name: undefined })).toEqual(['name: missing'])
    expect(marketplaceProblems({ ...valid, description: ' ' })).toEqual(['description: missing'])
    expect(marketplaceProblems({ ...valid, name: 'n'.repeat(NAME_LIMIT + 1) })).toHaveLength(1)
    for (const icon of ['key', 'github', 'bar-chart-3', undefined])
      expect(marketplaceProblems({ ...valid, branding: { icon, color: 'purple' } }), String(icon)).toHaveLength(1)
    for (const color of ['pink', 'gray', 'Purple'])
      expect(marketplaceProblems({ ...valid, branding: { icon: 'zap', color } }), color).toHaveLength(1)
  })

  it('embed GitHub lists as documented: 257 icons, none of the 13 omitted, and 9 colors', () => {
    expect(BRANDING_ICONS).toHaveLength(257)
    expect(new Set(BRANDING_ICONS).size).toBe(BRANDING_ICONS.length)
    expect(BRANDING_ICONS.filter(icon => OMITTED_ICONS.includes(icon))).toEqual([])
    expect(BRANDING_ICONS).toContain('bar-chart-2')
    expect(BRANDING_COLORS).toHaveLength(9)
  })
})

describe('a release runs these rules before it is tagged or published', () => {
  interface Step {
    uses?: string
    run?: string
  }
  interface Job {
    needs?: string | string[]
    steps?: Step[]
  }
  const jobs = Object.entries((parse(source('.github/workflows/release.yml')) as { jobs: Record<string, Job> }).jobs)
  /** The job and the index of the first step that `find` matches. */
  const locate = (find: (step: Step) => boolean, what: string): [string, number] => {
    for (const [id, job] of jobs) {
      const i = (job.steps ?? []).findIndex(find)
      if (i >= 0) return [id, i]
    }
    throw new Error(`release.yml has no step that ${what}`)
  }
  /** Whether step `a` runs before step `b`: earlier in the same job, or in a job that `b`'s job needs. */
  const before = ([jobA, a]: [string, number], [jobB, b]: [string, number]): boolean => {
    if (jobA === jobB) return a < b
    const needs = jobs.find(([id]) => id === jobB)?.[1].needs
    return [needs ?? []].flat().includes(jobA)
  }

  it('the release workflow, before it moves the major tag and creates the release', () => {
    expect(MARKETPLACE_TEST).toBe('test/repo/marketplace.test.ts')
    const rules = locate(step => step.run?.trim() === `npx vitest run ${MARKETPLACE_TEST}`, 'runs this test')
    const moves = locate(step => /git\/refs/.test(step.run ?? ''), 'moves the major tag')
    const publishes = locate(step => /gh release create/.test(step.run ?? ''), 'creates the release')
    expect(before(rules, moves), 'the rules before the major tag moves').toBe(true)
    expect(before(rules, publishes), 'the rules before the release is created').toBe(true)
    expect(before(moves, rules)).toBe(false)
  })

  it('scripts/release.mjs, before it changes or tags anything', () => {
    const script = source('scripts/release.mjs')
    const rules = script.indexOf("'run', MARKETPLACE_TEST]")
    expect(rules).toBeGreaterThan(0)
    for (const later of ["writeFileSync('CHANGELOG.md'", "git('tag'"]) expect(rules, later).toBeLessThan(script.indexOf(later))
  })
})
