import { ActionError } from '../errors.js'
import { type HttpAnswer, NetworkError, retryAfterMs } from '../http.js'
import { DeadlineError, POLICIES, type Requests } from '../requests.js'
import { USER_AGENT } from '../version.js'
import { answerFromStatusLine, explainFailure, kindOf429, serviceMessage } from './answers.js'
import { confirmDelivery } from './delivery.js'
import { acceptsFrom, CLOCK_MARGIN_MS, COOLDOWN_MS, type RecordRead, readPublicRecord } from './record.js'

/** The PATCH body: only the counts that were resolved, as JSON integers. */
export interface StatsBody {
  command_count?: number
  server_count?: number
}

export type StatsResult = 'updated' | 'skipped' | 'cooldown' | 'rate-limited' | 'dry-run' | 'failed'

/** Everything that happened, for the report; `error` is set when the step must fail. */
export interface StatsOutcome {
  readonly result: StatsResult
  readonly body: StatsBody
  /** Whether the PATCH was sent. */
  readonly sent: boolean
  /** The public record read, when cooldown-check is on. */
  readonly record: RecordRead | undefined
  /** HTTP status of the last answer from the service. */
  readonly status: number | undefined
  /** The service's own words about the update (its `error` text), or a short description. */
  readonly answer: string | undefined
  readonly nextUpdateAt: Date | undefined
  /** What the person reading the log must know about this run (each one a warning); none when absent. */
  readonly warnings?: readonly string[]
  readonly error: ActionError | undefined
}

export interface StatsPlan {
  readonly baseUrl: string
  readonly botId: string
  readonly apiKey: string | undefined
  readonly body: StatsBody
  readonly dryRun: boolean
  readonly cooldownCheck: boolean
}

export interface StatsDeps {
  readonly requests: Requests
  readonly log: (line: string) => void
}

/**
 * Updates the bot's stats within the service's rules. The cooldown check reads the public
 * record first and skips an update the service would refuse as early; when the record
 * cannot be read for a reason that may pass, nothing is sent (a blind update is a strike
 * whenever the last one was recent, and a frequent schedule would spend five in 6 hours).
 *
 * The PATCH is never repeated after an answer (a received status line is one): an update
 * the service refuses as early is a strike against the key, and 5 strikes within 6 hours
 * revoke it (410). The request policy (requests.ts) sends it again only when the connection
 * failed before it could reach the service; after a failure that may have delivered it, a
 * fresh read of the record decides (delivery.ts).
 */
export async function updateStats(plan: StatsPlan, deps: StatsDeps): Promise<StatsOutcome> {
  const record = plan.cooldownCheck ? await readPublicRecord(plan, deps) : undefined
  const warnings: string[] = []
  const base = { body: plan.body, sent: false, record, status: record?.status, answer: undefined, error: undefined, warnings }
  if (record !== undefined && !record.ok && record.problem === 'unverified') {
    warnings.push(
      `The bot's record on discord.place is not public until the bot is verified (${record.status}), so this update is ` +
        'not protected against the 6-hour rule: if the counts were updated less than 6 hours ago, the service refuses ' +
        'it and counts a strike (5 within 6 hours revoke the key). Until the bot is verified, run this at most once every 6 hours.'
    )
  }
  if (record !== undefined && !record.ok && record.problem === 'unreadable') {
    warnings.push(
      `Stats not sent: the bot's public record could not be checked (${record.reason}). An update sent without that check ` +
        'is a strike whenever the last one was less than 6 hours ago, so nothing was sent; the next run will try again. ' +
        '(cooldown-check: false sends without the check.)'
    )
    return { ...base, result: plan.dryRun ? 'dry-run' : 'skipped', nextUpdateAt: undefined }
  }
  if (record !== undefined && !record.ok && record.problem === 'unreachable' && !plan.dryRun) {
    const failure = new ActionError(
      `Could not read the bot's public record: ${record.reason}. Nothing was sent. Check base-url and the runner's network; the next run will try again.`
    )
    return { ...base, result: 'failed', nextUpdateAt: undefined, error: failure }
  }
  if (record !== undefined && !record.ok && record.problem === 'absent' && !plan.dryRun) {
    // The stats route answers 404 for the same bot: fail before spending a request on it.
    const failure = new ActionError(
      `The service lists no bot with ID ${plan.botId} (its public record answered 404), so nothing was sent. ` +
        "Check bot-id: it is the bot's Discord application ID, and the bot must be listed on discord.place."
    )
    return { ...base, result: 'failed', nextUpdateAt: undefined, error: failure }
  }
  const from = record?.ok ? acceptsFrom(record) : undefined
  const waiting = from !== undefined && from.getTime() > now(deps).getTime()
  if (record?.ok && record.cached && !waiting && !plan.dryRun) {
    // A copy from a cache (Age > 0) may predate the last update: it can hold an update back,
    // never clear one.
    warnings.push(
      "Stats not sent: the bot's public record came from a cache (Age header above 0), so it may not show the latest " +
        'update, and an update within 6 hours of it would be a strike. The next run will try again. ' +
        '(cooldown-check: false sends without the check.)'
    )
    return { ...base, result: 'skipped', nextUpdateAt: undefined }
  }

  if (plan.dryRun) {
    if (waiting) deps.log(`Dry run: a real run would skip the update until ${from.toISOString()}.`)
    return { ...base, result: 'dry-run', nextUpdateAt: from }
  }
  if (waiting) return { ...base, result: 'skipped', nextUpdateAt: from }
  return sendStats(plan, deps, record, warnings)
}

