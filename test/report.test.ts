import * as core from '@actions/core'
import { describe, expect, it } from 'vitest'
import type { Counts } from '../src/counts/index.js'
import { escapeText, type RunState, renderSummary } from '../src/report.js'
import type { RecordRead } from '../src/service/record.js'
import type { StatsOutcome } from '../src/service/stats.js'
import type { StatsSettings } from '../src/settings.js'

const BOT_ID = '123456789012345678'
const KEY = 'dp_K3y-0f-Th3-B0t.s3cr3t'

function settings(baseUrl = 'https://api.discord.place', over: Partial<StatsSettings> = {}): StatsSettings {
  return Object.freeze({
    mode: 'stats',
    botId: BOT_ID,
    apiKey: KEY,
    commandCount: 14,
    serverCount: 1260,
    commandsFile: undefined,
    countSubcommands: false,
    discordToken: undefined,
    discordApiUrl: '',
    github: { token: undefined, workspace: '/tmp', repository: undefined, sha: undefined },
    baseUrl,
    dryRun: false,
    cooldownCheck: true,
    requestTimeoutMs: 30_000,
    timeoutMs: 900_000,
    notes: [],
    ...over
  })
}

/** A public record read before the update, last updated 2025-03-01 05:00 UTC. */
function recordOf(commands: number, servers: number): RecordRead {
  const at = new Date('2025-03-01T05:00:00Z')
  return { ok: true, status: 200, record: { commands, servers, commandsUpdatedAt: at, serversUpdatedAt: at } }
}

/** The bot's page before the update: 12 commands, 1,204 servers. */
const RECORD = recordOf(12, 1204)

function outcome(fields: Partial<StatsOutcome> & Pick<StatsOutcome, 'result'>): StatsOutcome {
  return {
    body: { command_count: 14, server_count: 1260 },
    sent: true,
    record: RECORD,
    status: 200,
    answer: undefined,
    nextUpdateAt: undefined,
    error: undefined,
    ...fields
  }
}

function state(s: StatsSettings, o: StatsOutcome, failure?: string): RunState {
  const counts: Counts = {
    command: s.commandCount === undefined ? undefined : { value: s.commandCount, source: 'input command-count' },
    server: s.serverCount === undefined ? undefined : { value: s.serverCount, source: 'input server-count' },
    warnings: []
  }
  return { settings: s, counts, outcome: o, ...(failure === undefined ? {} : { failure }) }
}

/** The summary as `core.summary` writes it to GITHUB_STEP_SUMMARY. */
function throughCore(s: RunState): string {
  return core.summary.emptyBuffer().addRaw(renderSummary(s)).stringify()
}

/** Pipes that split a GFM table cell: those not escaped by a backslash (code spans do not protect them). */
function cellPipes(line: string): number {
  let count = 0
  for (let i = 0; i < line.length; i++) {
    if (line[i] === '\\') i++
    else if (line[i] === '|') count++
  }
  return count
}

/** Every table in the Markdown: its rows all have as many cells as its header. */
function expectTablesIntact(markdown: string): void {
  const tables: string[][] = []
  let current: string[] | undefined
  for (const line of markdown.split('\n')) {
    if (line.startsWith('|')) {
      if (current === undefined) tables.push((current = []))
      current.push(line)
    } else current = undefined
  }
  expect(tables.length).toBeGreaterThan(0)
  for (const table of tables) {
    const header = cellPipes(table[0] ?? '')
    for (const row of table) expect({ row, pipes: cellPipes(row) }).toEqual({ row, pipes: header })
  }
}

const renderers: [string, (s: RunState) => string][] = [
  ['renderSummary', renderSummary],
  ['core.summary', throughCore]
]

describe.each(renderers)('the summary of an update (%s)', (_via, render) => {
  const updated = outcome({ result: 'updated', status: 200, nextUpdateAt: new Date('2025-03-01T18:00:00Z') })

  it('shows each count with its change against the public record', () => {
    const markdown = render(state(settings(), updated))
    expect(markdown).toContain('1,204 → 1,260 (+56)')
    expect(markdown).toContain('12 → 14 (+2)')
  })

  it('names the source of each count', () => {
    const markdown = render(state(settings(), updated))
    expect(markdown).toContain('command-count')
    expect(markdown).toContain('server-count')
  })

  it('shows a decrease with its sign', () => {
    const fewer = outcome({ result: 'updated', record: recordOf(12, 1300) })
    expect(render(state(settings(), fewer))).toMatch(/1,300 → 1,260 \([−-]40\)/)
  })

  it('links the bot to its page on discord.place when base-url is the live service', () => {
    expect(render(state(settings(), updated))).toContain(`(https://discord.place/bots/${BOT_ID})`)
  })

  it.each(['https://x.example/api', 'http://127.0.0.1:8080', 'https://api.discord.place.example.com'])(
    'does not link the bot for base-url %s, but names it',
    baseUrl => {
      const markdown = render(state(settings(baseUrl), updated))
      expect(markdown).not.toContain('discord.place/bots')
      expect(markdown).toContain(BOT_ID)
    }
  )

  it('shows the request that was sent and the answer status', () => {
    const markdown = render(state(settings(), updated))
    expect(markdown).toContain(`PATCH /bots/${BOT_ID}/stats`)
    expect(markdown).toContain('{"command_count":14,"server_count":1260}')
    expect(markdown).toMatch(/\| *Answer *\| *200\b/)
    expect(markdown).toMatch(/updated/)
  })

  it('keeps its tables intact and never shows the key', () => {
    const markdown = render(state(settings(), updated))
    expectTablesIntact(markdown)
    expect(markdown).not.toContain(KEY)
  })
})

