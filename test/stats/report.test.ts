/**
 * The stats mode's report (src/stats/report.ts): the summary section (HTML), the outputs and
 * the annotations. Outcomes come from runStats against the service emulator where a run can
 * make them, and are built by hand for what a run rarely meets (hostile or huge texts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ActionError } from '../../src/errors.js'
import { addSecret, clearSecrets } from '../../src/secrets.js'
import type { StatsSettings } from '../../src/settings.js'
import type { Counts } from '../../src/stats/counts.js'
import { strikeMessage } from '../../src/stats/answers.js'
import type { RecordRead } from '../../src/stats/window.js'
import { announce, outcomeLine, renderSummary, reportStats, writeOutputs } from '../../src/stats/report.js'
import type { StatsOutcome } from '../../src/stats/update.js'
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
    ['cooldown-check off', { 'cooldown-check': 'false' }, undefined, 'not read (cooldown-check: false)'],
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
