/**
 * The stats mode's report (src/stats/report.ts): the summary section (HTML), the outputs and
 * the annotations. Outcomes come from runStats against the service emulator where a run can
 * make them, and are built by hand for what a run rarely meets (hostile or huge texts).
 *
 * Each sentence a person reads is pinned once: the outcomes' headlines and words by the generated
 * docs/troubleshooting.md (src/stats/outcome.ts), the section's layout and its rows in the whole
 * sections. The other tests assert structure: which column, which row, which output, which
 * annotation first.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ActionError } from '../../src/errors.js'
import { addSecret, clearSecrets } from '../../src/secrets.js'
import type { StatsSettings } from '../../src/settings.js'
import {
  type Counts,
  type OutcomeId,
  outcomeOf,
  type StatsOutcome
} from '../../src/stats/outcome.js'
import type { RecordRead } from '../../src/stats/window.js'
import {
  announce,
  outcomeLine,
  renderSummary,
  reportStats,
  writeOutputs
} from '../../src/stats/report.js'
import {
  BOT,
  emulatedBot,
  HOUR,
  KEY,
  settingsFor,
  statsInputs,
  statsRun,
  TestClock
} from '../support/inprocess.js'
import { capturedStdout, runnerFiles } from '../support/step.js'

/** The TestClock's start: every outcome is decided then. */
const AT = new Date('2026-11-24T12:00:00Z')
const fromStart = (minutes: number): Date => new Date(AT.getTime() + minutes * 60_000)

beforeAll(() => {
  // As settings.ts does for the api-key input: every form of the key is redacted from now on.
  addSecret(KEY)
})
afterAll(() => clearSecrets())

// ---------------------------------------------------------------------------------------
// Outcomes: by hand, and from runs against the emulator
// ---------------------------------------------------------------------------------------

/**
 * Settings of a step against a service other than the live one (the bot named without a link),
 * unless told otherwise.
 */
const staging = (more: Record<string, string> = {}): StatsSettings =>
  settingsFor<StatsSettings>({
    'bot-id': BOT,
    'api-key': KEY,
    'command-count': '14',
    'base-url': 'https://staging.example',
    ...more
  })
const live = (): StatsSettings =>
  settingsFor<StatsSettings>({ 'bot-id': BOT, 'api-key': KEY, 'command-count': '14' })

/** The bot's public record, last updated `ago` ms before AT: 12 commands, 1,204 servers. */
function read(
  ago: number,
  more: Partial<Extract<RecordRead, { ok: true }>['record']> = {},
  cached?: boolean
): RecordRead {
  const at = new Date(AT.getTime() - ago)
  const record = {
    username: 'Example Bot',
    commands: 12,
    servers: 1204,
    commandsUpdatedAt: at,
    serversUpdatedAt: at,
    ...more
  }
  return { ok: true, status: 200, cached, record }
}

const BOTH: Counts = {
  command: { value: 14, source: 'input command-count', read: false },
  server: { value: 1260, source: 'input server-count', read: false },
  warnings: []
}
const NO_COUNTS = { counts: { command: undefined, server: undefined, warnings: [] }, body: {} }

/** An update that went through, 7 h after the last one, unless `fields` say otherwise. */
const ran = (fields: Partial<StatsOutcome> = {}): StatsOutcome => ({
  result: 'updated',
  counts: BOTH,
  body: { command_count: 14, server_count: 1260 },
  delivery: 'answered',
  record: read(7 * HOUR),
  status: 200,
  answer: undefined,
  nextUpdateAt: fromStart(361),
  skip: undefined,
  overlap: undefined,
  strikeCause: undefined,
  keyCheck: undefined,
  failure: undefined,
  staleAfter: undefined,
  warnings: [],
  error: undefined,
  at: AT,
  ...fields
})
const skipped = (fields: Partial<StatsOutcome> = {}): StatsOutcome =>
  ran({
    result: 'skipped',
    skip: 'recent',
    delivery: 'not-sent',
    status: undefined,
    record: read(2 * HOUR),
    nextUpdateAt: fromStart(241),
    ...fields
  })
const limited = (fields: Partial<StatsOutcome> = {}): StatsOutcome =>
  ran({
    result: 'rate-limited',
    status: 429,
    answer: 'Too many requests, please try again later.',
    nextUpdateAt: fromStart(30),
    ...fields
  })
const strike = (fields: Partial<StatsOutcome> = {}): StatsOutcome =>
  ran({
    result: 'cooldown',
    status: 429,
    answer: 'You can only update stats once every 6 hours.',
    nextUpdateAt: fromStart(241),
    strikeCause: 'unknown',
    error: new ActionError('Refused as too early: a strike was counted.'),
    ...fields
  })
const failed = (fields: Partial<StatsOutcome> = {}): StatsOutcome =>
  ran({
    result: 'failed',
    status: 400,
    answer: 'Server count is off.',
    nextUpdateAt: undefined,
    ...fields
  })
const dry = (fields: Partial<StatsOutcome> = {}): StatsOutcome =>
  ran({ result: 'dry-run', delivery: 'not-sent', status: undefined, ...fields })

/**
 * A run of the stats mode against the emulator, the bot last updated `ago` before the clock's
 * start.
 */
