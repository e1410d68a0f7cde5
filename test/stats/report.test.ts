/**
 * The stats mode's report (src/stats/report.ts): the summary section (HTML), the outputs and
 * the annotations. Outcomes come from runStats against the service emulator where a run can
 * make them, and are built by hand for what a run rarely meets (hostile or huge texts).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { ActionError } from '../../src/errors.js'
import { addSecret, clearSecrets } from '../../src/secrets.js'
import type { StatsSettings } from '../../src/settings.js'
import type { Counts } from '../../src/stats/outcome.js'
import { strikeMessage } from '../../src/stats/answers.js'
import type { RecordRead } from '../../src/stats/window.js'
import { announce, outcomeLine, renderSummary, reportStats, writeOutputs } from '../../src/stats/report.js'
import type { StatsOutcome } from '../../src/stats/outcome.js'
import { MAX_SECTION_CHARS } from '../../src/summary.js'
import { BOT, emulatedBot, HOUR, KEY, settingsFor, statsInputs, statsRun, TestClock } from '../support/inprocess.js'
import { capturedStdout, runnerFiles } from '../support/step.js'

/** The TestClock's start: every outcome is decided then. */
const AT = new Date('2026-11-24T12:00:00Z')
const MIB = 1024 * 1024

beforeAll(() => {
  // As settings.ts does for the api-key input: every form of the key is redacted from now on.
  addSecret(KEY)
})
afterAll(() => clearSecrets())

// ---------------------------------------------------------------------------------------
// Outcomes: by hand, and from runs against the emulator
// ---------------------------------------------------------------------------------------

/** Settings of a step with the live service's address (the default), unless told otherwise. */
function settings(more: Record<string, string> = {}): StatsSettings {
  return settingsFor<StatsSettings>({ 'bot-id': BOT, 'api-key': KEY, 'command-count': '14', 'server-count': '1260', ...more })
}

/** The bot's public record, last updated `ago` ms before AT: 12 commands, 1,204 servers. */
function recordRead(ago = 7 * HOUR, over: { username?: string; commands?: number; servers?: number } = {}): RecordRead {
  const at = new Date(AT.getTime() - ago)
  return {
    ok: true,
    status: 200,
    record: { username: 'Example Bot', commands: 12, servers: 1204, commandsUpdatedAt: at, serversUpdatedAt: at, ...over }
  }
}

const COUNTS: Counts = {
  command: { value: 14, source: 'input command-count', read: false },
  server: { value: 1260, source: 'input server-count', read: false },
  warnings: []
}

/** An update that went through, unless `fields` say otherwise. */
function outcome(fields: Partial<StatsOutcome> = {}): StatsOutcome {
  return {
    result: 'updated',
    counts: COUNTS,
    body: { command_count: 14, server_count: 1260 },
    delivery: 'answered',
    record: recordRead(),
    status: 200,
    answer: undefined,
    nextUpdateAt: new Date(AT.getTime() + 6 * HOUR + 60_000),
    skip: undefined,
    overlap: undefined,
    strikeCause: undefined,
    keyCheck: undefined,
    warnings: [],
    error: undefined,
    at: AT,
    ...fields
  }
}

const SKIPPED = outcome({
  result: 'skipped',
  skip: 'recent',
  delivery: 'not-sent',
  status: undefined,
  record: recordRead(2 * HOUR),
  nextUpdateAt: new Date(AT.getTime() + 4 * HOUR + 60_000),
  keyCheck: { state: 'valid' }
})
const STRIKE_FIELDS = {
  result: 'cooldown',
  status: 429,
  answer: 'You can only update stats once every 6 hours.',
  nextUpdateAt: new Date(AT.getTime() + 4 * HOUR + 60_000),
  overlap: undefined,
  strikeCause: 'unknown',
  at: AT
} as const
const STRIKE = outcome({ ...STRIKE_FIELDS, error: new ActionError(strikeMessage(STRIKE_FIELDS, BOT)) })
const FAILED = outcome({
  result: 'failed',
  status: 400,
  answer: 'Server count is off.',
  nextUpdateAt: undefined,
  error: new ActionError('Stats update failed: the service answered 400 with "Server count is off.". Check `server-count`.')
})
const DRY = outcome({ result: 'dry-run', delivery: 'not-sent', status: undefined, keyCheck: { state: 'valid' } })
const LIMITED = outcome({
  result: 'rate-limited',
  status: 429,
  answer: 'Too many requests, please try again later.',
  nextUpdateAt: new Date(AT.getTime() + 30 * 60_000)
})

/** A run of the stats mode against the emulator, the bot last updated `ago` before the clock's start. */
async function run(ago: number, more: Record<string, string> = {}): Promise<StatsOutcome> {
  const clock = new TestClock(AT.getTime())
  const emulator = await emulatedBot(clock, { ago })
  return (await statsRun(statsInputs(emulator, more), { clock })).outcome
}

function headline(page: string): string {
  const found = /<h3>([\s\S]*?)<\/h3>/.exec(page)
  expect(found, 'a headline').not.toBeNull()
  return found![1]!
}

/** The page without its folded details, and the details alone. */
function split(page: string): { shown: string; folded: string } {
  const found = /<details>[\s\S]*?<\/details>/.exec(page)
  expect(found, 'a <details> section').not.toBeNull()
  return { shown: page.replace(found![0], ''), folded: found![0] }
}

/** The header cells of the counts table. */
function countsHeader(page: string): string[] {
  const header = /<tr><th>Count<\/th>([\s\S]*?)<\/tr>/.exec(page)
  expect(header, 'a counts table').not.toBeNull()
  return ['Count', ...[...header![1]!.matchAll(/<th>([\s\S]*?)<\/th>/g)].map(match => match[1]!)]
}

// ---------------------------------------------------------------------------------------
// The headline
// ---------------------------------------------------------------------------------------

