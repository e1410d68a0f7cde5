import * as core from '@actions/core'
import type { StatsSettings } from '../settings.js'
import {
  botTitle,
  headlineWith,
  markedParagraph,
  number,
  when,
  writeOutputsSafely,
  writeSection
} from '../summary.js'
import { annotationText, bounded, html, htmlLink, logText, MAX_MESSAGE_CHARS } from '../text.js'
import {
  factsOf,
  outcomeOf,
  type ResolvedCount,
  runWording,
  SCHEDULE_WORDS,
  scheduleFactsOf,
  STATS_OUTCOMES,
  type StatsOutcome
} from './outcome.js'
import { lastUpdate } from './window.js'

/**
 * The stats mode's report: its outputs (the only writer of them), its log lines and
 * annotations, and its job summary section. The safe skip and the strike never share a word:
 * a skip is "not sent: too soon", the 6-hour refusal is "refused: strike counted".
 */

/** GitHub shows the first 10 annotations of each kind per step. */
const SHOWN_ANNOTATIONS = 10

/**
 * The longest warning, and the longest text from outside (an answer, a reason), quoted in the
 * summary; the log has each warning whole. Escaped (up to six times longer), twenty warnings
 * and the rest stay under the section's cap, so the cap never cuts the section short.
 */
const SUMMARY_WARNING_CHARS = 1_000
const QUOTE_CHARS = 1_000
/** The bot's name from its listing, in the headline. */
const NAME_CHARS = 100

const info = (line: string): void => core.info(logText(line))
const warning = (text: string, title?: string): void =>
  core.warning(annotationText(text), title === undefined ? undefined : { title })
const notice = (text: string, title: string): void => core.notice(annotationText(text), { title })

/**
 * Writes the outputs, the log lines and annotations, and the summary section; returns the failure,
 * if any.
 */
export async function reportStats(
  settings: StatsSettings,
  outcome: StatsOutcome
): Promise<string | undefined> {
  const outputsFailure = writeOutputsSafely(() => writeOutputs(outcome))
  announce(outcome, settings.botId)
  if (outputsFailure !== undefined && outcome.error !== undefined)
    core.warning(annotationText(outputsFailure))
  await writeSection(summary =>
    summary.addRaw(renderSummary(settings, outcome, outputsFailure), true)
  )
  return outcome.error?.message ?? outputsFailure
}

/**
 * Every output that is known, a failed run's included (`status` after a refusal), for a later step
 * with `if: always()`. The last update known: this run's, another run's that a strike found
 * (overlap), else the record's.
 */
export function writeOutputs(outcome: StatsOutcome): void {
  core.setOutput('result', outcome.result)
  if (outcome.body.command_count !== undefined)
    core.setOutput('command-count', outcome.body.command_count)
  if (outcome.body.server_count !== undefined)
    core.setOutput('server-count', outcome.body.server_count)
  if (outcome.status !== undefined) core.setOutput('status', outcome.status)
  if (outcome.nextUpdateAt !== undefined)
    core.setOutput('next-update-at', outcome.nextUpdateAt.toISOString())
  const last =
    outcome.result === 'updated'
      ? outcome.at
      : (outcome.overlap ?? (outcome.record?.ok ? lastUpdate(outcome.record.record) : undefined))
  if (last !== undefined) core.setOutput('last-updated-at', last.toISOString())
  const schedule = outcome.schedule
  if (schedule !== undefined && schedule.stage !== 'unread')
    core.setOutput('schedule-disabled-around', schedule.disabledAround.toISOString().slice(0, 10))
}

/**
 * The annotation that explains the outcome, first among its kind, then the other warnings:
 * those beyond what GitHub shows are folded into one.
 */