async function run(ago: number, more: Record<string, string> = {}): Promise<StatsOutcome> {
  const clock = new TestClock(AT.getTime())
  const emulator = await emulatedBot(clock, { ago })
  return (await statsRun(statsInputs(emulator, more), { clock })).outcome
}

const RECENT =
  'the counts were updated less than 6 hours ago (10:00 UTC, 2 h before this run), and the service accepts one update per 6 hours. ' +
  'The next update is accepted from 16:01 UTC, 4 h 1 min after this run.'
const headlineOf = (page: string): string => /^<h3>([\s\S]*?)<\/h3>\n/.exec(page)?.[1] ?? ''
const countsTable = (page: string): string | undefined =>
  /<table>\n<tr><th>Count<\/th>[\s\S]*?<\/table>\n/.exec(page)?.[0]
const countsHeader = (page: string): string[] =>
  [...(/<tr><th>Count<\/th>.*?<\/tr>/.exec(page)?.[0] ?? '').matchAll(/<th>(.*?)<\/th>/g)].map(
    match => match[1]!
  )
/** The value of one row of the folded details, if the row is there. */
const detail = (page: string, key: string): string | undefined =>
  new RegExp(`<tr><td>${key}</td><td>(.*?)</td></tr>`).exec(
    /<details>[\s\S]*<\/details>/.exec(page)![0]
  )?.[1]

// ---------------------------------------------------------------------------------------
// The words, pinned once: the outcome's line, the headline, whole sections
// ---------------------------------------------------------------------------------------

describe("each outcome: the table's headline and words, the bot named, the kind of line", () => {
  const LINKED = `<a href="https://discord.place/bots/${BOT}">Example Bot</a>`
  const SENT = '{"command_count":14,"server_count":1260}'
  const NOT_SENT = { kind: 'notice', title: 'Stats not sent' }
  const INFO = { kind: 'info', title: '' }
  // The line's kind and title, and how its text opens: the whole of each outcome's words is pinned
  // by the generated troubleshooting page. No line for a strike: its error says why.
  it.each<{
    label: string
    given: StatsOutcome
    id: OutcomeId
    headline: string
    line?: { kind: string; title: string; opens: string }
    settings?: StatsSettings
  }>([
    {
      label: 'an update, the name linked',
      given: ran(),
      id: 'updated',
      headline: `✅ ${LINKED}: updated, next update from 18:01 UTC, 6 h 1 min after this run`,
      line: {
        ...INFO,
        opens: `Stats updated (${SENT}). The next update is accepted from 18:01 UTC`
      },
      settings: live()
    },
    {
      label: 'an update, no name: the bot by its ID',
      given: ran({ record: read(7 * HOUR, { username: undefined }) }),
      id: 'updated',
      headline: `✅ Bot ${BOT}: updated, next update from 18:01 UTC, 6 h 1 min after this run`,
      line: { ...INFO, opens: `Stats updated (${SENT}).` }
    },
    {
      label: 'a skip: too soon',
      given: skipped(),
      id: 'too-soon',
      headline:
        '⏭️ Example Bot: not sent: too soon, next update from 16:01 UTC, 4 h 1 min after this run',
      line: {
        ...NOT_SENT,
        opens:
          'Stats not sent: the counts were updated less than 6 hours ago (10:00 UTC, 2 h before this run)'
      }
    },
    {
      label: 'a skip: the bot not verified yet',
      given: skipped({ skip: 'unverified', record: undefined }),
      id: 'not-verified',
      headline: `⏸️ Bot ${BOT}: not sent: the bot is not verified yet`,
      line: { ...NOT_SENT, opens: 'Stats not sent: discord.place has not verified the bot yet' }
    },
    {
      label: 'a skip: the record not checked',
      given: skipped({ skip: 'unchecked' }),
      id: 'record-unchecked',
      headline: '⚠️ Example Bot: not sent: the bot&#39;s record could not be checked',
      line: { ...NOT_SENT, opens: "Stats not sent: the bot's public record could not be checked" }
    },
    {
      label: 'a skip: no count left',
      given: skipped({ skip: 'nothing', body: {} }),
      id: 'no-count',
      headline: '⚠️ Example Bot: not sent: no count to send',
      line: { ...NOT_SENT, opens: 'Stats not sent: no count was left to send' }
    },
    {
      label: 'the strike',
      given: strike(),
      id: 'strike-unknown',
      headline: '🛑 Example Bot: refused: strike counted'
    },
    {
      label: 'the strike after another run updated first',
      given: strike({ strikeCause: 'overlap', overlap: fromStart(-1) }),
      id: 'strike-overlap',
      headline: '🛑 Example Bot: refused: strike counted (another run updated first)'
    },
    {
      label: 'the request limiter',
      given: limited(),
      id: 'rate-limited',
      headline:
        '⏸️ Example Bot: turned away by the rate limit, no strike; try again from 12:30 UTC, 30 min after this run',
      line: {
        kind: 'warning',
        title: 'Update turned away by the rate limit (no strike)',
        opens:
          'The service\'s request limiter turned the update away (429: "Too many requests, please try again later.")'
      }
    },
    {
      label: 'a deferred update',
      given: ran({
        result: 'deferred',
        status: 500,
        failure: 'the service answered 500',
        staleAfter: 48
      }),
      id: 'deferred',
      headline: '⏸️ Example Bot: deferred, the listing 7 h old',
      line: {
        kind: 'warning',
        title: 'Stats update deferred',
        opens: 'Stats update deferred: the service answered 500. The listing was updated 7 h ago'
      }
    },
    {
      label: 'a dry run of an update that is due',
      given: dry(),
      id: 'dry-run',
      headline: '🧪 Example Bot: dry run: nothing sent, a real run would send',
      line: { ...INFO, opens: `Dry run: nothing sent. A real run would send ${SENT}.` }
    },
    {
      label: 'a dry run not due',
      given: skipped({ result: 'dry-run' }),
      id: 'dry-run-not-due',
      headline: '🧪 Example Bot: dry run: nothing sent, a real run would not send',
      line: {
        ...INFO,
        opens:
          'Dry run: nothing sent. A real run would not send: the counts were updated less than 6 hours ago'
      }
    }
  ])('$label', ({ given, id, headline, line, settings = staging() }) => {
    expect(outcomeOf(given)).toBe(id)
    expect(headlineOf(renderSummary(settings, given))).toBe(headline)
    if (line === undefined) return
    const { kind, title, text } = outcomeLine(given, BOT)
    expect({ kind, title, opens: text.slice(0, line.opens.length) }).toEqual(line)
  })

  it.each<[string, StatsOutcome, string, string]>([
    [
      'an update, the next time unknown',
      ran({ nextUpdateAt: undefined }),
      '✅ Example Bot: updated',
      'Stats updated ('
    ],
    [
      'a skip: too soon, neither the last update nor the next known',
      skipped({ record: undefined, nextUpdateAt: undefined }),
      `⏭️ Bot ${BOT}: not sent: too soon`,
      'Stats not sent: the counts were updated less than 6 hours ago, and the service accepts one update per 6 hours. ' +
        'The next update is accepted from a later run.'
    ],
    [
      'the request limiter, silent and without a time',
      limited({ answer: undefined, nextUpdateAt: undefined }),
      '⏸️ Example Bot: turned away by the rate limit, no strike',
      "The service's request limiter turned the update away (429) before looking at it: nothing was stored and no strike was " +
        'counted. Try again in 30 minutes.'
    ],
    // Not a warning: the strike fails the step, and its one ::error:: (the outcome's error) says
    // why.
    [
      'the strike',
      strike(),
      '🛑 Example Bot: refused: strike counted',
      'The service refused the update as too early: a strike was counted.'
    ],
    [
      'a failure after sending',
      failed(),
      '❌ Example Bot: failed',
      'The stats update failed; the error says why.'
    ],
    [
      'a failure before sending, its error with a headline',
      failed({
        delivery: 'not-sent',
        status: undefined,
        error: new ActionError('x', { headline: 'API key refused' })
      }),
      '❌ Example Bot: failed: API key refused',
      'The run failed before any stats update was sent; the error says why.'
    ]
  ])('what is left out, and the lines not in the table: %s', (_label, given, headline, line) => {
    expect(headlineOf(renderSummary(staging(), given))).toBe(headline)
    expect(outcomeLine(given, BOT).text.startsWith(line)).toBe(true)
  })
})

