/**
 * The job summary through a real GitHub-flavoured Markdown renderer (micromark with its GFM
 * extension, HTML allowed as GitHub allows it in a summary): the structure a reader sees (the
 * headline as a heading, the tables, the folded details, code), and text from the service or
 * a listing shown as text, never as Markdown, links or HTML.
 */
import { micromark } from 'micromark'
import { gfm, gfmHtml } from 'micromark-extension-gfm'
import { describe, expect, it } from 'vitest'
import { ActionError } from '../../src/errors.js'
import type { StatsSettings, VoteSettings } from '../../src/settings.js'
import { renderSummary as renderStats } from '../../src/stats/report.js'
import type { StatsOutcome } from '../../src/stats/outcome.js'
import { htmlLink } from '../../src/text.js'
import { renderSummary as renderVotes } from '../../src/votes/report.js'
import type { ServiceEmulator } from '../../scripts/emulator/service.js'
import {
  BOT,
  emulatedBot,
  HOUR,
  KEY,
  settingsFor,
  statsRun,
  TestClock,
  votesRun
} from '../support/inprocess.js'

const AT = new Date('2026-11-24T12:00:00Z')
/** Markdown, HTML and bare addresses, with blank lines that would end an HTML block. */
const HOSTILE =
  '<script>alert(1)</script>\n\n# Heading\n\n*x* [link](http://evil.example) www.evil.example\n\n| a | b |'