export function announce(outcome: StatsOutcome, botId: string): void {
  const line = outcomeLine(outcome, botId)
  if (line.kind === 'info') info(line.text)
  else if (line.kind === 'notice') notice(line.text, line.title)
  else warning(line.text, line.title)
  const note = scheduleNote(outcome, botId)
  if (note?.kind === 'notice') notice(note.text, note.title)
  if (note?.kind === 'warning') warning(note.text, note.title)
  const warnings = [...outcome.warnings, ...(outcome.counts?.warnings ?? [])]
  const room =
    SHOWN_ANNOTATIONS - (line.kind === 'warning' ? 1 : 0) - (note?.kind === 'warning' ? 1 : 0)
  const shown = warnings.length > room ? warnings.slice(0, room - 1) : warnings
  for (const text of shown) warning(text)
  if (shown.length < warnings.length) {
    const rest = warnings.slice(shown.length)
    warning(`${rest.length} more warnings: ${rest.map(text => bounded(text, 300)).join(' | ')}`)
  }
}

interface OutcomeLine {
  readonly kind: 'info' | 'notice' | 'warning'
  readonly title: string
  readonly text: string
}

/**
 * The one line (log line or annotation) that says how the run ended; a failure says so in its
 * error.
 */
export function outcomeLine(outcome: StatsOutcome, botId: string): OutcomeLine {
  const id = outcomeOf(outcome)
  const text =
    id === undefined ? '' : STATS_OUTCOMES[id].says(factsOf(outcome, botId), runWording(outcome.at))
  switch (outcome.result) {
    case 'skipped':
      return { kind: 'notice', title: 'Stats not sent', text }
    case 'rate-limited':
      return { kind: 'warning', title: 'Update turned away by the rate limit (no strike)', text }
    case 'deferred':
      return { kind: 'warning', title: 'Stats update deferred', text }
    case 'cooldown':
      // The step fails: its one ::error:: (the outcome's error) names the strike, the cause and the
      // fix.
      return {
        kind: 'info',
        title: '',
        text: 'The service refused the update as too early: a strike was counted.'
      }
    case 'failed': {
      const what =
        outcome.delivery === 'not-sent'
          ? 'The run failed before any stats update was sent'
          : 'The stats update failed'
      return { kind: 'info', title: '', text: `${what}; the error says why.` }
    }
    default:
      return { kind: 'info', title: '', text }
  }
}

/**
 * What a scheduled run says about GitHub disabling its schedule, beside its outcome: a warning,
 * or the notice that it could not tell. A failure says it in its error instead.
 */
function scheduleNote(outcome: StatsOutcome, botId: string): OutcomeLine | undefined {
  const stage = outcome.schedule?.stage
  if (stage === undefined || stage === 'failing') return undefined
  const { kind, title, says } = SCHEDULE_WORDS[stage]
  return { kind, title, text: says(scheduleFactsOf(outcome, botId), runWording(outcome.at)) }
}

/**
 * The headline's mark and words. A step the schedule fails keeps the stats run's words, marked as
 * failed, and names the date.
 */
function headline(outcome: StatsOutcome, botId: string): [mark: string, words: string] {
  const [mark, words] = statsHeadline(outcome, botId)
  if (outcome.schedule?.stage !== 'failing') return [mark, words]
  return [
    '❌',
    `${words}; ${SCHEDULE_WORDS.failing.headline(scheduleFactsOf(outcome, botId), runWording(outcome.at))}`
  ]
}

function statsHeadline(outcome: StatsOutcome, botId: string): [mark: string, words: string] {
  const id = outcomeOf(outcome)
  if (id === undefined)
    return [
      '❌',
      outcome.error?.headline === undefined ? 'failed' : `failed: ${outcome.error.headline}`
    ]
  const { mark, headline: words } = STATS_OUTCOMES[id]
  return [mark, words(factsOf(outcome, botId), runWording(outcome.at))]
}

/** The heading of the counts' last column: what became of the counts this run sent, or would. */
function sentColumn(outcome: StatsOutcome, dryRun: boolean): string {
  if (outcome.result === 'updated') return 'Now'
  if (outcome.delivery === 'no-answer') return 'Sent, no answer'
  if (outcome.delivery !== 'not-sent') return 'Sent, not stored'
  if (outcome.result === 'failed' && !dryRun) return 'Was to be sent'
  return 'Would be sent'
}