describe('the headline', () => {
  const bot = `<a href="https://discord.place/bots/${BOT}">Example Bot</a>`

  it("names the bot by its listing's name, linked to its page, and says the update went through", () => {
    expect(headline(renderSummary(settings(), outcome()))).toBe(`✅ ${bot}: updated, next update from 18:01 UTC, 6 h 1 min after this run`)
  })

  it('a run skipped by the record check: "not sent: too soon" and from when the next update goes', async () => {
    const skipped = await run(2 * HOUR)
    expect(skipped.result).toBe('skipped')
    expect(headline(renderSummary(settings(), skipped))).toBe(
      `⏭️ ${bot}: not sent: too soon, next update from 16:01 UTC, 4 h 1 min after this run`
    )
  })

  it('the 6-hour refusal: "refused: strike counted"', async () => {
    const refused = await run(2 * HOUR, { 'cooldown-check': 'false' })
    expect(refused.result).toBe('cooldown')
    // No record read before the update: the bot is named by its ID.
    expect(headline(renderSummary(settings(), refused))).toBe(
      `🛑 <a href="https://discord.place/bots/${BOT}">Bot ${BOT}</a>: refused: strike counted`
    )
  })

  it('the 6-hour refusal after another run updated first says so', () => {
    const overlap = outcome({ ...STRIKE, overlap: new Date(AT.getTime() - 60_000) })
    expect(headline(renderSummary(settings(), overlap))).toBe(`🛑 ${bot}: refused: strike counted (another run updated first)`)
  })

  it.each([
    ['a failure', FAILED, `❌ ${bot}: failed`],
    ['a dry run', DRY, `🧪 ${bot}: dry run: nothing sent, a real run would send`],
    [
      'the request limiter',
      LIMITED,
      `⏸️ ${bot}: turned away by the rate limit, no strike; try again from 12:30 UTC, 30 min after this run`
    ],
    [
      'a record that could not be checked',
      outcome({ ...SKIPPED, skip: 'unchecked', nextUpdateAt: undefined }),
      `⚠️ ${bot}: not sent: the bot&#39;s record could not be checked`
    ]
  ])('%s', (_, given, expected) => {
    expect(headline(renderSummary(settings(), given))).toBe(expected)
  })

  it('names the bot by its ID, without a link, for another base-url; a hostile name is text', () => {
    const local = settings({ 'base-url': 'http://127.0.0.1:8080' })
    expect(headline(renderSummary(local, outcome({ record: recordRead(7 * HOUR, { username: undefined }) })))).toMatch(
      new RegExp(`^✅ Bot ${BOT}: updated`)
    )
    const hostile = renderSummary(local, outcome({ record: recordRead(7 * HOUR, { username: '<img src=x onerror=alert(1)>' }) }))
    expect(headline(hostile)).toMatch(/^✅ &lt;img src=x onerror=alert\(1\)&gt;: updated/)
    expect(headline(hostile)).not.toContain('<a ')
    expect(hostile).not.toContain('<img')
  })
})

// ---------------------------------------------------------------------------------------
// The counts: a change only when one was made
// ---------------------------------------------------------------------------------------