describe('whole sections, word for word', () => {
  it('a skip: too soon, with one count, a cached record, a key not checked and warnings', () => {
    const page = renderSummary(
      staging(),
      skipped({
        counts: { command: BOTH.command, server: undefined, warnings: ['Manifest warning.'] },
        body: { command_count: 14 },
        record: read(2 * HOUR, {}, true),
        keyCheck: { state: 'unchecked', reason: 'the service answered 503' },
        warnings: ['Run warning.']
      })
    )
    expect(page).toBe(
      '<h3>⏭️ Example Bot: not sent: too soon, next update from 16:01 UTC, 4 h 1 min after this run</h3>\n' +
        '<table>\n' +
        '<tr><th>Count</th><th>Listed before</th><th>Would be sent</th><th>Source</th></tr>\n' +
        '<tr><td>Commands</td><td>12</td><td>14</td><td>input command-count</td></tr>\n' +
        '<tr><td>Servers</td><td>1,204</td><td>—</td><td>—</td></tr>\n' +
        '</table>\n' +
        `<p>Stats not sent: ${RECENT}</p>\n` +
        '<p>⚠️ <strong>Warning:</strong> Run warning.</p>\n' +
        '<p>⚠️ <strong>Warning:</strong> Manifest warning.</p>\n' +
        '<details><summary>Request and answer</summary>\n' +
        '<table>\n' +
        '<tr><td>Service</td><td><a href="https://staging.example">https://staging.example</a></td></tr>\n' +
        '<tr><td>Record read</td><td>read; last update 10:00 UTC, 2 h before this run (from a cache)</td></tr>\n' +
        '<tr><td>Key check</td><td>not checked: the service answered 503</td></tr>\n' +
        `<tr><td>Request</td><td>not sent (once an update is due, it would be <code>PATCH /bots/${BOT}/stats {&quot;command_count&quot;:14}</code>)</td></tr>\n` +
        '</table>\n' +
        '</details>\n'
    )
  })

  it('an update to the live service: the bot linked, the change of each count, the key checked, and no paragraph repeating the headline', () => {
    expect(renderSummary(live(), ran({ keyCheck: { state: 'valid' } }))).toBe(
      `<h3>✅ <a href="https://discord.place/bots/${BOT}">Example Bot</a>: updated, next update from 18:01 UTC, 6 h 1 min after this run</h3>\n` +
        '<table>\n' +
        '<tr><th>Count</th><th>Listed before</th><th>Now</th><th>Source</th></tr>\n' +
        '<tr><td>Commands</td><td>12</td><td>14 (+2)</td><td>input command-count</td></tr>\n' +
        '<tr><td>Servers</td><td>1,204</td><td>1,260 (+56)</td><td>input server-count</td></tr>\n' +
        '</table>\n' +
        '<details><summary>Request and answer</summary>\n' +
        '<table>\n' +
        '<tr><td>Service</td><td><a href="https://api.discord.place">https://api.discord.place</a></td></tr>\n' +
        '<tr><td>Record read</td><td>read; last update 05:00 UTC, 7 h before this run</td></tr>\n' +
        '<tr><td>Key check</td><td>the key is valid</td></tr>\n' +
        `<tr><td>Request</td><td><code>PATCH /bots/${BOT}/stats {&quot;command_count&quot;:14,&quot;server_count&quot;:1260}</code></td></tr>\n` +
        '<tr><td>Answer</td><td>200</td></tr>\n' +
        '</table>\n' +
        '</details>\n'
    )
  })

  it('the strike with cooldown-check off: no read before it, the read after it, the error and the answer quoted', () => {
    expect(
      renderSummary(staging({ 'cooldown-check': 'false' }), strike({ record: undefined }))
    ).toBe(
      `<h3>🛑 Bot ${BOT}: refused: strike counted</h3>\n` +
        '<table>\n' +
        '<tr><th>Count</th><th>Listed before</th><th>Sent, not stored</th><th>Source</th></tr>\n' +
        '<tr><td>Commands</td><td>—</td><td>14</td><td>input command-count</td></tr>\n' +
        '<tr><td>Servers</td><td>—</td><td>1,260</td><td>input server-count</td></tr>\n' +
        '</table>\n' +
        '<p>❌ <strong>Error:</strong> Refused as too early: a strike was counted.</p>\n' +
        '<details><summary>Request and answer</summary>\n' +
        '<table>\n' +
        '<tr><td>Service</td><td><a href="https://staging.example">https://staging.example</a></td></tr>\n' +
        '<tr><td>Record read</td><td>not read before the update (cooldown-check: false); read after the refusal: the next update is accepted from 16:01 UTC, 4 h 1 min after this run</td></tr>\n' +
        `<tr><td>Request</td><td><code>PATCH /bots/${BOT}/stats {&quot;command_count&quot;:14,&quot;server_count&quot;:1260}</code></td></tr>\n` +
        '<tr><td>Answer</td><td>429: You can only update stats once every 6 hours.</td></tr>\n' +
        '</table>\n' +
        '</details>\n'
    )
  })
})