/** The summary section, as HTML: headline, counts, warnings and error, then the details folded. */
export function renderSummary(
  settings: StatsSettings,
  outcome: StatsOutcome,
  outputsFailure?: string
): string {
  const record = outcome.record?.ok ? outcome.record.record : undefined
  const [mark, words] = headlineWith(outputsFailure, headline(outcome, settings.botId))
  const name = record?.username === undefined ? undefined : bounded(record.username, NAME_CHARS)
  const parts = [
    `<h3>${mark} ${botTitle(settings.botId, name, settings.baseUrl)}: ${html(words)}</h3>\n`
  ]

  const counts = outcome.counts
  if (counts?.command !== undefined || counts?.server !== undefined || record !== undefined) {
    const applied = outcome.result === 'updated'
    // A count not resolved: Discord is asked only when an update is due, so a run skipped at the
    // record check did not read it; after that (a dry run, a failure), it was asked or no source
    // gave the count.
    const beforeDiscord =
      outcome.skip === 'recent' || outcome.skip === 'unverified' || outcome.skip === 'unchecked'
    const unread =
      settings.discordToken !== undefined && beforeDiscord
        ? 'not read from Discord (only for an update that is due)'
        : '—'
    const withSource = counts?.command !== undefined || counts?.server !== undefined
    const rows = [
      countRow('Commands', counts?.command, record?.commands, applied, unread, withSource),
      countRow('Servers', counts?.server, record?.servers, applied, unread, withSource)
    ].filter(row => row !== undefined)
    const column = sentColumn(outcome, settings.dryRun)
    parts.push(
      `<table>\n<tr><th>Count</th><th>Listed before</th><th>${column}</th>${withSource ? '<th>Source</th>' : ''}</tr>\n${rows.join('\n')}\n</table>\n`
    )
  }
  // The error before the warnings: it says why the step failed, and no number of warnings hides it.
  if (outcome.error !== undefined)
    parts.push(markedParagraph('❌', 'Error:', outcome.error.message))
  if (outputsFailure !== undefined) parts.push(markedParagraph('❌', 'Error:', outputsFailure))
  if (outcome.error === undefined && outcome.result !== 'updated') {
    parts.push(
      `<p>${html(bounded(outcomeLine(outcome, settings.botId).text, MAX_MESSAGE_CHARS))}</p>\n`
    )
  }
  const note = scheduleNote(outcome, settings.botId)
  if (note?.kind === 'warning') parts.push(markedParagraph('⚠️', 'Warning:', note.text))
  const warnings = [...outcome.warnings, ...(counts?.warnings ?? [])]
  for (const text of warnings.slice(0, 20))
    parts.push(markedParagraph('⚠️', 'Warning:', bounded(text, SUMMARY_WARNING_CHARS)))
  if (warnings.length > 20)
    parts.push(`<p>⚠️ ${warnings.length - 20} more warnings are in the step's log.</p>\n`)
  parts.push(details(settings, outcome))
  return parts.join('')
}

/** One count's row; none when neither the listing nor this run knows the count. */
function countRow(
  label: string,
  count: ResolvedCount | undefined,
  before: number | undefined,
  applied: boolean,
  unread: string,
  withSource: boolean
): string | undefined {
  const listed = before === undefined ? '—' : number(before)
  if (count === undefined) {
    if (before === undefined && unread === '—') return undefined
    return `<tr><td>${label}</td><td>${listed}</td><td>${unread}</td>${withSource ? '<td>—</td>' : ''}</tr>`
  }
  const change =
    applied && before !== undefined && before !== count.value
      ? ` (${signed(count.value - before)})`
      : ''
  return `<tr><td>${label}</td><td>${listed}</td><td>${number(count.value)}${change}</td><td>${html(bounded(count.source, 300))}</td></tr>`
}

