import { StoppedError } from '../errors.js'
import { DeadlineError, type Deps } from '../http/client.js'
import type { HttpAnswer, NetworkError } from '../http/transport.js'
import type { StatsSettings } from '../settings.js'
import { readPublicRecord } from './record.js'
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
  if (answer.headers['retry-after'] !== undefined || body?.retry_after !== undefined)
    return 'limiter'
  return typeof body?.error === 'string' && /too many requests/i.test(body.error)
    ? 'limiter'
    : 'six-hours'
}

/**
 * A failure after the status line and headers arrived (the body cut off, or too slow) is an
 * answer: the service received the update and decided. Its status decides the outcome; the
 * body is not there to read.
 */
export function answerFromStatusLine(error: NetworkError): HttpAnswer | undefined {
  if (error.answered === undefined) return undefined
  return {
    status: error.answered.status,
    headers: error.answered.headers,
    text: '',
    truncated: true,
    json: undefined
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
  deps: Deps,
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
    if (error instanceof StoppedError)
      stopped = `${error.message} It came while the bot's record was read after the refusal.`
    else if (!(error instanceof DeadlineError)) throw error
  }
  const future = (read: RecordRead | undefined): Date | undefined => {
    const from = read?.ok ? acceptsFrom(read) : undefined
    return from !== undefined && from.getTime() > deps.requests.clock.now() ? from : undefined
  }
  const before = first?.ok ? lastUpdate(first.record) : undefined
  const after = fresh?.ok ? lastUpdate(fresh.record) : undefined
  const overlap =
    first?.ok && after !== undefined && (before === undefined || after > before) ? after : undefined
  const strikeCause = causeOfStrike(overlap, first, fresh)
  return { found: { nextUpdateAt: future(fresh) ?? future(first), overlap, strikeCause }, stopped }
}

/**
 * Why the update came early, most telling first: another run's update, a record the service does
 * not show yet, a run that did not read the record first, or nothing this run can tell.
 */
function causeOfStrike(
  overlap: Date | undefined,
  first: RecordRead | undefined,
  fresh: RecordRead | undefined
): StrikeCause {
  if (overlap !== undefined) return 'overlap'
  if (fresh?.ok === false && fresh.problem === 'unverified') return 'unverified'
  if (first === undefined) return 'unchecked'
  return 'unknown'
}

/**
 * For a stopped run: exactly what reached the service. A stop that cut off the answer after its
 * status line: a 429 whose body never came may have been the 6-hour refusal (a strike) or the
 * request limiter (none); the message says which it may be.
 */
export function whatWasSent(
  delivery: Delivery,
  status: number | undefined,
  dryRun: boolean
): string {
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