const render = (section: string): string =>
  micromark(section, { allowDangerousHtml: true, extensions: [gfm()], htmlExtensions: [gfmHtml()] })

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', quot: '"', '#39': "'", amp: '&' }
/** What a reader sees of some HTML: tags dropped, entities decoded. */
const textOf = (fragment: string): string =>
  fragment
    .replace(/<[^>]*>/g, '')
    .replace(/&(lt|gt|quot|#39|amp);/g, (_, name: string) => ENTITIES[name]!)

const headings = (page: string): string[] =>
  [...page.matchAll(/<h3>([\s\S]*?)<\/h3>/g)].map(match => match[1]!)

/** Every table of the page, as rows of cells' inner HTML (header cells included). */
function tablesOf(page: string): string[][][] {
  return [...page.matchAll(/<table>([\s\S]*?)<\/table>/g)].map(([, table]) =>
    [...table!.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map(([, row]) =>
      [...row!.matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map(([, c]) => c!)
    )
  )
}

const links = (fragment: string): string[] =>
  [...fragment.matchAll(/<a\s[^>]*href="([^"]*)"/g)].map(match => match[1]!)

/**
 * The test's bot, last updated `ago` before the clock's now, with a user who voted an hour before
 * it.
 */
function emulator(clock: TestClock, ago: number): Promise<ServiceEmulator> {
  return emulatedBot(clock, {
    ago,
    seed: { voters: { '234567890123456789': { vote: 3, lastVote: new Date(clock.now() - HOUR) } } }
  })
}

/**
 * A stats run against the emulator, rendered as if against the live service (so that the bot is
 * linked).
 */
async function statsPage(
  ago: number,
  more: Record<string, string> = {}
): Promise<{ section: string; outcome: StatsOutcome }> {
  const clock = new TestClock(AT.getTime())
  const service = await emulator(clock, ago)
  const given = {
    'bot-id': BOT,
    'api-key': KEY,
    'command-count': '14',
    'server-count': '1250',
    ...more
  }
  const { outcome } = await statsRun({ ...given, 'base-url': service.url }, { clock })
  return { section: renderStats(settingsFor<StatsSettings>(given), outcome), outcome }
}

describe('the stats summary, rendered', () => {
  it('an update: the headline as a heading with the linked name, the counts table, the details folded with code', async () => {
    const { section, outcome } = await statsPage(7 * HOUR)
    expect(outcome.result).toBe('updated')
    const page = render(section)
    // One HTML block: Markdown reinterprets nothing in it.
    expect(page.trim()).toBe(section.trim())

    const [headline] = headings(page)
    expect(headings(page)).toHaveLength(1)
    expect(textOf(headline!)).toMatch(/^✅ Example Bot: updated, next update from /)
    expect(links(headline!)).toEqual([`https://discord.place/bots/${BOT}`])

    const [counts, facts] = tablesOf(page)
    expect(counts!.map(row => row.map(textOf))).toEqual([
      ['Count', 'Listed before', 'Now', 'Source'],
      ['Commands', '12', '14 (+2)', 'input command-count'],
      ['Servers', '1,204', '1,250 (+46)', 'input server-count']
    ])

    const details = /<details><summary>Request and answer<\/summary>([\s\S]*?)<\/details>/.exec(
      page
    )?.[1]
    expect(details).toBeDefined()
    expect(details).toContain('<table>')
    expect(facts!.map(row => textOf(row[0]!))).toEqual([
      'Service',
      'Record read',
      'Request',
      'Answer'
    ])
    expect(details).toContain(
      `<code>PATCH /bots/${BOT}/stats {&quot;command_count&quot;:14,&quot;server_count&quot;:1250}</code>`
    )
    expect(links(details!)).toEqual(['https://api.discord.place'])
    expect(page).not.toContain(KEY)
  })

  it('a skip: "not sent: too soon", "Would be" and no change, nothing sent in the details', async () => {
    const { section } = await statsPage(2 * HOUR)
    const page = render(section)
    expect(page.trim()).toBe(section.trim())
    expect(textOf(headings(page)[0]!)).toMatch(/^⏭️ Example Bot: not sent: too soon, /)
    expect(tablesOf(page)[0]![0]!.map(textOf)).toEqual([
      'Count',
      'Listed before',
      'Would be sent',
      'Source'
    ])
    expect(textOf(page)).not.toMatch(/\(\+\d/)
    expect(textOf(page)).toContain(
      `not sent (once an update is due, it would be PATCH /bots/${BOT}/stats`
    )
    expect(textOf(page)).toContain('Key checkthe key is valid')
  })

  it('an error: a visible paragraph, its `code` spans as code', async () => {
    const { section, outcome } = await statsPage(7 * HOUR, { 'server-count': '9999' })
    expect(outcome.result).toBe('failed')
    const page = render(section)
    const error = /<p>❌ <strong>Error:<\/strong>([\s\S]*?)<\/p>/.exec(page)?.[1]
    expect(error).toBeDefined()
    expect(textOf(error!)).toMatch(
      /^ Stats update failed: the service answered 400 with "The server count provided \(9999\) is too far off/
    )
    expect(page.indexOf('<p>❌')).toBeLessThan(page.indexOf('<details>'))
    const coded = render(
      renderStats(
        settingsFor<StatsSettings>({ 'bot-id': BOT, 'command-count': '1', 'dry-run': 'true' }),
        {
          ...outcome,
          error: new ActionError('Set `command-count` or `server-count`.')
        }
      )
    )
    expect(coded).toContain('Set <code>command-count</code> or <code>server-count</code>.')
  })
})

it('the vote-check summary: the headline as a heading, one row per user, IDs as code; an error a visible paragraph, escaped', async () => {
  const clock = new TestClock(AT.getTime())
  const service = await emulator(clock, 7 * HOUR)
  const users = ['234567890123456789', '345678901234567890']
  const given = { 'bot-id': BOT, 'api-key': KEY, 'user-id': users.join(', ') }
  const settings = settingsFor<VoteSettings>({ mode: 'vote-check', ...given })
  const { outcome } = await votesRun({ ...given, 'base-url': service.url }, { clock })
  const section = renderVotes(settings, { ...outcome, at: AT })
  const page = render(section)
  expect(page.trim()).toBe(section.trim())
  expect(headings(page).map(textOf)).toEqual([
    `⭕ Vote check for Bot ${BOT}: 1 of 2 users have not voted in the last 24 hours`
  ])
  expect(links(headings(page)[0]!)).toEqual([`https://discord.place/bots/${BOT}`])
  const [table] = tablesOf(page)
  expect(table!.map(row => row.map(textOf))).toEqual([
    ['User', 'Voted in the last 24 hours', 'Votes', 'Last vote'],
    [users[0], 'yes', '3', '11:00 UTC, 1 h before this run'],
    [users[1], 'no', '0', '']
  ])
  expect(table![1]![0]).toBe(`<code>${users[0]}</code>`)

  const error = new ActionError(`Vote check failed: the service answered 500 with "${HOSTILE}".`)
  const failed = render(
    renderVotes(settings, {
      ...outcome,
      result: 'failed',
      status: 500,
      votes: new Map(),
      unchecked: users,
      error
    })
  )
  expect(failed).toMatch(/<p>❌ <strong>Error:<\/strong> Vote check failed/)
  expect(failed).not.toMatch(/<script|<h1>|<em>/)
  expect(links(failed)).toEqual([`https://discord.place/bots/${BOT}`])
})

it('text from outside in the stats summary stays one HTML block, renders no HTML, heading, emphasis, table or link from it, and shows it as text', async () => {
  const { outcome } = await statsPage(7 * HOUR, { 'server-count': '9999' })
  const { record } = outcome.record as { record: object }
  // A refused update whose every quoted text is hostile, the listing's name included.
  const hostile: StatsOutcome = {
    ...outcome,
    counts: {
      command: { value: 14, source: HOSTILE, read: true },
      server: undefined,
      warnings: [HOSTILE]
    },
    record: {
      ok: true,
      status: 200,
      record: { ...record, username: `Evil\n\n${HOSTILE}` }
    } as StatsOutcome['record'],
    answer: HOSTILE,
    keyCheck: { state: 'unchecked', reason: HOSTILE },
    warnings: [HOSTILE],
    error: new ActionError(`Stats update failed: the service answered 400 with "${HOSTILE}".`)
  }
  const section = renderStats(
    settingsFor<StatsSettings>({ 'bot-id': BOT, 'api-key': KEY, 'command-count': '14' }),
    hostile
  )
  const page = render(section)
  expect(section).not.toMatch(/\n\s*\n/)
  expect(page.trim()).toBe(section.trim())
  expect(page).not.toMatch(/<script|<h1>|<em>/)
  expect(tablesOf(page)).toHaveLength(2)
  expect(links(page)).toEqual([`https://discord.place/bots/${BOT}`, 'https://api.discord.place'])
  const shown = HOSTILE.replace(/\s+/g, ' ')
  // The listing's name is cut to 100 characters.
  expect(textOf(headings(page)[0]!)).toMatch(
    /^❌ Evil <script>alert\(1\)<\/script> # Heading \*x\* \[link\].* more characters not shown\): failed$/
  )
  expect(textOf(page)).toContain(
    `Error: Stats update failed: the service answered 400 with "${shown}".`
  )
  expect(textOf(page)).toContain(`Answer400: ${shown}`)
})

it('a link in the summary is an http(s) address only, escaped, in one attribute', () => {
  const hostile = 'https://x.example/a"onmouseover="alert(1)&b=<c>'
  const rendered = render(`<p>${htmlLink('site', hostile)}</p>`)
  expect(links(rendered)).toEqual([
    'https://x.example/a&quot;onmouseover=&quot;alert(1)&amp;b=&lt;c&gt;'
  ])
  expect(rendered).not.toMatch(/onmouseover="/)
  expect(htmlLink('site', 'javascript:alert(1)')).toBe('site')
  expect(htmlLink('<b>', 'https://api.discord.place')).toBe(
    '<a href="https://api.discord.place">&lt;b&gt;</a>'
  )
})