describe.each(renderers)('the summary of a refused update (%s)', (_via, render) => {
  const hostile = 'Server count <script>alert("pwned")</script> | off by *lots* | see [here](https://evil.example)'
  const failed = outcome({ result: 'failed', status: 400, answer: hostile })
  const failure = `Stats update failed: the service answered 400 with "${hostile}". Check the counts.`
  const markdown = (): string => render(state(settings(), failed, failure))

  it('shows the answer status and the failure', () => {
    expect(markdown()).toMatch(/\| *Answer *\| *400\b/)
    expect(markdown()).toMatch(/failed/)
    expect(markdown()).toContain('Server count')
  })

  it('HTML-escapes the service text', () => {
    expect(markdown()).not.toMatch(/<script/i)
    expect(markdown()).not.toMatch(/<\/script/i)
    expect(markdown()).toContain('&lt;script&gt;')
  })

  it('escapes Markdown so the text shows as typed', () => {
    expect(markdown()).not.toContain('*lots*')
    expect(markdown()).not.toContain('[here](https://evil.example)')
  })

  it('escapes pipes so no table is broken', () => {
    expectTablesIntact(markdown())
  })

  it('never shows the key', () => {
    expect(markdown()).not.toContain(KEY)
  })
})

describe.each(renderers)('the summary of a skipped update (%s)', (_via, render) => {
  const skipped = outcome({
    result: 'skipped',
    sent: false,
    status: 200,
    record: {
      ok: true,
      status: 200,
      record: {
        commands: 12,
        servers: 1204,
        commandsUpdatedAt: new Date('2025-03-01T10:00:00Z'),
        serversUpdatedAt: new Date('2025-03-01T12:30:00Z')
      }
    },
    nextUpdateAt: new Date('2025-03-01T18:30:00Z')
  })

  it('says the update was not sent and when the next one is accepted', () => {
    const markdown = render(state(settings(), skipped))
    expect(markdown).toMatch(/skipped/)
    expect(markdown).toContain('not sent')
    expect(markdown).toMatch(/2025-03-01[ T]18:30/)
    expectTablesIntact(markdown)
  })

  it('shows no answer to a request that was not sent', () => {
    expect(render(state(settings(), skipped))).not.toMatch(/\| *Answer *\|/)
  })
})

describe('the summary of a dry run', () => {
  it('says nothing was sent, and what would have been', () => {
    const dry = outcome({ result: 'dry-run', sent: false, record: undefined, status: undefined })
    const markdown = renderSummary(state(settings('https://api.discord.place', { apiKey: undefined, dryRun: true }), dry))
    expect(markdown).toMatch(/dry.run/i)
    expect(markdown).toContain('not sent')
    expect(markdown).toContain(`PATCH /bots/${BOT_ID}/stats`)
    expect(markdown).toContain('1,260')
  })
})

describe('the summary of a run that failed before any request', () => {
  it('still explains itself', () => {
    const markdown = throughCore({ failure: 'Input \'bot-id\' must be a Discord ID of 17 to 20 digits, got "42".' })
    expect(markdown).toMatch(/failed/)
    expect(markdown).toContain('bot-id')
    expect(markdown).toContain('17 to 20 digits')
  })
})

describe('escape', () => {
  it.each([
    ['plain text', 'Invalid API key.', 'Invalid API key.'],
    ['numbers and arrows', '1,204 → 1,260', '1,204 → 1,260'],
    ['a pipe', 'a | b', 'a \\| b'],
    ['an asterisk', '*bold*', '\\*bold\\*'],
    ['an underscore', '_it_', '\\_it\\_'],
    ['a backtick', '`code`', '\\`code\\`'],
    ['a newline', 'line one\nline two', 'line one line two'],
    ['CR LF and tabs', 'a\r\n\tb', 'a b'],
    ['an ampersand', 'AT&T', 'AT&amp;T'],
    ['an HTML entity, shown as typed', '&lt;', '&amp;lt;'],
    ['angle brackets', '<b>', '&lt;b&gt;']
  ])('%s', (_label, input, expected) => {
    expect(escapeText(input)).toBe(expected)
  })

  it.each(['<script>alert(1)</script>', '<img src=x onerror=alert(1)>', '<!-- comment -->', '</td></tr></table>'])(
    'leaves no HTML tag in %s',
    input => {
      expect(escapeText(input)).not.toMatch(/[<>]/)
    }
  )

  it.each([
    ['a link', '[click](https://evil.example)', /(^|[^\\])\[click\]/],
    ['an image', '![x](https://evil.example/x.png)', /(^|[^\\])!\[/],
    ['a heading marker', '# Title', /^#/],
    ['strike-through', '~~gone~~', /(^|[^\\])~~/]
  ])('neutralises %s', (_label, input, active) => {
    expect(escapeText(input)).not.toMatch(active)
  })

  it.each(['a|b', 'a\\|b', 'a\\\\|b', '\\', '|||', 'x\\'])('leaves no pipe that splits a cell in %j', input => {
    expect(cellPipes(escapeText(input))).toBe(0)
  })

  it('keeps the result on one line', () => {
    expect(escapeText('one\ntwo\r\nthree\u2028four')).not.toMatch(/[\r\n]/)
  })
})