/** The request, the answer, the record read and the service's address, folded. */
function details(settings: StatsSettings, outcome: StatsOutcome): string {
  const path = `PATCH /bots/${settings.botId}/stats ${JSON.stringify(outcome.body)}`
  const rows: [string, string][] = [
    ['Service', htmlLink(settings.baseUrl, settings.baseUrl)],
    ['Record read', recordLine(settings, outcome)]
  ]
  if (outcome.keyCheck !== undefined) {
    rows.push([
      'Key check',
      outcome.keyCheck.state === 'valid'
        ? 'the key is valid'
        : `not checked: ${html(bounded(outcome.keyCheck.reason, QUOTE_CHARS))}`
    ])
  }
  const sent = outcome.delivery !== 'not-sent'
  rows.push(['Request', sent ? `<code>${html(path)}</code>` : notSentLine(outcome, path)])
  if (sent) rows.push(['Answer', answerLine(outcome)])
  const table = rows.map(([key, value]) => `<tr><td>${key}</td><td>${value}</td></tr>`).join('\n')
  return `<details><summary>Request and answer</summary>\n<table>\n${table}\n</table>\n</details>\n`
}

/** The update not sent: what a run with counts would send, never a request without any. */
function notSentLine(outcome: StatsOutcome, path: string): string {
  const empty = outcome.body.command_count === undefined && outcome.body.server_count === undefined
  if (empty) return outcome.skip === 'nothing' ? 'not sent: no count was left to send' : 'not sent'
  if (outcome.result === 'failed') return 'not sent'
  // A run that found the update not due (a skip, or a dry run a real run would skip) says so.
  const would =
    outcome.skip === undefined ? 'a real run would send' : 'once an update is due, it would be'
  return `not sent (${would} <code>${html(path)}</code>)`
}

/**
 * What became of the record read, in the words of each case: off, not reached, not public,
 * unreadable, read. `record` is the read before the update; with cooldown-check off, a strike
 * still reads it after the refusal, and the outcome carries what that read showed.
 */
function recordLine(settings: StatsSettings, outcome: StatsOutcome): string {
  const read = outcome.record
  if (read === undefined && !settings.cooldownCheck) {
    if (outcome.delivery === 'not-sent') return 'not read (cooldown-check: false)'
    return `not read before the update (cooldown-check: false)${outcome.result === 'cooldown' ? `; ${readAfterStrike(outcome)}` : ''}`
  }
  if (read === undefined) return 'not read: the run ended before it'
  if (!read.ok) {
    if (read.problem === 'unverified') return 'not public: the bot is not verified yet (403)'
    if (read.problem === 'absent') return 'no such bot (404)'
    return `could not be read: ${html(bounded(read.reason, QUOTE_CHARS))}`
  }
  const last = lastUpdate(read.record)
  return `read; last update ${last === undefined ? 'unknown' : html(when(last, outcome.at))}${read.cached ? ' (from a cache)' : ''}`
}

/**
 * The read after a strike with no read before it: the outcome's next update time and cause come
 * from it alone.
 */
function readAfterStrike(outcome: StatsOutcome): string {
  if (outcome.strikeCause === 'unverified')
    return 'read after the refusal: not public, the bot is not verified yet (403)'
  if (outcome.nextUpdateAt === undefined)
    return 'a read after the refusal did not show when the next update is accepted'
  return `read after the refusal: the next update is accepted from ${html(when(outcome.nextUpdateAt, outcome.at))}`
}

function answerLine(outcome: StatsOutcome): string {
  if (outcome.status === undefined) {
    return outcome.delivery === 'arrived'
      ? 'none (the connection failed), but the public record shows the update'
      : 'none (no answer came back)'
  }
  return `${outcome.status}${outcome.answer === undefined ? '' : `: ${html(bounded(outcome.answer, QUOTE_CHARS))}`}`
}

function signed(delta: number): string {
  return delta > 0 ? `+${number(delta)}` : `−${number(-delta)}`
}
