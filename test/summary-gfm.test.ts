/**
 * The job summary through a real GitHub-flavoured Markdown renderer (micromark with its GFM
 * extension, which follows the GFM spec GitHub renders summaries with): the structure a reader
 * sees, and text from the service shown as text.
 */
import { micromark } from 'micromark'
import { gfm, gfmHtml } from 'micromark-extension-gfm'
import { describe, expect, it } from 'vitest'
import type { Counts } from '../src/counts/index.js'
import { ActionError } from '../src/errors.js'
import type { HttpAnswer } from '../src/http.js'
import { linkDestination, type RunState, renderSummary } from '../src/report.js'
import { explainFailure, serviceMessage } from '../src/service/answers.js'
import { COOLDOWN_MS, interpretRecord } from '../src/service/record.js'
import type { StatsBody, StatsOutcome } from '../src/service/stats.js'
import { readVote, type Vote } from '../src/service/votes.js'
import { parseSettings, type Settings } from '../src/settings.js'

const BOT_ID = '123456789012345678'
const KEY = 'dp_Summ4ry-K3y.s3cr3t'
const LIVE = 'https://api.discord.place'
const HOSTILE = '<script>alert(1)</script> | *x* [link](http://evil)'

// ---------------------------------------------------------------------------------------
// Rendering, and reading the HTML back
// ---------------------------------------------------------------------------------------

function html(state: RunState): string {
  return micromark(renderSummary(state), { extensions: [gfm()], htmlExtensions: [gfmHtml()] })
}

interface Table {
  head: string[]
  rows: string[][]
}

/** Cells' inner HTML, in order. */
function innerOf(fragment: string, tag: 'th' | 'td'): string[] {
  return [...fragment.matchAll(new RegExp(`<${tag}[^>]*>([\\s\\S]*?)</${tag}>`, 'g'))].map(match => match[1]!)
}

