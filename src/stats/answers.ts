import { StoppedError } from '../errors.js'
import { DeadlineError } from '../http/client.js'
import type { HttpAnswer, NetworkError } from '../http/transport.js'
import { keyAdvice, keyHeadline } from '../keys.js'
import type { StatsSettings } from '../settings.js'
import { utc, when } from '../summary.js'
import { type RecordDeps, readPublicRecord } from './record.js'
import type { Delivery, StrikeCause } from './outcome.js'
import { acceptsFrom, lastUpdate, type RecordRead } from './window.js'

/** What the stats route's answers mean, and what the person reading the log should do. */

/**
 * Which of the service's two 429s an answer is. The request limiter (2 counted requests per
 * 30 minutes per bot) answers before looking at anything: `Retry-After`, `retry_after` and
 * "Too many requests"; nothing was stored and no strike counted. The 6-hour rule answers
 * without `Retry-After` or `retry_after`, and that refusal is a strike.
 */
export function kindOf429(answer: HttpAnswer): 'limiter' | 'six-hours' {
  const body = answer.json as { retry_after?: unknown; error?: unknown } | undefined
  if (answer.headers['retry-after'] !== undefined || body?.retry_after !== undefined) return 'limiter'
  return typeof body?.error === 'string' && /too many requests/i.test(body.error) ? 'limiter' : 'six-hours'
}

/**
 * A failure after the status line and headers arrived (the body cut off, or too slow) is an
 * answer: the service received the update and decided. Its status decides the outcome; the
 * body is not there to read.
 */
export function answerFromStatusLine(error: NetworkError): HttpAnswer | undefined {
  if (error.answered === undefined) return undefined
  return { status: error.answered.status, headers: error.answered.headers, text: '', truncated: true, json: undefined }
}

/** The headline's few words for an update the service answered with a failure. */
export function failureHeadline(status: number): string {
  const key = keyHeadline(status)
  if (key !== undefined) return key
  if (status === 400) return 'count refused by discord.place'
  if (status >= 300 && status < 400) return 'redirect not followed'
  if (status >= 500) return 'discord.place failed on its side'
  return `unexpected answer (${status})`
}

/** One line for a refused update: what the service said, and what to do about it. */
export function explainFailure(
  answer: HttpAnswer,
  serviceText: string | undefined,
  plan: { readonly botId: string; readonly body: { command_count?: number; server_count?: number } }
): string {
  const said = `the service answered ${answer.status}${serviceText === undefined ? '' : ` with "${serviceText}"`}`
  const advice = adviceFor(answer.status, serviceText, plan)
  return `Stats update failed: ${said}. ${advice}`
}

function adviceFor(
  status: number,
  serviceText: string | undefined,
  plan: { readonly botId: string; readonly body: { command_count?: number; server_count?: number } }
): string {
  switch (status) {
    case 400:
      if (plan.body.server_count !== undefined && !/command/i.test(serviceText ?? '')) {
        return (
          'The service accepts a server count only within max(50, 10%) of the count Discord reports for the bot, and ' +
          `refuses the whole update: nothing was stored${plan.body.command_count === undefined ? '' : ', the command count neither'}. ` +
          'Send the count your bot sees (its guild cache), or leave server-count out and set discord-token to read it from Discord.'
        )
      }
      return 'Check command-count (0 to 1000) and server-count (0 to 10000000).'
    case 401:
    case 404:
    case 410:
      return keyAdvice(status, serviceText, plan.botId)!
    default:
      if (status >= 300 && status < 400) {
        return (
          'A redirect is not followed: a request carrying the API key never goes to another address. ' +
          "Set base-url to the service's own address."
        )
      }
      if (status >= 500) {
        return (
          'The service failed on its side; nothing in the workflow needs to change. The update was not repeated ' +
          '(a second update could count as an early one); the next run will try again.'
        )
      }
      return 'This answer was not expected; the update was not repeated. Check base-url and the service status.'
  }
}

/** What the strike's message needs of the outcome. */
interface Refusal {
  /** The service's words, when it sent some. */
  readonly answer: string | undefined
  readonly overlap: Date | undefined
  readonly strikeCause: 'overlap' | 'unverified' | 'unchecked' | 'unknown'
  readonly nextUpdateAt: Date | undefined
  /** When the outcome was decided: times are shown relative to it. */
  readonly at: Date
}

/**
 * The error of an update the service refused as too early: a strike was counted, five within
 * 6 hours revoke the key, and the likely cause with what to change. `stopped` says what a stop
 * (or the deadline) cut short after the refusal: the strike stands all the same.
 */