// ---------------------------------------------------------------------------------------
// The counts table: a change only when one was made
// ---------------------------------------------------------------------------------------

describe('the counts table', () => {
  it.each<{
    label: string
    given: StatsOutcome
    column: string
    commands: string
    settings?: StatsSettings
  }>([
    { label: 'an update', given: ran(), column: 'Now', commands: '14 (+2)' },
    { label: 'a skip', given: skipped(), column: 'Would be sent', commands: '14' },
    { label: 'a dry run', given: dry(), column: 'Would be sent', commands: '14' },
    { label: 'the strike', given: strike(), column: 'Sent, not stored', commands: '14' },
    { label: 'the request limiter', given: limited(), column: 'Sent, not stored', commands: '14' },
    { label: 'a failure answered', given: failed(), column: 'Sent, not stored', commands: '14' },
    {
      label: 'a failure with no answer back',
      given: failed({ delivery: 'no-answer', status: undefined }),
      column: 'Sent, no answer',
      commands: '14'
    },
    {
      label: 'a failure before sending',
      given: failed({ delivery: 'not-sent', status: undefined }),
      column: 'Was to be sent',
      commands: '14'
    },
    {
      label: 'a dry run that failed, which sends nothing anyway',
      given: failed({ delivery: 'not-sent', status: undefined }),
      column: 'Would be sent',
      commands: '14',
      settings: staging({ 'dry-run': 'true' })
    }
  ])(
    '$label: the column says what became of the counts, a change only once stored',
    ({ given, column, commands, settings = staging() }) => {
      const page = renderSummary(settings, given)
      expect(countsHeader(page)).toEqual(['Count', 'Listed before', column, 'Source'])
      expect(page).toContain(
        `<tr><td>Commands</td><td>12</td><td>${commands}</td><td>input command-count</td></tr>`
      )
    }
  )

  const discord = staging({
    'command-count': '',
    'commands-file': 'commands.json',
    'discord-token': 'MTIz.abc.def'
  })
  const UNREAD = 'not read from Discord (only for an update that is due)'
  /** The counts table: the heads after "Listed before", then each row's cells. */
  const table = (heads: string[], ...rows: string[][]): string =>
    `<table>\n<tr><th>Count</th><th>Listed before</th>${heads.map(head => `<th>${head}</th>`).join('')}</tr>\n` +
    rows.map(cells => `<tr>${cells.map(cell => `<td>${cell}</td>`).join('')}</tr>\n`).join('') +
    '</table>\n'
  const fromFile: Partial<StatsOutcome> = {
    record: undefined,
    counts: {
      command: { value: 14, source: 'commands.json', read: true },
      server: undefined,
      warnings: []
    },
    body: { command_count: 14 }
  }
  it.each<[string, StatsOutcome, string | undefined, StatsSettings?]>([
    [
      'only a command count, no record read: no row for the servers',
      ran({
        record: undefined,
        counts: { ...BOTH, server: undefined },
        body: { command_count: 14 }
      }),
      table(['Now', 'Source'], ['Commands', '—', '14', 'input command-count'])
    ],
    [
      'only a server count, no record read',
      ran({
        record: undefined,
        counts: { ...BOTH, command: undefined },
        body: { server_count: 1260 }
      }),
      table(['Now', 'Source'], ['Servers', '—', '1,260', 'input server-count'])
    ],
    [
      'a count already listed: no change; a lower one: a signed decrease',
      ran({ record: read(7 * HOUR, { commands: 14, servers: 1300 }) }),
      table(
        ['Now', 'Source'],
        ['Commands', '14', '14', 'input command-count'],
        ['Servers', '1,300', '1,260 (−40)', 'input server-count']
      )
    ],
    [
      'no count resolved, a record read: dashes, no Source column',
      failed({ delivery: 'not-sent', status: undefined, counts: undefined, body: {} }),
      table(['Was to be sent'], ['Commands', '12', '—'], ['Servers', '1,204', '—'])
    ],
    [
      'no count and no record: no table',
      failed({ delivery: 'not-sent', counts: undefined, record: undefined, body: {} }),
      undefined
    ],
    ...(['recent', 'unverified', 'unchecked'] as const).map(
      (skip): [string, StatsOutcome, string, StatsSettings] => [
        `a skip (${skip}) before Discord was asked: the count Discord gives is "not read from Discord"`,
        skipped({ skip, ...fromFile }),
        table(
          ['Would be sent', 'Source'],
          ['Commands', '—', '14', 'commands.json'],
          ['Servers', '—', UNREAD, '—']
        ),
        discord
      ]
    ),
    [
      'a skip before Discord was asked, no count resolved: no Source column',
      skipped(NO_COUNTS),
      table(['Would be sent'], ['Commands', '12', UNREAD], ['Servers', '1,204', UNREAD]),
      discord
    ],
    [
      'a skip for want of a count, which asked Discord',
      skipped({ skip: 'nothing', ...fromFile }),
      table(['Would be sent', 'Source'], ['Commands', '—', '14', 'commands.json']),
      discord
    ],
    [
      'a dry run, which asked Discord',
      dry(NO_COUNTS),
      table(['Would be sent'], ['Commands', '12', '—'], ['Servers', '1,204', '—']),
      discord
    ]
  ])('%s', (_label, given, rows, settings = staging()) => {
    expect(countsTable(renderSummary(settings, given))).toBe(rows)
  })
})