/** Every table of the page: its header cells and the cells of each body row, as inner HTML. */
function tablesOf(page: string): Table[] {
  return [...page.matchAll(/<table>([\s\S]*?)<\/table>/g)].map(([, table]) => {
    const head = /<thead>([\s\S]*?)<\/thead>/.exec(table!)?.[1] ?? ''
    const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(table!)?.[1] ?? ''
    return { head: innerOf(head, 'th'), rows: [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map(([, row]) => innerOf(row!, 'td')) }
  })
}

/** What a reader sees of some HTML: tags dropped, entities decoded. */
function textOf(fragment: string): string {
  return fragment
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&')
}

function headings(page: string): string[] {
  return [...page.matchAll(/<h3>([\s\S]*?)<\/h3>/g)].map(match => textOf(match[1]!))
}

/** The facts table (first column a label) as label -> inner HTML of the value. */
function facts(table: Table): Map<string, string> {
  return new Map(table.rows.map(row => [row[0]!, row[1]!]))
}

function links(fragment: string): string[] {
  return [...fragment.matchAll(/<a\s[^>]*href="([^"]*)"/g)].map(match => match[1]!)
}

// ---------------------------------------------------------------------------------------
// Realistic states, built with the action's own parsers where it has them
// ---------------------------------------------------------------------------------------

function settings(inputs: Record<string, string>): Settings {
  const all = new Map(
    Object.entries({
      mode: 'stats',
      'count-subcommands': 'false',
      'fail-if-not-voted': 'false',
      'base-url': LIVE,
      'dry-run': 'false',
      'cooldown-check': 'true',
      'discord-api-url': 'https://discord.com/api/v10',
      'rate-limit-wait': '600',
      'request-timeout': '30',
      timeout: '900',
      'bot-id': BOT_ID,
      'api-key': KEY,
      ...inputs
    })
  )
  return parseSettings(
    name => (all.get(name) ?? '').trim(),
    () => undefined,
    { GITHUB_WORKSPACE: '/home/runner/work/bot/bot' }
  )
}

function answer(status: number, json?: unknown): HttpAnswer {
  const text = json === undefined ? '' : JSON.stringify(json)
  return { status, headers: json === undefined ? {} : { 'content-type': 'application/json' }, text, truncated: false, json }
}

const UPDATED_AT = '2025-03-01T05:00:00.000Z'
const NOW = Date.parse('2025-03-01T11:32:00Z')

/** The bot's page before the update, as `GET /bots/{id}` returns it: 12 commands, 1,204 servers. */
const RECORD = interpretRecord(
  answer(200, { id: BOT_ID, commands: 12, servers: 1204, commands_updated_at: UPDATED_AT, servers_updated_at: UPDATED_AT })
)

/** A stats run from a manifest and Discord: 14 commands, 1,260 servers. */
function statsState(baseUrl = LIVE): RunState {
  const s = settings({ 'base-url': baseUrl, 'commands-file': 'build/commands.json', 'discord-token': 'Discord.T0ken-For.Tests' })
  const counts: Counts = {
    command: { value: 14, source: 'commands-file build/commands.json' },
    server: { value: 1260, source: 'Discord (approximate_guild_count)' },
    warnings: []
  }
  const body: StatsBody = { command_count: 14, server_count: 1260 }
  const outcome: StatsOutcome = {
    result: 'updated',
    body,
    sent: true,
    record: RECORD,
    status: 200,
    answer: undefined,
    nextUpdateAt: new Date(NOW + COOLDOWN_MS),
    error: undefined
  }
  return { settings: s, counts, outcome }
}

/** The same update refused with a 400 whose `error` text is hostile Markdown and HTML. */
function hostileState(): RunState {
  const state = statsState()
  const refused = answer(400, { success: false, error: HOSTILE, status: 400 })
  const said = serviceMessage(refused)
  const error = new ActionError(explainFailure(refused, said, { botId: BOT_ID, body: state.outcome!.body }))
  const outcome: StatsOutcome = { ...state.outcome!, result: 'failed', status: 400, answer: said, nextUpdateAt: undefined, error }
  return { ...state, outcome, failure: error.message }
}

const USERS = ['234567890123456789', '345678901234567890', '456789012345678901', '567890123456789012']

/** A vote check of four users: one voted (live service), one voted (204), one did not, one left unchecked. */
function voteState(): RunState {
  const s = settings({ mode: 'vote-check', 'user-id': USERS.join(', ') })
  const [a, b, c, d] = USERS as [string, string, string, string]
  const votes = new Map<string, Vote>([
    [a, readVote(answer(200, { voted: true, vote: 3, lastVote: Date.parse(UPDATED_AT) }), a, { botId: BOT_ID })],
    [b, readVote(answer(204), b, { botId: BOT_ID })],
    [c, readVote(answer(200, { voted: false, vote: 0, lastVote: null }), c, { botId: BOT_ID })]
  ])
  const error = new ActionError("The service's rate limit would need a wait of 120 s more, beyond the rate-limit-wait of 600 s.")
  return { settings: s, votes: { votes, status: 200, rateLimited: 1, error, unchecked: [d] }, failure: error.message }
}

// ---------------------------------------------------------------------------------------

describe('the stats summary in GitHub-flavoured Markdown', () => {
  const page = html(statsState())
  const [factTable, countTable] = tablesOf(page)

  it('has a heading and two tables', () => {
    expect(headings(page)).toEqual(['Bot stats: updated'])
    expect(tablesOf(page)).toHaveLength(2)
  })

  it('lists the facts of the run, two cells a row', () => {
    expect(factTable!.head).toEqual(['', ''])
    expect(factTable!.rows.map(row => row[0])).toEqual(['Bot', 'Service', 'Record read', 'Request', 'Answer', 'Next update', 'Result'])
    for (const row of factTable!.rows) expect(row, row.join(' | ')).toHaveLength(2)
    const f = facts(factTable!)
    expect(textOf(f.get('Record read')!)).toBe('yes, last update 2025-03-01 05:00 UTC')
    expect(f.get('Request')).toBe(
      `<code>PATCH /bots/${BOT_ID}/stats</code> <code>{&quot;command_count&quot;:14,&quot;server_count&quot;:1260}</code>`
    )
    expect(textOf(f.get('Answer')!)).toBe('200')
    expect(textOf(f.get('Next update')!)).toBe('from 2025-03-01 17:32 UTC')
    expect(f.get('Result')).toBe('<strong>updated</strong>')
  })

  it('shows each count with its source, the listed value and the change', () => {
    expect(countTable!.head).toEqual(['Count', 'Value', 'Source', 'Listed before', 'Change'])
    expect(countTable!.rows.map(row => row.map(textOf))).toEqual([
      ['Commands', '14', 'commands-file build/commands.json', '12', '12 → 14 (+2)'],
      ['Servers', '1,260', 'Discord (approximate_guild_count)', '1,204', '1,204 → 1,260 (+56)']
    ])
    expect(page).toContain('<th align="right">Value</th>')
  })

  // GitHub shows the summary as rendered Markdown: the address must be a link there, not
  // the escaped text `https\://api.discord.place`, and its target the address itself.
  it('links the service to its address', () => {
    const service = facts(factTable!).get('Service')!
    expect(links(service)).toEqual([LIVE])
    expect(textOf(service)).toBe(LIVE)

    const local = facts(tablesOf(html(statsState('http://127.0.0.1:8080')))[0]!).get('Service')!
    expect(links(local)).toEqual(['http://127.0.0.1:8080'])
    expect(textOf(local)).toBe('http://127.0.0.1:8080')
  })

  it('links the bot to its page on the live service only', () => {
    expect(links(facts(factTable!).get('Bot')!)).toEqual([`https://discord.place/bots/${BOT_ID}`])

    const local = html(statsState('http://127.0.0.1:8080'))
    const bot = facts(tablesOf(local)[0]!).get('Bot')!
    expect(bot).toBe(`<code>${BOT_ID}</code>`)
    expect(local).not.toContain('discord.place/bots')
    expect(textOf(facts(tablesOf(local)[0]!).get('Service')!)).toBe('http://127.0.0.1:8080')
  })
})

describe('the vote-check summary in GitHub-flavoured Markdown', () => {
  const page = html(voteState())
  const [factTable, userTable] = tablesOf(page)

  it('has a heading, two tables and the error', () => {
    expect(headings(page)).toEqual(['Vote check: failed'])
    expect(tablesOf(page)).toHaveLength(2)
    expect(factTable!.head).toEqual(['', ''])
    expect(factTable!.rows.map(row => row.map(textOf))).toEqual([
      ['Bot', BOT_ID],
      ['Service', LIVE],
      ['Result', 'failed']
    ])
    expect(links(facts(factTable!).get('Bot')!)).toEqual([`https://discord.place/bots/${BOT_ID}`])
    expect(links(facts(factTable!).get('Service')!)).toEqual([LIVE])
    expect(textOf(/<blockquote>([\s\S]*?)<\/blockquote>/.exec(page)?.[1] ?? '').trim()).toBe(
      "Error: The service's rate limit would need a wait of 120 s more, beyond the rate-limit-wait of 600 s."
    )
  })

  it('has one row per user, the unchecked one included', () => {
    expect(userTable!.head).toEqual(['User', 'Voted in the last 24 hours', 'Votes', 'Last vote'])
    for (const row of userTable!.rows) expect(row, row.join(' | ')).toHaveLength(4)
    expect(userTable!.rows.map(row => row.map(textOf))).toEqual([
      [USERS[0], 'yes', '3', '2025-03-01 05:00 UTC'],
      [USERS[1], 'yes', '', ''],
      [USERS[2], 'no', '0', ''],
      [USERS[3], 'not checked', '', '']
    ])
    expect(userTable!.rows[0]![0]).toBe(`<code>${USERS[0]}</code>`)
  })
})

describe("the service's text in the summary", () => {
  const page = html(hostileState())
  const [factTable, countTable] = tablesOf(page)
  const answerCell = facts(factTable!).get('Answer')!
  const quote = /<blockquote>([\s\S]*?)<\/blockquote>/.exec(page)?.[1] ?? ''

  it('keeps the tables whole: no extra cells or rows', () => {
    expect(headings(page)).toEqual(['Bot stats: failed'])
    expect(tablesOf(page)).toHaveLength(2)
    expect(factTable!.rows.map(row => row[0])).toEqual(['Bot', 'Service', 'Record read', 'Request', 'Answer', 'Result'])
    for (const row of factTable!.rows) expect(row, row.join(' | ')).toHaveLength(2)
    expect(countTable!.rows).toHaveLength(2)
    for (const row of countTable!.rows) expect(row, row.join(' | ')).toHaveLength(5)
  })

  it('renders HTML and Markdown in it as text', () => {
    expect(page).not.toMatch(/<script/i)
    expect(answerCell).toContain('400: &lt;script&gt;alert(1)&lt;/script&gt; | *x* [link](')
    expect(quote).toContain('&lt;script&gt;alert(1)&lt;/script&gt; | *x* [link](')
    for (const fragment of [answerCell, quote]) {
      expect(fragment).not.toMatch(/<em>|<img|<script|<iframe/)
      expect(fragment).not.toMatch(/>link<\/a>/)
    }
    expect(textOf(quote)).toContain('Error: Stats update failed: the service answered 400 with "<script>alert(1)</script> | *x* ')
  })

  // GFM links bare addresses (http://, www., e-mail) on its own; escapeText() escapes them.
  it('turns no URL from the service into a link, bare or www. or e-mail', () => {
    expect(links(answerCell)).toEqual([])
    expect(links(quote)).toEqual([])
    expect(textOf(answerCell)).toBe(`400: ${HOSTILE}`)
  })
})

describe('a link target in the summary', () => {
  // A target with everything that could end a link, split a table cell or be read as a
  // character reference: it stays one link, in one cell, to the same address.
  const HOSTILE_URL = 'https://x.example/a b)(c|d\\e<f>g"h\'i&amp;j`k*l_m]n[o/é?q=1&r=2#s'

  it('stays one link to the same address, inside a table cell', () => {
    const page = micromark(`| a | b |\n|---|---|\n| x | [t](${linkDestination(HOSTILE_URL)}) |\n`, {
      extensions: [gfm()],
      htmlExtensions: [gfmHtml()]
    })
    const [table] = tablesOf(page)
    expect(table!.rows).toHaveLength(1)
    expect(table!.rows[0]).toHaveLength(2)
    const hrefs = links(table!.rows[0]![1]!)
    expect(hrefs).toHaveLength(1)
    expect(decodeURIComponent(textOf(hrefs[0]!))).toBe(HOSTILE_URL)
    expect(textOf(table!.rows[0]![1]!)).toBe('t')
  })

  it('leaves an ordinary address as it is', () => {
    expect(linkDestination('https://api.discord.place')).toBe('https://api.discord.place')
    expect(linkDestination('http://127.0.0.1:8080/v2/')).toBe('http://127.0.0.1:8080/v2/')
  })
})