async function sendStats(plan: StatsPlan, deps: StatsDeps, record: RecordRead | undefined, warnings: string[]): Promise<StatsOutcome> {
  const sentAt = now(deps).getTime()
  let answer: HttpAnswer
  try {
    answer = await patch(plan, deps)
  } catch (error) {
    if (!(error instanceof NetworkError)) throw error
    const cut = answerFromStatusLine(error)
    if (cut !== undefined) {
      deps.log(`The answer stopped after its status line (${error.message}); the service answered, so the update is not sent again.`)
      return settle(plan, deps, record, warnings, cut)
    }
    const delivery = error.delivered ? await confirmDelivery(plan, deps, error, sentAt) : 'absent'
    if (delivery === 'resend') {
      deps.log('The public record shows the update did not arrive and none is due before it; sending it once more.')
      return sendOnce(plan, deps, record, warnings)
    }
    if (delivery === 'arrived') {
      deps.log('The connection failed after the update was sent, but the public record shows it arrived.')
      return outcome(plan, record, warnings, {
        result: 'updated',
        status: undefined,
        answer: 'no answer (the connection failed), but the public record shows the update',
        nextUpdateAt: sixHoursFromNow(deps)
      })
    }
    const after =
      delivery === 'unknown'
        ? ' The update may have reached the service, so it was not sent again: a second update within 6 hours ' +
          "would count as a strike against the key. Check the bot's page; the next run will update it if needed."
        : " Nothing reached the service. Check base-url and the runner's network; the next run will try again."
    const failure = new ActionError(`Stats update failed: ${error.message}.${after}`)
    return outcome(plan, record, warnings, { result: 'failed', sent: error.delivered, status: undefined, error: failure })
  }
  return settle(plan, deps, record, warnings, answer)
}

/** The one resend a confirmed non-delivery allows: whatever happens, it is not repeated. */
async function sendOnce(plan: StatsPlan, deps: StatsDeps, record: RecordRead | undefined, warnings: string[]): Promise<StatsOutcome> {
  try {
    return await settle(plan, deps, record, warnings, await patch(plan, deps))
  } catch (error) {
    if (!(error instanceof NetworkError)) throw error
    const cut = answerFromStatusLine(error)
    if (cut !== undefined) return settle(plan, deps, record, warnings, cut)
    const failure = new ActionError(`Stats update failed twice: ${error.message}. It is not sent again; the next run will try.`)
    return outcome(plan, record, warnings, { result: 'failed', sent: true, status: undefined, error: failure })
  }
}