// ---------------------------------------------------------------------------------------
// The folded details: what became of the record read, the request and the answer
// ---------------------------------------------------------------------------------------

describe('the details: each row in the words of its case', () => {
  const off = staging({ 'cooldown-check': 'false' })
  const PATH = `PATCH /bots/${BOT}/stats {&quot;command_count&quot;:14,&quot;server_count&quot;:1260}`
  const OFF = 'not read before the update (cooldown-check: false)'
  const no = (problem: 'unverified' | 'absent' | 'unreadable', status: number): RecordRead => ({
    ok: false,
    status,
    problem,
    reason: 'answered 503'
  })
  it.each<{
    label: string
    given: StatsOutcome
    key: string
    value: string | undefined
    settings?: StatsSettings
  }>([
    {
      label: 'no update times',
      given: ran({
        record: read(0, { commandsUpdatedAt: undefined, serversUpdatedAt: undefined })
      }),
      key: 'Record read',
      value: 'read; last update unknown'
    },
    {
      label: 'cooldown-check off, nothing sent',
      given: dry({ record: undefined }),
      key: 'Record read',
      value: 'not read (cooldown-check: false)',
      settings: off
    },
    {
      label: 'cooldown-check off, an update sent',
      given: ran({ record: undefined }),
      key: 'Record read',
      value: OFF,
      settings: off
    },
    {
      label: 'cooldown-check off, the strike: read after, not verified',
      given: strike({ record: undefined, strikeCause: 'unverified' }),
      key: 'Record read',
      value: `${OFF}; read after the refusal: not public, the bot is not verified yet (403)`,
      settings: off
    },
    {
      label: 'cooldown-check off, the strike: read after, no next time',
      given: strike({ record: undefined, nextUpdateAt: undefined }),
      key: 'Record read',
      value: `${OFF}; a read after the refusal did not show when the next update is accepted`,
      settings: off
    },
    {
      label: 'a run that ended before the read',
      given: failed({ record: undefined }),
      key: 'Record read',
      value: 'not read: the run ended before it'
    },
    {
      label: 'not verified yet',
      given: failed({ record: no('unverified', 403) }),
      key: 'Record read',
      value: 'not public: the bot is not verified yet (403)'
    },
    {
      label: 'no such bot',
      given: failed({ record: no('absent', 404) }),
      key: 'Record read',
      value: 'no such bot (404)'
    },
    {
      label: 'an unreadable record',
      given: failed({ record: no('unreadable', 503) }),
      key: 'Record read',
      value: 'could not be read: answered 503'
    },
    { label: 'no key check', given: ran(), key: 'Key check', value: undefined },
    {
      label: 'a dry run of an update that is due',
      given: dry(),
      key: 'Request',
      value: `not sent (a real run would send <code>${PATH}</code>)`
    },
    {
      label: 'a dry run not due',
      given: skipped({ result: 'dry-run' }),
      key: 'Request',
      value: `not sent (once an update is due, it would be <code>${PATH}</code>)`
    },
    {
      label: 'a failure before sending: no would-be request',
      given: failed({ delivery: 'not-sent', status: undefined }),
      key: 'Request',
      value: 'not sent'
    },
    {
      label: 'a skip for want of a count',
      given: skipped({ skip: 'nothing', body: {} }),
      key: 'Request',
      value: 'not sent: no count was left to send'
    },
    {
      label: 'a skip with no count: no request without counts',
      given: skipped(NO_COUNTS),
      key: 'Request',
      value: 'not sent'
    },
    {
      label: 'a run that sent nothing: no answer',
      given: skipped(),
      key: 'Answer',
      value: undefined
    },
    {
      label: 'an update answered with words',
      given: failed(),
      key: 'Answer',
      value: '400: Server count is off.'
    },
    {
      label: 'an update sent with no answer back',
      given: failed({ delivery: 'no-answer', status: undefined }),
      key: 'Answer',
      value: 'none (no answer came back)'
    },
    {
      label: 'an update the record shows arrived',
      given: ran({ delivery: 'arrived', status: undefined }),
      key: 'Answer',
      value: 'none (the connection failed), but the public record shows the update'
    }
  ])('$label', ({ given, key, value, settings = staging() }) => {
    expect(detail(renderSummary(settings, given), key)).toBe(value)
  })
})