describe('the counts table', () => {
  it('after an update: the counts now, with their change against the listing', () => {
    const page = renderSummary(settings(), outcome())
    expect(countsHeader(page)).toEqual(['Count', 'Listed before', 'Now', 'Source'])
    expect(page).toContain('<tr><td>Commands</td><td>12</td><td>14 (+2)</td><td>input command-count</td></tr>')
    expect(page).toContain('<tr><td>Servers</td><td>1,204</td><td>1,260 (+56)</td><td>input server-count</td></tr>')
  })

  it('shows a decrease with its sign', () => {
    expect(renderSummary(settings(), outcome({ record: recordRead(7 * HOUR, { servers: 1300 }) }))).toContain('1,260 (−40)')
  })

  it.each([
    ['skipped', SKIPPED],
    ['refused (a strike)', STRIKE],
    ['turned away by the limiter', LIMITED],
    ['failed', FAILED],
    ['a dry run', DRY]
  ])('claims no change when nothing was stored (%s): "Would be sent" or "Sent, not stored", and no (+N)', (_, given) => {
    const page = renderSummary(settings(), given)
    const column = given.delivery === 'not-sent' ? 'Would be sent' : 'Sent, not stored'
    expect(countsHeader(page)).toEqual(['Count', 'Listed before', column, 'Source'])
    expect(page).toContain('<tr><td>Commands</td><td>12</td><td>14</td><td>input command-count</td></tr>')
    expect(page).not.toMatch(/\([+−-]\d/)
    expect(page).not.toContain('<th>Now</th>')
  })

  it('a count left out is a dash, with no source', () => {
    const page = renderSummary(settings(), outcome({ counts: { ...COUNTS, server: undefined }, body: { command_count: 14 } }))
    expect(page).toContain('<tr><td>Servers</td><td>1,204</td><td>—</td><td>—</td></tr>')
  })

  it('a skip before Discord was asked: the count is "not read from Discord", and no filler', () => {
    const skipped = outcome({ ...SKIPPED, counts: { command: undefined, server: undefined, warnings: [] }, body: {} })
    const page = renderSummary(settings({ 'command-count': '', 'server-count': '', 'discord-token': 'a-discord-token-0123' }), skipped)
    expect(countsHeader(page), 'no Source column when no count was resolved').toEqual(['Count', 'Listed before', 'Would be sent'])
    expect(page).toContain('<tr><td>Commands</td><td>12</td><td>not read from Discord (only for an update that is due)</td></tr>')
    expect(page).not.toMatch(/not sent \(would be|<td><\/td>/)
    expect(split(page).folded).toContain('<tr><td>Request</td><td>not sent</td></tr>')
  })

  it('a count Discord was asked for (a dry run, a failure) is a dash, never "not read from Discord"', () => {
    const given = settings({ 'command-count': '', 'server-count': '', 'discord-token': 'a-discord-token-0123' })
    const noCounts = { counts: { command: undefined, server: undefined, warnings: [] }, body: {} }
    for (const ran of [outcome({ ...DRY, ...noCounts }), outcome({ ...FAILED, ...noCounts, delivery: 'not-sent', status: undefined })]) {
      const page = renderSummary(given, ran)
      expect(page).toContain('<tr><td>Commands</td><td>12</td><td>—</td></tr>')
      expect(page).not.toContain('not read from Discord')
    }
  })

  it('a failed run that sent nothing: "Was to be sent", but "Would be sent" in a dry run, which sends nothing anyway', () => {
    const failed = outcome({ ...FAILED, delivery: 'not-sent', status: undefined })
    expect(countsHeader(renderSummary(settings(), failed))[2]).toBe('Was to be sent')
    expect(countsHeader(renderSummary(settings({ 'dry-run': 'true' }), failed))[2]).toBe('Would be sent')
  })

  it('an update sent with no answer back is "Sent, no answer", not "not stored"', () => {
    const page = renderSummary(settings(), outcome({ ...FAILED, delivery: 'no-answer', status: undefined }))
    expect(countsHeader(page)).toEqual(['Count', 'Listed before', 'Sent, no answer', 'Source'])
  })

  it('a count neither the listing nor the run knows has no row', () => {
    const page = renderSummary(
      settings(),
      outcome({ record: undefined, counts: { ...COUNTS, server: undefined }, body: { command_count: 14 } })
    )
    expect(page).not.toContain('<td>Servers</td>')
  })
})

// ---------------------------------------------------------------------------------------
// What is shown, and what is folded
// ---------------------------------------------------------------------------------------

describe('the request and the answer', () => {
  it('are folded in <details> with the service address; the headline and counts are not', () => {
    const { shown, folded } = split(renderSummary(settings(), outcome()))
    expect(folded).toContain('<summary>Request and answer</summary>')
    expect(folded).toContain(`<code>PATCH /bots/${BOT}/stats {&quot;command_count&quot;:14,&quot;server_count&quot;:1260}</code>`)
    expect(folded).toContain('<tr><td>Answer</td><td>200</td></tr>')
    expect(folded).toContain('<a href="https://api.discord.place">https://api.discord.place</a>')
    expect(shown).toContain('<h3>')
    expect(shown).toContain('<th>Count</th>')
    for (const detail of ['PATCH', 'api.discord.place', 'Answer', 'Record read']) expect(shown).not.toContain(detail)
  })

  it('a run that sent nothing says so, and shows no answer', () => {
    const { folded } = split(renderSummary(settings(), SKIPPED))
    expect(folded).toContain(`not sent (once an update is due, it would be <code>PATCH /bots/${BOT}/stats`)
    // A dry run that a real run would skip never promises a send.
    const skippedDry = split(renderSummary(settings(), outcome({ ...SKIPPED, result: 'dry-run' }))).folded
    expect(skippedDry).not.toContain('a real run would send')
    expect(folded).not.toContain('<td>Answer</td>')
    expect(folded).toContain('<tr><td>Key check</td><td>the key is valid</td></tr>')
  })

  it('a dropped update that the record shows arrived', () => {
    const { folded } = split(renderSummary(settings(), outcome({ delivery: 'arrived', status: undefined })))
    expect(folded).toContain('none (the connection failed), but the public record shows the update')
  })
})

describe('an error', () => {
  const error = new ActionError(
    `Stats update failed: the service answered 400 with "<script>alert(1)</script> for ${KEY}". Check \`server-count\` & \`command-count\`.`
  )
  // Rendered in each test: the key is registered (beforeAll) after the tests are collected.
  const render = (): string => renderSummary(settings(), outcome({ ...FAILED, error }))

  it('is visible, not folded, with its mark, and its `code` spans rendered as code', () => {
    const { shown } = split(render())
    expect(shown).toContain('<p>❌ <strong>Error:</strong> Stats update failed: the service answered 400')
    expect(shown).toContain('Check <code>server-count</code> &amp; <code>command-count</code>.')
  })

  it('is HTML-escaped and redacted', () => {
    const page = render()
    expect(page).not.toContain('<script')
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt; for ***')
    expect(page).not.toContain(KEY)
  })

  it('an outputs failure is shown as an error too', () => {
    const shown = renderSummary(settings(), outcome(), "The step's outputs could not be written to GITHUB_OUTPUT (EACCES).")
    expect(shown).toContain('<p>❌ <strong>Error:</strong> The step&#39;s outputs could not be written to GITHUB_OUTPUT (EACCES).</p>')
  })

  it('an outputs failure marks the headline failed, keeping what happened to the update', () => {
    const shown = renderSummary(settings(), outcome(), "The step's outputs could not be written to GITHUB_OUTPUT (EACCES).")
    expect(shown).toMatch(
      /^<h3>❌ <a [^>]+>Example Bot<\/a>: updated, next update from .*; the step failed: its outputs could not be written<\/h3>/
    )
    expect(renderSummary(settings(), outcome())).toMatch(/^<h3>✅ /)
  })
})

// ---------------------------------------------------------------------------------------
// A safe skip is not a strike
// ---------------------------------------------------------------------------------------

describe('the safe skip and the strike never share a word', () => {
  const skips: [string, StatsOutcome][] = [
    ['too soon', SKIPPED],
    ['unchecked record', outcome({ ...SKIPPED, skip: 'unchecked', nextUpdateAt: undefined })],
    ['nothing to send', outcome({ ...SKIPPED, skip: 'nothing', nextUpdateAt: undefined })],
    ['not verified yet', outcome({ ...SKIPPED, skip: 'unverified', nextUpdateAt: undefined, record: undefined })]
  ]

  it.each(skips)('a skip (%s): no "cooldown", "strike" or "refused" in its headline or annotation title', (_, skipped) => {
    const words = [headline(renderSummary(settings(), skipped)), outcomeLine(skipped).title]
    for (const text of words) expect(text).not.toMatch(/cooldown|strike|refused/i)
    expect(outcomeLine(skipped)).toMatchObject({ kind: 'notice', title: 'Stats not sent' })
  })

  it('the strike: no "not sent", "too soon" or "skipped" in its headline or annotation title', () => {
    for (const text of [headline(renderSummary(settings(), STRIKE)), outcomeLine(STRIKE).title]) {
      expect(text).toMatch(/strike counted/)
      expect(text).not.toMatch(/not sent|too soon|skip/i)
    }
    // Not a warning: the strike fails the step, and its one ::error:: (the outcome's error) says why.
    expect(outcomeLine(STRIKE)).toMatchObject({ kind: 'info', title: 'Update refused: strike counted' })
    expect(STRIKE.error?.message).toMatch(/counted a strike against the API key, and 5 strikes within 6 hours revoke it/)
  })

  it('the request limiter counts no strike, and says so', () => {
    const line = outcomeLine(LIMITED)
    expect(line.title).toBe('Update turned away by the rate limit (no strike)')
    expect(line.text).toMatch(/no strike was counted/)
    expect(headline(renderSummary(settings(), LIMITED))).not.toMatch(/strike counted/)
  })
})

// ---------------------------------------------------------------------------------------
// Outputs
// ---------------------------------------------------------------------------------------

describe('the outputs', () => {
  it('a skipped run: result skipped, the counts it would send, next-update-at, and no status (the record read is not the update)', async () => {
    const skipped = await run(2 * HOUR)
    const files = runnerFiles()
    writeOutputs(skipped)
    expect(files.outputs()).toEqual({
      result: 'skipped',
      'command-count': '14',
      'next-update-at': new Date(AT.getTime() - 2 * HOUR + 6 * HOUR + 60_000).toISOString()
    })
  })

  it("the strike: result cooldown and the answer's status", async () => {
    const refused = await run(2 * HOUR, { 'cooldown-check': 'false' })
    const files = runnerFiles()
    writeOutputs(refused)
    expect(files.outputs()).toMatchObject({ result: 'cooldown', status: '429', 'command-count': '14' })
  })

  it('a failed run keeps the outputs it knows: the refusal is in status', () => {
    const files = runnerFiles()
    writeOutputs(FAILED)
    expect(files.outputs()).toEqual({ result: 'failed', 'command-count': '14', 'server-count': '1260', status: '400' })
  })
})

// ---------------------------------------------------------------------------------------
// Annotations
// ---------------------------------------------------------------------------------------

describe('the annotations', () => {
  const many = (label: string, count: number): string[] => Array.from({ length: count }, (_, i) => `${label} warning ${i + 1}.`)

  it('the strike: no warning of its own (its ::error:: is the step failure), and at most 10 warnings are printed, the rest folded into the last', () => {
    const { lines } = capturedStdout()
    announce(outcome({ ...STRIKE, warnings: many('Run', 8), counts: { ...COUNTS, warnings: many('Manifest', 7) } }))
    const warnings = lines().filter(line => line.startsWith('::warning'))
    expect(warnings).toHaveLength(10)
    expect(lines().filter(line => /strike/i.test(line) && line.startsWith('::'))).toEqual([])
    expect(warnings[0]).toBe('::warning::Run warning 1.')
    expect(warnings[9]).toMatch(/^::warning::6 more warnings: Manifest warning 2\. \| .* \| Manifest warning 7\.$/)
  })

  it('a skip whose record could not be checked: a notice, then the warning that explains it first among the warnings', async () => {
    const clock = new TestClock(AT.getTime())
    const emulator = await emulatedBot(clock)
    for (let i = 0; i < 3; i++) emulator.inject('record', { kind: 'answer', status: 503, body: 'busy' })
    const { outcome: skipped } = await statsRun(statsInputs(emulator), { clock })
    const { lines } = capturedStdout()
    announce({ ...skipped, counts: { ...skipped.counts!, warnings: many('Manifest', 12) } })
    const printed = lines()
    expect(printed[0]).toMatch(/^::notice title=Stats not sent::Stats not sent: the bot's public record could not be checked/)
    const warnings = printed.filter(line => line.startsWith('::warning'))
    expect(warnings).toHaveLength(10)
    expect(warnings[0]).toMatch(/^::warning::Stats not sent: the bot's public record could not be checked \(the service answered 503\)/)
    expect(warnings[9]).toMatch(/^::warning::4 more warnings: /)
  })

  it('text from outside starts no workflow command: ##[ is inert in warnings and log lines, :: never starts a line, the key is gone', () => {
    const { lines } = capturedStdout()
    const hostile = `##[error]forged ##[add-mask]x\n::error::forged ${KEY}`
    announce(outcome({ ...STRIKE, warnings: [hostile], counts: { ...COUNTS, warnings: [`Manifest says ${hostile}`] } }))
    const printed = lines()
    expect(printed.length).toBeGreaterThan(1)
    for (const line of printed) {
      expect(line, 'no legacy ##[ command anywhere in a line').not.toContain('##[')
      expect(line, 'no line of text from outside starts a command').not.toMatch(/^\s*::(?!warning|notice)/)
      expect(line, 'the key is redacted').not.toContain(KEY)
    }
    expect(printed.join('\n')).toContain('# #[error]forged')
  })

  it('an update: one log line, no annotation', () => {
    const { lines } = capturedStdout()
    announce(outcome())
    expect(lines()).toEqual([
      'Stats updated ({"command_count":14,"server_count":1260}). The next update is accepted from 18:01 UTC, 6 h 1 min after this run.'
    ])
  })
})

// ---------------------------------------------------------------------------------------
// A hostile outcome: the section stays within the runner's limit
// ---------------------------------------------------------------------------------------

describe('a hostile outcome', () => {
  /**
   * 64 KB of text that HTML escaping makes six times longer, with the key in it: escaped whole,
   * any one of them would pass the section's cap, and all 35 together the runner's 1 MiB.
   */
  const huge = (label: string): string => `${label} ${KEY} ${'"'.repeat(64 * 1024)}`
  const hostile = outcome({
    result: 'failed',
    status: 400,
    answer: huge('answer'),
    nextUpdateAt: undefined,
    keyCheck: { state: 'unchecked', reason: huge('reason') },
    counts: { command: { value: 14, source: huge('source'), read: true }, server: undefined, warnings: [huge('manifest')] },
    warnings: Array.from({ length: 30 }, (_, i) => huge(`warning ${i}`)),
    error: new ActionError(huge('error'))
  })

  it('keeps the section under 1 MiB, with the headline and the error in it, and never the key', async () => {
    const files = runnerFiles()
    const { lines } = capturedStdout()
    const failure = await reportStats(settings(), hostile)
    const section = files.summary()
    expect(Buffer.byteLength(section)).toBeLessThan(MIB / 2)
    expect(headline(section)).toMatch(/: failed$/)
    expect(section).toContain('❌ <strong>Error:</strong> error ')
    // Each text is bounded before it is escaped: the section is whole, not cut at the cap.
    expect(section).not.toContain('The rest of this section was cut')
    expect(section).toMatch(/<\/details>\s*$/)
    expect(section).not.toContain(KEY)
    expect(failure?.startsWith('error ')).toBe(true)
    // Every printed line is bounded too, and at most 10 warnings are printed.
    for (const line of lines()) expect(line.length).toBeLessThan(40_000)
    expect(lines().filter(line => line.startsWith('::warning'))).toHaveLength(10)
    expect(lines().join('\n')).not.toContain(KEY)
  })

  it('renders each text bounded: the section is under the cap of writeSection on its own', () => {
    expect(renderSummary(settings(), hostile).length).toBeLessThan(MAX_SECTION_CHARS)
  })
})

// ---------------------------------------------------------------------------------------
// Every word true of the run (interface.md, "The key's guardian")
// ---------------------------------------------------------------------------------------

describe('no line describes what did not happen', () => {
  const recordRow = (page: string): string => /<tr><td>Record read<\/td><td>(.*?)<\/td><\/tr>/.exec(page)?.[1] ?? ''

  it.each([
    ['cooldown-check off', { 'cooldown-check': 'false' }, undefined, 'not read before the update (cooldown-check: false)'],
    ['a run that failed before the read', {}, undefined, 'not read: the run ended before it'],
    [
      'a bot not verified yet',
      {},
      { ok: false, status: 403, problem: 'unverified', reason: 'x' } as const,
      'not public: the bot is not verified yet (403)'
    ],
    ['no such bot', {}, { ok: false, status: 404, problem: 'absent', reason: 'x' } as const, 'no such bot (404)'],
    [
      'an unreadable record',
      {},
      { ok: false, status: 503, problem: 'unreadable', reason: 'the service answered 503' } as const,
      'could not be read: the service answered 503'
    ]
  ])('the record read, %s: its own words', (_, more, record, words) => {
    const page = renderSummary(settings(more), outcome({ ...FAILED, record }))
    expect(recordRow(page)).toBe(words)
  })

  it('"The stats update failed" only when an update was attempted', () => {
    expect(outcomeLine(FAILED).text).toBe('The stats update failed; the error says why.')
    expect(outcomeLine(outcome({ ...FAILED, delivery: 'not-sent', status: undefined })).text).toBe(
      'The run failed before any stats update was sent; the error says why.'
    )
  })

  it('no would-be request without counts, and no would-be request for a run that failed', () => {
    const empty = split(renderSummary(settings(), outcome({ ...SKIPPED, skip: 'nothing', body: {} }))).folded
    expect(empty).toContain('<tr><td>Request</td><td>not sent: no count was left to send</td></tr>')
    expect(empty).not.toContain('{}')
    const failed = split(renderSummary(settings(), outcome({ ...FAILED, delivery: 'not-sent', status: undefined }))).folded
    expect(failed).toContain('<tr><td>Request</td><td>not sent</td></tr>')
    const dry = split(renderSummary(settings(), DRY)).folded
    expect(dry).toContain('not sent (a real run would send <code>PATCH')
  })

  it("a failed run's headline says why in a few words", () => {
    const page = renderSummary(settings(), outcome({ ...FAILED, error: new ActionError('x', { headline: 'API key refused' }) }))
    expect(headline(page)).toMatch(/: failed: API key refused$/)
  })
})

// ---------------------------------------------------------------------------------------
// The report word for word: each outcome's line, headline and section as a person reads them,
// and what reportStats leaves for the runner (outputs, annotations, summary file).
// ---------------------------------------------------------------------------------------

describe('the stats report, word for word', () => {
  const BOT = '123456789012345678'
  const START = new Date('2026-11-24T12:00:00Z')
  const H = 3_600_000
  const minutesFromStart = (minutes: number): Date => new Date(START.getTime() + minutes * 60_000)
  /** Settings of a step against a service other than the live one: the bot is named without a link. */
  const staging = (more: Record<string, string> = {}): StatsSettings =>
    settingsFor<StatsSettings>({
      'bot-id': BOT,
      'api-key': 'dp_w0rds-K3y',
      'command-count': '14',
      'base-url': 'https://staging.example',
      ...more
    })
  const read = (ago: number, more: { cached?: boolean; commandsUpdatedAt?: Date; serversUpdatedAt?: Date } = {}): RecordRead => ({
    ok: true,
    status: 200,
    cached: more.cached,
    record: {
      username: 'Example Bot',
      commands: 12,
      servers: 1204,
      commandsUpdatedAt: 'commandsUpdatedAt' in more ? more.commandsUpdatedAt : new Date(START.getTime() - ago),
      serversUpdatedAt: 'serversUpdatedAt' in more ? more.serversUpdatedAt : new Date(START.getTime() - ago)
    }
  })
  const BOTH: Counts = {
    command: { value: 14, source: 'input command-count', read: false },
    server: { value: 1260, source: 'input server-count', read: false },
    warnings: []
  }
  /** An update that went through, 7 h after the last one, unless `fields` say otherwise. */
  const ran = (fields: Partial<StatsOutcome> = {}): StatsOutcome => ({
    result: 'updated',
    counts: BOTH,
    body: { command_count: 14, server_count: 1260 },
    delivery: 'answered',
    record: read(7 * H),
    status: 200,
    answer: undefined,
    nextUpdateAt: minutesFromStart(361),
    skip: undefined,
    overlap: undefined,
    strikeCause: undefined,
    keyCheck: undefined,
    warnings: [],
    error: undefined,
    at: START,
    ...fields
  })
  const skipped = (fields: Partial<StatsOutcome> = {}): StatsOutcome =>
    ran({
      result: 'skipped',
      skip: 'recent',
      delivery: 'not-sent',
      status: undefined,
      record: read(2 * H),
      nextUpdateAt: minutesFromStart(241),
      ...fields
    })
  const limited = (fields: Partial<StatsOutcome> = {}): StatsOutcome =>
    ran({
      result: 'rate-limited',
      status: 429,
      answer: 'Too many requests, please try again later.',
      nextUpdateAt: minutesFromStart(30),
      ...fields
    })
  const RECENT =
    'the counts were updated less than 6 hours ago (10:00 UTC, 2 h before this run), and the service accepts one update per 6 hours. ' +
    'The next update is accepted from 16:01 UTC, 4 h 1 min after this run.'
  const headlineOf = (page: string): string => /^<h3>([\s\S]*?)<\/h3>\n/.exec(page)?.[1] ?? ''
  const countsTable = (page: string): string | undefined => /<table>\n<tr><th>Count<\/th>[\s\S]*?<\/table>\n/.exec(page)?.[0]
  const detailRows = (page: string): string[] =>
    [.../<details>[\s\S]*<\/details>/.exec(page)![0].matchAll(/<tr>(.*?)<\/tr>/g)].map(m => m[1]!)

  describe('the line that says how the run ended', () => {
    it.each<[string, StatsOutcome, { kind: string; title: string; text: string }]>([
      [
        'an update',
        ran(),
        {
          kind: 'info',
          title: 'Stats updated',
          text: 'Stats updated ({"command_count":14,"server_count":1260}). The next update is accepted from 18:01 UTC, 6 h 1 min after this run.'
        }
      ],
      ['a skip: too soon', skipped(), { kind: 'notice', title: 'Stats not sent', text: `Stats not sent: ${RECENT}` }],
      [
        'a skip: too soon, with neither the last update nor the next known',
        skipped({ record: undefined, nextUpdateAt: undefined }),
        {
          kind: 'notice',
          title: 'Stats not sent',
          text:
            'Stats not sent: the counts were updated less than 6 hours ago, and the service accepts one update per 6 hours. ' +
            'The next update is accepted from a later run.'
        }
      ],
      [
        'a skip: the bot not verified yet',
        skipped({ skip: 'unverified', record: undefined, nextUpdateAt: undefined }),
        {
          kind: 'notice',
          title: 'Stats not sent',
          text:
            'Stats not sent: discord.place has not verified the bot yet, so its record is not public, and its submission counts as an update: ' +
            'an update within 6 hours of submitting it would be refused as a strike, and no read can tell. Updates start once ' +
            'discord.place verifies the bot (its page is not public until then). cooldown-check: false sends anyway, at the risk of a strike.'
        }
      ],
      [
        'a skip: the record not checked',
        skipped({ skip: 'unchecked', nextUpdateAt: undefined }),
        {
          kind: 'notice',
          title: 'Stats not sent',
          text: "Stats not sent: the bot's public record could not be checked (see the warning); the next run will try again."
        }
      ],
      [
        'a skip: no count left',
        skipped({ skip: 'nothing', body: {}, nextUpdateAt: undefined }),
        { kind: 'notice', title: 'Stats not sent', text: 'Stats not sent: no count was left to send (see the warning).' }
      ],
      [
        'a skip with no reason given',
        skipped({ skip: undefined }),
        { kind: 'notice', title: 'Stats not sent', text: 'Stats not sent: nothing was due.' }
      ],
      [
        'the strike',
        ran({ result: 'cooldown', status: 429 }),
        {
          kind: 'info',
          title: 'Update refused: strike counted',
          text: 'The service refused the update as too early: a strike was counted.'
        }
      ],
      [
        'the request limiter, with its words and the time to try again',
        limited(),
        {
          kind: 'warning',
          title: 'Update turned away by the rate limit (no strike)',
          text:
            'The service\'s request limiter turned the update away (429: "Too many requests, please try again later.") before looking at it: ' +
            'nothing was stored and no strike was counted. Try again from 12:30 UTC, 30 min after this run.'
        }
      ],
      [
        'the request limiter, silent and without a time',
        limited({ answer: undefined, nextUpdateAt: undefined }),
        {
          kind: 'warning',
          title: 'Update turned away by the rate limit (no strike)',
          text:
            "The service's request limiter turned the update away (429) before looking at it: nothing was stored and no strike was counted. " +
            'Try again in 30 minutes.'
        }
      ],
      [
        'a dry run of an update that is due',
        ran({ result: 'dry-run', delivery: 'not-sent', status: undefined }),
        { kind: 'info', title: 'Dry run', text: 'Dry run: nothing sent. A real run would send {"command_count":14,"server_count":1260}.' }
      ],
      [
        'a dry run of an update that is not due',
        skipped({ result: 'dry-run' }),
        { kind: 'info', title: 'Dry run', text: `Dry run: nothing sent. A real run would not send: ${RECENT}` }
      ],
      [
        'a failure after the update was sent',
        ran({ result: 'failed', status: 400 }),
        { kind: 'info', title: 'Failed', text: 'The stats update failed; the error says why.' }
      ],
      [
        'a failure before anything was sent',
        ran({ result: 'failed', delivery: 'not-sent', status: undefined }),
        { kind: 'info', title: 'Failed', text: 'The run failed before any stats update was sent; the error says why.' }
      ]
    ])('%s', (_label, given, line) => {
      expect(outcomeLine(given)).toEqual(line)
    })
  })

  describe('the headline', () => {
    it.each<[string, StatsOutcome, string]>([
      ['an update, the next time unknown', ran({ nextUpdateAt: undefined }), '✅ Example Bot: updated'],
      ['a skip: too soon, the next time unknown', skipped({ nextUpdateAt: undefined }), '⏭️ Example Bot: not sent: too soon'],
      ['a skip: no count left', skipped({ skip: 'nothing', nextUpdateAt: undefined }), '⚠️ Example Bot: not sent: no count to send'],
      [
        'a skip: the bot not verified yet',
        skipped({ skip: 'unverified', record: undefined, nextUpdateAt: undefined }),
        `⏸️ Bot ${BOT}: not sent: the bot is not verified yet`
      ],
      [
        'the request limiter, the next time unknown',
        limited({ nextUpdateAt: undefined }),
        '⏸️ Example Bot: turned away by the rate limit, no strike'
      ],
      [
        'a dry run of an update that is not due',
        skipped({ result: 'dry-run' }),
        '🧪 Example Bot: dry run: nothing sent, a real run would not send'
      ],
      ['a failure without an error of its own', ran({ result: 'failed', status: 400 }), '❌ Example Bot: failed']
    ])('%s', (_label, given, words) => {
      expect(headlineOf(renderSummary(staging(), given))).toBe(words)
    })
  })

  describe('whole sections', () => {
    it('a skip: too soon, with one count, a cached record, a key not checked and warnings', () => {
      const page = renderSummary(
        staging(),
        skipped({
          counts: { command: BOTH.command, server: undefined, warnings: ['Manifest warning.'] },
          body: { command_count: 14 },
          record: read(2 * H, { cached: true }),
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
      const live = settingsFor<StatsSettings>({ 'bot-id': BOT, 'api-key': 'dp_w0rds-K3y', 'command-count': '14', 'server-count': '1260' })
      expect(renderSummary(live, ran({ keyCheck: { state: 'valid' } }))).toBe(
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

    it('the strike with cooldown-check off: the record read again after it, the answer quoted', () => {
      const page = renderSummary(
        staging({ 'cooldown-check': 'false', 'server-count': '1260' }),
        ran({
          result: 'cooldown',
          status: 429,
          answer: 'You can only update stats once every 6 hours.',
          record: read(2 * H),
          nextUpdateAt: minutesFromStart(241),
          error: new ActionError('Refused as too early: a strike was counted.')
        })
      )
      expect(page).toBe(
        '<h3>🛑 Example Bot: refused: strike counted</h3>\n' +
          '<table>\n' +
          '<tr><th>Count</th><th>Listed before</th><th>Sent, not stored</th><th>Source</th></tr>\n' +
          '<tr><td>Commands</td><td>12</td><td>14</td><td>input command-count</td></tr>\n' +
          '<tr><td>Servers</td><td>1,204</td><td>1,260</td><td>input server-count</td></tr>\n' +
          '</table>\n' +
          '<p>❌ <strong>Error:</strong> Refused as too early: a strike was counted.</p>\n' +
          '<details><summary>Request and answer</summary>\n' +
          '<table>\n' +
          '<tr><td>Service</td><td><a href="https://staging.example">https://staging.example</a></td></tr>\n' +
          '<tr><td>Record read</td><td>read; last update 10:00 UTC, 2 h before this run</td></tr>\n' +
          `<tr><td>Request</td><td><code>PATCH /bots/${BOT}/stats {&quot;command_count&quot;:14,&quot;server_count&quot;:1260}</code></td></tr>\n` +
          '<tr><td>Answer</td><td>429: You can only update stats once every 6 hours.</td></tr>\n' +
          '</table>\n' +
          '</details>\n'
      )
    })
  })

  describe('the counts table', () => {
    it.each<[string, Partial<StatsOutcome>, string | undefined]>([
      [
        'only a command count, no record read',
        { record: undefined, counts: { ...BOTH, server: undefined }, body: { command_count: 14 } },
        '<tr><th>Count</th><th>Listed before</th><th>Now</th><th>Source</th></tr>\n<tr><td>Commands</td><td>—</td><td>14</td><td>input command-count</td></tr>\n'
      ],
      [
        'only a server count, no record read',
        { record: undefined, counts: { ...BOTH, command: undefined }, body: { server_count: 1260 } },
        '<tr><th>Count</th><th>Listed before</th><th>Now</th><th>Source</th></tr>\n<tr><td>Servers</td><td>—</td><td>1,260</td><td>input server-count</td></tr>\n'
      ],
      [
        'no count resolved, a record read',
        { result: 'failed', delivery: 'not-sent', status: undefined, counts: undefined, body: {} },
        '<tr><th>Count</th><th>Listed before</th><th>Was to be sent</th></tr>\n<tr><td>Commands</td><td>12</td><td>—</td></tr>\n<tr><td>Servers</td><td>1,204</td><td>—</td></tr>\n'
      ],
      [
        'no count resolved and no record read: no table',
        { result: 'failed', delivery: 'not-sent', counts: undefined, record: undefined, body: {} },
        undefined
      ],
      [
        'an update to the counts already listed: no change shown',
        { counts: { command: { ...BOTH.command!, value: 12 }, server: { ...BOTH.server!, value: 1204 }, warnings: [] } },
        '<tr><th>Count</th><th>Listed before</th><th>Now</th><th>Source</th></tr>\n<tr><td>Commands</td><td>12</td><td>12</td><td>input command-count</td></tr>\n<tr><td>Servers</td><td>1,204</td><td>1,204</td><td>input server-count</td></tr>\n'
      ]
    ])('%s', (_label, fields, rows) => {
      const table = countsTable(renderSummary(staging(), ran(fields)))
      expect(table).toBe(rows === undefined ? undefined : `<table>\n${rows}</table>\n`)
    })

    it.each(['recent', 'unverified', 'unchecked'] as const)(
      'a skip (%s) before Discord was asked: the count Discord gives is "not read from Discord"',
      skip => {
        const page = renderSummary(
          staging({ 'command-count': '', 'commands-file': 'commands.json', 'discord-token': 'MTIz.abc.def' }),
          skipped({
            skip,
            record: undefined,
            counts: { command: { value: 14, source: 'commands.json', read: true }, server: undefined, warnings: [] },
            body: { command_count: 14 }
          })
        )
        expect(countsTable(page)).toBe(
          '<table>\n<tr><th>Count</th><th>Listed before</th><th>Would be sent</th><th>Source</th></tr>\n' +
            '<tr><td>Commands</td><td>—</td><td>14</td><td>commands.json</td></tr>\n' +
            '<tr><td>Servers</td><td>—</td><td>not read from Discord (only for an update that is due)</td><td>—</td></tr>\n</table>\n'
        )
      }
    )

    it('a skip for want of a count asked Discord: no "not read from Discord"', () => {
      const page = renderSummary(
        staging({ 'command-count': '', 'commands-file': 'commands.json', 'discord-token': 'MTIz.abc.def' }),
        skipped({
          skip: 'nothing',
          record: undefined,
          counts: { command: { value: 14, source: 'commands.json', read: true }, server: undefined, warnings: [] }
        })
      )
      expect(page).not.toContain('not read from Discord')
      expect(page).not.toContain('<td>Servers</td>')
    })
  })

  describe('the details', () => {
    it.each<[string, Partial<StatsOutcome>, string]>([
      [
        'a record without update times',
        { record: read(0, { commandsUpdatedAt: undefined, serversUpdatedAt: undefined }) },
        'Record read</td><td>read; last update unknown'
      ],
      ['an update answered with no words', {}, 'Answer</td><td>200'],
      [
        'an update answered with words',
        { result: 'failed', status: 400, answer: 'Server count is off.' },
        'Answer</td><td>400: Server count is off.'
      ],
      [
        'an update sent with no answer back',
        { result: 'failed', delivery: 'no-answer', status: undefined },
        'Answer</td><td>none (no answer came back)'
      ],
      [
        'a skip with only a server count',
        { ...skipped(), counts: { ...BOTH, command: undefined }, body: { server_count: 1260 } },
        `Request</td><td>not sent (once an update is due, it would be <code>PATCH /bots/${BOT}/stats {&quot;server_count&quot;:1260}</code>)`
      ]
    ])('%s', (_label, fields, row) => {
      expect(detailRows(renderSummary(staging(), ran(fields)))).toContain(`<td>${row}</td>`)
    })
  })

  describe('warnings in the summary', () => {
    const many = (count: number): string[] => Array.from({ length: count }, (_, i) => `Warning ${i + 1}.`)
    const shown = (page: string): number => page.split('<p>⚠️ <strong>Warning:</strong> ').length - 1

    it('20 are shown, one by one', () => {
      const page = renderSummary(staging(), ran({ warnings: many(12), counts: { ...BOTH, warnings: many(8) } }))
      expect(shown(page)).toBe(20)
      expect(page).not.toContain('more warnings')
    })

    it("the 21st and later are counted, and left to the step's log", () => {
      const page = renderSummary(staging(), ran({ warnings: many(13), counts: { ...BOTH, warnings: many(8) } }))
      expect(shown(page)).toBe(20)
      expect(page).toContain("<p>⚠️ 1 more warnings are in the step's log.</p>\n<details>")
    })

    it('each is cut at 1,000 characters; a run that failed before its counts has its own warnings shown', () => {
      const page = renderSummary(staging(), ran({ counts: undefined, warnings: ['w'.repeat(1_001)] }))
      expect(page).toContain(`<p>⚠️ <strong>Warning:</strong> ${'w'.repeat(1_000)}… (1 more characters not shown)</p>\n`)
      expect(shown(page)).toBe(1)
    })
  })

  describe('the annotations', () => {
    /** What the toolkit printed from now on, one entry a line. */
    const printed = (): (() => string[]) => capturedStdout().lines
    const many = (count: number): string[] => Array.from({ length: count }, (_, i) => `W${i + 1}.`)

    it('the request limiter: a warning with its title, first', () => {
      const lines = printed()
      announce(limited({ counts: undefined, warnings: ['W1.'] }))
      expect(lines()).toEqual([
        '::warning title=Update turned away by the rate limit (no strike)::The service\'s request limiter turned the update away (429: "Too many requests, please try again later.") ' +
          'before looking at it: nothing was stored and no strike was counted. Try again from 12:30 UTC, 30 min after this run.',
        '::warning::W1.'
      ])
    })

    it('a skip: a notice with its title', () => {
      const lines = printed()
      announce(skipped())
      expect(lines()).toEqual([`::notice title=Stats not sent::Stats not sent: ${RECENT}`])
    })

    it.each([
      ['a log line', 10, 10, []],
      ['a log line', 11, 9, ['::warning::2 more warnings: W10. | W11.']],
      ['a warning of the outcome', 9, 9, []],
      ['a warning of the outcome', 10, 8, ['::warning::2 more warnings: W9. | W10.']]
    ])('after %s, %i warnings: %i shown, the rest folded into one', (first, count, shown, folded) => {
      const lines = printed()
      announce(first === 'a log line' ? ran({ warnings: many(count) }) : limited({ warnings: many(count) }))
      expect(lines().slice(1)).toEqual([...many(shown).map(text => `::warning::${text}`), ...folded])
    })
  })

  describe('reportStats: what the step leaves for the runner', () => {
    const files = async (output: 'file' | 'directory' = 'file'): Promise<{ outputs: () => string; summary: () => string }> => {
      const runner = runnerFiles({ output })
      return { outputs: runner.outputText, summary: runner.summary }
    }
    const printed = (): (() => string) => {
      const spy = vi.spyOn(process.stdout, 'write').mockImplementation(() => true)
      return () => spy.mock.calls.map(([chunk]) => String(chunk)).join('')
    }
    afterEach(() => {
      vi.unstubAllEnvs()
      vi.restoreAllMocks()
    })

    it('an update: every output, the section followed by a line break, one log line, and no failure', async () => {
      const runner = await files()
      const lines = printed()
      const given = ran()
      expect(await reportStats(staging(), given)).toBeUndefined()
      const outputs = Object.fromEntries(
        [...runner.outputs().matchAll(/^([^\n<]+)<<(\S+)\n([\s\S]*?)\n\2\n/gm)].map(match => [match[1]!, match[3]!])
      )
      expect(outputs).toEqual({
        result: 'updated',
        'command-count': '14',
        'server-count': '1260',
        status: '200',
        'next-update-at': '2026-11-24T18:01:00.000Z'
      })
      expect(runner.summary()).toBe(`${renderSummary(staging(), given)}\n`)
      expect(lines()).toBe(`${outcomeLine(given).text}\n`)
    })

    it('only the counts that were sent are outputs', async () => {
      const runner = await files()
      writeOutputs(ran({ body: { server_count: 1260 }, status: undefined, nextUpdateAt: undefined }))
      expect(runner.outputs()).not.toContain('command-count')
      expect(runner.outputs()).toContain('server-count<<')
    })

    it('outputs that cannot be written: the failure is returned, and the summary says the step failed', async () => {
      const runner = await files('directory')
      const lines = printed()
      const failure = await reportStats(staging(), ran())
      expect(failure).toMatch(/^The step's outputs could not be written to GITHUB_OUTPUT \(.*\); later steps will not see them\./)
      expect(headlineOf(runner.summary())).toBe(
        '❌ Example Bot: updated, next update from 18:01 UTC, 6 h 1 min after this run; the step failed: its outputs could not be written'
      )
      expect(lines(), 'the failure is the step error main.ts prints, not a warning').not.toContain('::warning')
    })

    it("outputs that cannot be written after a failure: the failure returned is the run's, the outputs one is a warning", async () => {
      await files('directory')
      const lines = printed()
      const failure = await reportStats(staging(), ran({ result: 'failed', status: 400, error: new ActionError('The update failed.') }))
      expect(failure).toBe('The update failed.')
      expect(lines()).toMatch(/^::warning::The step's outputs could not be written to GITHUB_OUTPUT/m)
    })
  })
})