export function strikeMessage(refusal: Refusal, botId: string, stopped?: string, workflow?: string): string {
  const said = refusal.answer === undefined ? '' : `: "${refusal.answer}"`
  const next =
    refusal.nextUpdateAt === undefined
      ? 'When the next update is accepted is unknown.'
      : `The next update is accepted from ${when(refusal.nextUpdateAt, refusal.at)}.`
  const stop = stopped === undefined ? '' : ` ${stopped}`
  return (
    `Stats update refused as too early (429${said}): the service counted a strike against the API key, and 5 strikes ` +
    `within 6 hours revoke it. ${strikeCause(refusal, botId)}${workflow === undefined ? '' : ` ${workflow}`} ${next} ` +
    `The update was not retried.${stop}`
  )
}

/** The likely cause of a strike, and what to change. */
function strikeCause(refusal: Refusal, botId: string): string {
  const group = `concurrency: group: discord-place-stats-${botId}, cancel-in-progress: false`
  switch (refusal.strikeCause) {
    case 'overlap':
      return (
        `Likely cause: overlapping runs. Another run updated the counts at ${utc(refusal.overlap!, refusal.at)}, after this run ` +
        "read the bot's record: runs that overlap (a deploy and the schedule at once) both pass the check. Put the stats job " +
        `of every workflow for this bot in one concurrency group (${group}) so that they queue.`
      )
    case 'unverified':
      return (
        'Likely cause: discord.place has not verified the bot yet, and its submission counts as an update, so any update ' +
        'within 6 hours of submitting it is refused. Keep cooldown-check: true, which holds updates until the bot is verified.'
      )
    case 'unchecked':
      return (
        'Likely cause: it was sent without reading the record first (cooldown-check: false), less than 6 hours after the ' +
        'last update (or after the bot was submitted, if it is not verified yet). Keep cooldown-check: true.'
      )
    case 'unknown':
      return (
        'Likely cause: overlapping runs, or an update from elsewhere (the bot itself, another workflow) after this run read ' +
        `the record. Schedule this at most once every 6 hours, keep cooldown-check: true, and put every stats job for this bot in one concurrency group (${group}).`
      )
  }
}

/**
 * After the 6-hour refusal (a strike): reads the record again, for when the next update is
 * accepted (the refusal's headers describe only the request limiter) and for why it came.
 * When the first read allowed the update and the fresh one shows a later update, another run
 * updated the counts between this run's read and its update: overlapping runs, which one
 * concurrency group per bot prevents. A fresh read answered "not verified" names the first day.
 * A read that fails, runs out of time or is stopped only leaves these unknown: the strike is
 * reported either way (a stop says so beside it).
 */
export async function afterRefusal(
  settings: StatsSettings,
  deps: RecordDeps,
  first: RecordRead | undefined
): Promise<{
  found: { nextUpdateAt: Date | undefined; overlap: Date | undefined; strikeCause: StrikeCause }
  stopped: string | undefined
}> {
  let fresh: RecordRead | undefined
  let stopped: string | undefined
  try {
    fresh = await readPublicRecord(settings, deps)
  } catch (error) {
    if (error instanceof StoppedError) stopped = `${error.message} It came while the bot's record was read after the refusal.`
    else if (!(error instanceof DeadlineError)) throw error
  }
  const future = (read: RecordRead | undefined): Date | undefined => {
    const from = read?.ok ? acceptsFrom(read) : undefined
    return from !== undefined && from.getTime() > deps.requests.clock.now() ? from : undefined
  }
  const before = first?.ok ? lastUpdate(first.record) : undefined
  const after = fresh?.ok ? lastUpdate(fresh.record) : undefined
  const overlap = first?.ok && after !== undefined && (before === undefined || after > before) ? after : undefined
  const strikeCause: StrikeCause =
    overlap !== undefined
      ? 'overlap'
      : fresh?.ok === false && fresh.problem === 'unverified'
        ? 'unverified'
        : first === undefined
          ? 'unchecked'
          : 'unknown'
  return { found: { nextUpdateAt: future(fresh) ?? future(first), overlap, strikeCause }, stopped }
}

/**
 * For a stopped run: exactly what reached the service. A stop that cut off the answer after its
 * status line: a 429 whose body never came may have been the 6-hour refusal (a strike) or the
 * request limiter (none); the message says which it may be.
 */
export function whatWasSent(delivery: Delivery, status: number | undefined, dryRun: boolean): string {
  const maybeStrike =
    status === 429
      ? ' Its answer was cut off after the status line: if that 429 was the 6-hour refusal rather than the request limiter, ' +
        'the service counted a strike against the key (5 within 6 hours revoke it).'
      : ''
  switch (delivery) {
    case 'not-sent':
      return dryRun ? 'Nothing was sent (dry run).' : 'The stats update was not sent.'
    case 'answered':
      return `The stats update was sent and answered${status === undefined ? '' : ` (${status})`}.${maybeStrike}`
    case 'arrived':
      return 'The stats update was sent and answered.'
    case 'no-answer':
      return (
        'The stats update was sent, and no answer came back: the service may have stored it. ' +
        'With cooldown-check: true the next run reads the public record first and does not send it twice.'
      )
  }
}