// ---------------------------------------------------------------------------------------
// Outside text, errors and warnings in the summary
// ---------------------------------------------------------------------------------------

describe('outside text, errors and warnings in the summary', () => {
  /** HTML, control characters, a blank line that would end the HTML block, and the key. */
  const evil = `<b>x</b> & "q" 'a' \u001b[31m\u0007\n\n# Heading ${KEY}`
  const ESCAPED =
    '&lt;b&gt;x&lt;/b&gt; &amp; &quot;q&quot; &#39;a&#39; \\x1b[31m\\x07 # Heading ***'

  it('every text from outside is escaped, on one line, redacted, and the error is shown before the warnings with its `code` spans', () => {
    const pages = [
      renderSummary(
        staging(),
        failed({
          answer: evil,
          record: read(7 * HOUR, { username: evil }),
          keyCheck: { state: 'unchecked', reason: evil },
          counts: { ...BOTH, command: { value: 14, source: evil, read: true } },
          warnings: [evil],
          error: new ActionError(`${evil} Check \`server-count\` & \`command-count\`.`)
        })
      ),
      renderSummary(
        staging(),
        failed({ record: { ok: false, status: 503, problem: 'unreadable', reason: evil } })
      )
    ]
    const [page, unreadable] = pages as [string, string]
    expect(headlineOf(page)).toBe(`❌ ${ESCAPED}: failed`)
    expect(page).toContain(`<tr><td>Commands</td><td>12</td><td>14</td><td>${ESCAPED}</td></tr>`)
    expect(detail(page, 'Key check')).toBe(`not checked: ${ESCAPED}`)
    expect(detail(page, 'Answer')).toBe(`400: ${ESCAPED}`)
    expect(detail(unreadable, 'Record read')).toBe(`could not be read: ${ESCAPED}`)
    const error = `<p>❌ <strong>Error:</strong> ${ESCAPED} Check <code>server-count</code> &amp; <code>command-count</code>.</p>\n`
    const warning = `<p>⚠️ <strong>Warning:</strong> ${ESCAPED}</p>\n`
    expect(page.indexOf(error)).toBeGreaterThan(0)
    expect(page.indexOf(error)).toBeLessThan(page.indexOf(warning))
    for (const each of pages) {
      for (const raw of ['<b>', '\u001b', '\u0007', '\n\n']) expect(each).not.toContain(raw)
      expect(each).not.toContain(KEY)
    }
  })

  const many = (count: number): string[] =>
    Array.from({ length: count }, (_, i) => `Warning ${i + 1}.`)
  const shown = (page: string): number => page.split('<p>⚠️ <strong>Warning:</strong> ').length - 1
  it.each([
    [12, 8, ''],
    [13, 7, "<p>⚠️ 1 more warnings are in the step's log.</p>\n"]
  ])(
    "the run's and the counts' warnings, %i + 8: 20 shown one by one, the rest counted and left to the log",
    (count, last, rest) => {
      const counts = { ...BOTH, warnings: many(8).map(text => `Counts ${text}`) }
      const page = renderSummary(staging(), ran({ warnings: many(count), counts }))
      expect(shown(page)).toBe(20)
      expect(page).toContain(
        `<p>⚠️ <strong>Warning:</strong> Counts Warning ${last}.</p>\n${rest}<details>`
      )
    }
  )

  it('each warning is cut at 1,000 characters; a run that failed before its counts has its own warnings shown', () => {
    const page = renderSummary(staging(), ran({ counts: undefined, warnings: ['w'.repeat(1_001)] }))
    expect(page).toContain(
      `<p>⚠️ <strong>Warning:</strong> ${'w'.repeat(1_000)}… (1 more characters not shown)</p>\n`
    )
    expect(shown(page)).toBe(1)
  })
})