function patch(plan: StatsPlan, deps: StatsDeps): Promise<HttpAnswer> {
  if (plan.apiKey === undefined) throw new Error('an update needs the API key; settings guarantee it outside dry runs')
  deps.log(`Sending PATCH ${plan.baseUrl}/bots/${plan.botId}/stats with ${JSON.stringify(plan.body)}`)
  return deps.requests.send(
    {
      method: 'PATCH',
      url: `${plan.baseUrl}/bots/${plan.botId}/stats`,
      headers: { Authorization: plan.apiKey, 'Content-Type': 'application/json', Accept: 'application/json', 'User-Agent': USER_AGENT },
      body: JSON.stringify(plan.body)
    },
    POLICIES.stats
  )
}

/** The outcome of the service's answer to the PATCH. */
async function settle(
  plan: StatsPlan,
  deps: StatsDeps,
  record: RecordRead | undefined,
  warnings: string[],
  answer: HttpAnswer
): Promise<StatsOutcome> {
  const serviceText = serviceMessage(answer)
  deps.log(`The service answered ${answer.status}${serviceText === undefined ? '' : `: ${serviceText}`}`)
  const fields = { status: answer.status, answer: serviceText }
  if (answer.status >= 200 && answer.status < 300) {
    return outcome(plan, record, warnings, { ...fields, result: 'updated', nextUpdateAt: sixHoursFromNow(deps) })
  }
  if (answer.status === 429 && kindOf429(answer) === 'limiter') {
    // Turned away before the service looked at the update: try again once the limiter's
    // window has passed, or later if the record says the 6-hour window ends later.
    // Only the wait it named: RateLimit-Reset ends the limiter's window, which says nothing
    // about when an update is accepted (interface.md: never next-update-at's source).
    const wait = retryAfterMs(answer, { limiterReset: false })
    const fromLimiter = wait === undefined ? undefined : new Date(now(deps).getTime() + wait)
    const fromRecord = record?.ok ? acceptsFrom(record) : undefined
    const next = [fromLimiter, fromRecord].filter((d): d is Date => d !== undefined && d > now(deps))
    const nextUpdateAt = next.length === 0 ? undefined : new Date(Math.max(...next.map(d => d.getTime())))
    return outcome(plan, record, warnings, { ...fields, result: 'rate-limited', nextUpdateAt })
  }
  if (answer.status === 429) {
    // The 6-hour rule: its answer carries only the request limiter's RateLimit-* headers,
    // which say nothing about when the next update is accepted. The record does.
    return outcome(plan, record, warnings, { ...fields, result: 'cooldown', nextUpdateAt: await cooldownFromRecord(plan, deps, record) })
  }
  const failure = new ActionError(explainFailure(answer, serviceText, plan))
  return outcome(plan, record, warnings, { ...fields, result: 'failed', error: failure })
}

/** When the record says the next update is accepted: from the read already made, or a new one. */
async function cooldownFromRecord(plan: StatsPlan, deps: StatsDeps, record: RecordRead | undefined): Promise<Date | undefined> {
  const future = (read: RecordRead | undefined): Date | undefined => {
    const from = read?.ok ? acceptsFrom(read) : undefined
    return from !== undefined && from > now(deps) ? from : undefined
  }
  if (future(record) !== undefined) return future(record)
  try {
    return future(await readPublicRecord(plan, deps))
  } catch (error) {
    if (error instanceof DeadlineError) return undefined
    throw error
  }
}

function outcome(
  plan: StatsPlan,
  record: RecordRead | undefined,
  warnings: readonly string[],
  fields: Pick<StatsOutcome, 'result' | 'status'> & Partial<StatsOutcome>
): StatsOutcome {
  return { body: plan.body, sent: true, record, answer: undefined, nextUpdateAt: undefined, error: undefined, warnings, ...fields }
}

function now(deps: StatsDeps): Date {
  return new Date(deps.requests.clock.now())
}

/** After an update: 6 hours, and the clock margin, from now. */
function sixHoursFromNow(deps: StatsDeps): Date {
  return new Date(now(deps).getTime() + COOLDOWN_MS + CLOCK_MARGIN_MS)
}