// ---------------------------------------------------------------------------------------
// Annotations
// ---------------------------------------------------------------------------------------

describe('the annotations', () => {
  const many = (count: number): string[] => Array.from({ length: count }, (_, i) => `W${i + 1}.`)
  /** The outcome's own line: a log line, or an annotation with its title. */
  const first = (given: StatsOutcome): string => {
    const line = outcomeLine(given, BOT)
    return line.kind === 'info' ? line.text : `::${line.kind} title=${line.title}::${line.text}`
  }

  it.each<[string, StatsOutcome, number, string[]]>([
    ['an update (a log line), 10 warnings', ran({ warnings: many(10) }), 10, []],
    [
      'an update (a log line), 11 warnings',
      ran({ warnings: many(11) }),
      9,
      ['::warning::2 more warnings: W10. | W11.']
    ],
    ['a skip (a notice), 3 warnings', skipped({ warnings: many(3) }), 3, []],
    ['the request limiter (a warning), 9 warnings', limited({ warnings: many(9) }), 9, []],
    [
      'the request limiter (a warning), 10 warnings',
      limited({ warnings: many(10) }),
      8,
      ['::warning::2 more warnings: W9. | W10.']
    ],
    [
      // The strike has no annotation of its own: its ::error:: is the step failure.
      "the strike (a log line), the run's 4 warnings then the counts' 7",
      strike({ warnings: many(4), counts: { ...BOTH, warnings: many(11).slice(4) } }),
      9,
      ['::warning::2 more warnings: W10. | W11.']
    ]
  ])(
    '%s: the outcome first, at most 10 warnings, the rest folded into one',
    (_label, given, count, folded) => {
      const { lines } = capturedStdout()
      announce(given, BOT)
      expect(lines()).toEqual([
        first(given),
        ...many(count).map(text => `::warning::${text}`),
        ...folded
      ])
    }
  )

  it('a skip whose record could not be checked: a notice, then the warning that explains it first among the warnings', async () => {
    const clock = new TestClock(AT.getTime())
    const emulator = await emulatedBot(clock)
    for (let i = 0; i < 3; i++)
      emulator.inject('record', { kind: 'answer', status: 503, body: 'busy' })
    const { outcome } = await statsRun(statsInputs(emulator), { clock })
    const { lines } = capturedStdout()
    announce({ ...outcome, counts: { ...outcome.counts!, warnings: many(12) } }, BOT)
    const printed = lines()
    expect(printed[0]).toBe(first(outcome))
    expect(printed[0]).toMatch(
      /^::notice title=Stats not sent::Stats not sent: the bot's public record could not be checked/
    )
    const warnings = printed.filter(line => line.startsWith('::warning'))
    expect(warnings).toHaveLength(10)
    expect(warnings[0]).toMatch(
      /^::warning::Stats not sent: the bot's public record could not be checked \(the service answered 503\)/
    )
    expect(warnings[9]).toMatch(/^::warning::4 more warnings: /)
  })

  it('text from outside starts no workflow command: ##[ is inert in warnings and log lines, :: never starts a line, the key is gone', () => {
    const { lines } = capturedStdout()
    const hostile = `##[error]forged ##[add-mask]x\n::error::forged ${KEY}`
    announce(
      strike({ warnings: [hostile], counts: { ...BOTH, warnings: [`Manifest says ${hostile}`] } }),
      BOT
    )
    const printed = lines()
    expect(printed.length).toBeGreaterThan(1)
    for (const line of printed) {
      expect(line, 'no legacy ##[ command anywhere in a line').not.toContain('##[')
      expect(line, 'no line of text from outside starts a command').not.toMatch(
        /^\s*::(?!warning|notice)/
      )
      expect(line, 'the key is redacted').not.toContain(KEY)
    }
    expect(printed.join('\n')).toContain('# #[error]forged')
  })
})

// ---------------------------------------------------------------------------------------
// The outputs, and what reportStats leaves for the runner
// ---------------------------------------------------------------------------------------

describe('the outputs', () => {
  it.each<[string, () => Promise<StatsOutcome> | StatsOutcome, Record<string, string>]>([
    [
      'a run skipped by the record check: the count it would send and next-update-at, no status (the record read is not the update)',
      () => run(2 * HOUR),
      {
        result: 'skipped',
        'command-count': '14',
        'next-update-at': '2026-11-24T16:01:00.000Z',
        'last-updated-at': '2026-11-24T10:00:00.000Z'
      }
    ],
    [
      "the strike, from a run with cooldown-check off: the answer's status; no record read before, so no last update known",
      () => run(2 * HOUR, { 'cooldown-check': 'false' }),
      {
        result: 'cooldown',
        'command-count': '14',
        status: '429',
        'next-update-at': '2026-11-24T16:01:00.000Z'
      }
    ],
    [
      "a strike after another run's update: the last update is that run's, later than the record read before",
      () => strike({ strikeCause: 'overlap', overlap: fromStart(-1), nextUpdateAt: undefined }),
      {
        result: 'cooldown',
        'command-count': '14',
        'server-count': '1260',
        status: '429',
        'last-updated-at': '2026-11-24T11:59:00.000Z'
      }
    ],
    [
      "a failed run keeps the outputs it knows: the refusal is in status, the last update is the record's",
      () => failed(),
      {
        result: 'failed',
        'command-count': '14',
        'server-count': '1260',
        status: '400',
        'last-updated-at': '2026-11-24T05:00:00.000Z'
      }
    ],
    [
      "only the counts that were sent; the last update is this run's",
      () => ran({ body: { server_count: 1260 }, status: undefined, nextUpdateAt: undefined }),
      { result: 'updated', 'server-count': '1260', 'last-updated-at': '2026-11-24T12:00:00.000Z' }
    ]
  ])('%s', async (_label, make, outputs) => {
    const given = await make()
    const files = runnerFiles()
    writeOutputs(given)
    expect(files.outputs()).toEqual(outputs)
  })

  it('an update: every output, the section followed by a line break, one log line, and no failure', async () => {
    const runner = runnerFiles()
    const { text } = capturedStdout()
    const given = ran()
    expect(await reportStats(staging(), given)).toBeUndefined()
    expect(runner.outputs()).toEqual({
      result: 'updated',
      'command-count': '14',
      'server-count': '1260',
      status: '200',
      'next-update-at': '2026-11-24T18:01:00.000Z',
      'last-updated-at': '2026-11-24T12:00:00.000Z'
    })
    expect(runner.summary()).toBe(`${renderSummary(staging(), given)}\n`)
    expect(text()).toBe(`${outcomeLine(given, BOT).text}\n`)
  })

  it('outputs that cannot be written: the failure is returned, and the summary marks the step failed, keeping what happened', async () => {
    const runner = runnerFiles({ output: 'directory' })
    const { text } = capturedStdout()
    const failure = await reportStats(staging(), ran())
    expect(failure).toMatch(
      /^The step's outputs could not be written to GITHUB_OUTPUT \(.*\); later steps will not see them\./
    )
    expect(headlineOf(runner.summary())).toBe(
      '❌ Example Bot: updated, next update from 18:01 UTC, 6 h 1 min after this run; the step failed: its outputs could not be written'
    )
    expect(runner.summary()).toContain(
      '<p>❌ <strong>Error:</strong> The step&#39;s outputs could not be written to GITHUB_OUTPUT ('
    )
    expect(text(), 'the failure is the step error main.ts prints, not a warning').not.toContain(
      '::warning'
    )
  })

  it("outputs that cannot be written after a failure: the failure returned is the run's, the outputs one is a warning", async () => {
    const runner = runnerFiles({ output: 'directory' })
    const { text } = capturedStdout()
    const failure = await reportStats(
      staging(),
      failed({ error: new ActionError('The update failed.') })
    )
    expect(failure).toBe('The update failed.')
    expect(text()).toMatch(/^::warning::The step's outputs could not be written to GITHUB_OUTPUT/m)
    expect(headlineOf(runner.summary())).toBe('❌ Example Bot: failed')
  })

  it('a hostile outcome: the section stays whole and under the cap, with the headline and the error, and never the key', async () => {
    /**
     * 64 KB that HTML escaping makes six times longer, with the key in it: escaped whole, any one
     * would pass the cap.
     */
    const huge = (label: string): string => `${label} ${KEY} ${'"'.repeat(64 * 1024)}`
    const hostile = failed({
      answer: huge('answer'),
      keyCheck: { state: 'unchecked', reason: huge('reason') },
      counts: {
        command: { value: 14, source: huge('source'), read: true },
        server: undefined,
        warnings: [huge('manifest')]
      },
      warnings: Array.from({ length: 30 }, (_, i) => huge(`warning ${i}`)),
      error: new ActionError(huge('error'))
    })
    const files = runnerFiles()
    const { lines } = capturedStdout()
    const failure = await reportStats(live(), hostile)
    const section = files.summary()
    // Each text is bounded before it is escaped: the section is whole, not cut at the cap.
    expect(section.length).toBeLessThan(256 * 1024)
    expect(section).not.toContain('The rest of this section was cut')
    expect(section).toMatch(/<\/details>\s*$/)
    expect(headlineOf(section)).toMatch(/: failed$/)
    expect(section).toContain('❌ <strong>Error:</strong> error ')
    expect(section).not.toContain(KEY)
    expect(failure?.startsWith('error ')).toBe(true)
    // Every printed line is bounded too, and at most 10 warnings are printed.
    for (const line of lines()) expect(line.length).toBeLessThan(40_000)
    expect(lines().filter(line => line.startsWith('::warning'))).toHaveLength(10)
    expect(lines().join('\n')).not.toContain(KEY)
  })
})
