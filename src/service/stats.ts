import { ActionError } from '../errors.js'
import { excerpt, type HttpAnswer, NetworkError, retryAfterMs } from '../http.js'
import { DeadlineError, POLICIES, type Requests } from '../requests.js'
import { USER_AGENT } from '../version.js'

/** The service accepts one stats update per bot per 6 hours. */
export const COOLDOWN_MS = 6 * 60 * 60 * 1000

/** The PATCH body: only the counts that were resolved, as JSON integers. */
export interface StatsBody {
  command_count?: number
  server_count?: number
}

/** The parts of the bot's public record (`GET /bots/{id}`) the action uses. */
export interface PublicRecord {
  readonly commands: number | undefined
  readonly servers: number | undefined
  readonly commandsUpdatedAt: Date | undefined
  readonly serversUpdatedAt: Date | undefined
}

export type RecordRead =
  | { readonly ok: true; readonly status: number; readonly record: PublicRecord }
  | { readonly ok: false; readonly status: number | undefined; readonly reason: string }

export type StatsResult = 'updated' | 'skipped' | 'cooldown' | 'dry-run' | 'failed'

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
 * Updates the bot's stats within the service's rules: reads the public record first (when
 * asked) and skips an update the service would refuse as too early.
 *
 * The PATCH is never repeated after an answer: an update the service refuses as early is
 * a strike against the key, and 5 strikes within 6 hours revoke it (410). So a 429 is
 * reported as `cooldown`. The request policy (see requests.ts) sends it again only when
 * the connection failed before it could reach the service; after a failure that may have
 * delivered it, a fresh read of the public record decides (see `confirmDelivery`).
 */
export async function updateStats(plan: StatsPlan, deps: StatsDeps): Promise<StatsOutcome> {
  const base = { body: plan.body, sent: false, answer: undefined, error: undefined }
  const record = plan.cooldownCheck ? await readPublicRecord(plan, deps) : undefined
  const cooldownEnd = record?.ok ? cooldownEnds(record.record) : undefined
  const waiting = cooldownEnd !== undefined && cooldownEnd.getTime() > now(deps).getTime()

  if (plan.dryRun) {
    if (waiting) deps.log(`Dry run: a real run would skip the update until ${cooldownEnd.toISOString()}.`)
    return { ...base, result: 'dry-run', record, status: record?.status, nextUpdateAt: cooldownEnd }
  }
  if (waiting) {
    return { ...base, result: 'skipped', record, status: record?.status, nextUpdateAt: cooldownEnd }
  }
  return sendStats(plan, deps, record, cooldownEnd)
}

async function sendStats(
  plan: StatsPlan,
  deps: StatsDeps,
  record: RecordRead | undefined,
  cooldownEnd: Date | undefined
): Promise<StatsOutcome> {
  let answer: HttpAnswer
  const sentAt = now(deps).getTime()
  try {
    answer = await patch(plan, deps)
  } catch (error) {
    if (!(error instanceof NetworkError)) throw error
    const delivery = error.delivered ? await confirmDelivery(plan, deps, error, sentAt) : 'absent'
    if (delivery === 'resend') {
      deps.log('The public record shows the update did not arrive and none is due before it; sending it once more.')
      return sendOnce(plan, deps, record, cooldownEnd)
    }
    if (delivery === 'arrived') {
      deps.log('The connection failed after the update was sent, but the public record shows it arrived.')
      return outcome(plan, record, {
        result: 'updated',
        status: undefined,
        answer: 'no answer (the connection failed), but the public record shows the update',
        nextUpdateAt: new Date(now(deps).getTime() + COOLDOWN_MS)
      })
    }
    const after =
      delivery === 'unknown'
        ? ' The update may have reached the service, so it was not sent again: a second update within 6 hours ' +
          "would count as a strike against the key. Check the bot's page; the next run will update it if needed."
        : " Nothing reached the service. Check base-url and the runner's network; the next run will try again."
    const failure = new ActionError(`Stats update failed: ${error.message}.${after}`)
    return outcome(plan, record, { result: 'failed', sent: error.delivered, status: undefined, error: failure })
  }
  return interpretAnswer(plan, deps, record, cooldownEnd, answer)
}

/** The one resend a confirmed non-delivery allows: whatever happens, it is not repeated. */
async function sendOnce(
  plan: StatsPlan,
  deps: StatsDeps,
  record: RecordRead | undefined,
  cooldownEnd: Date | undefined
): Promise<StatsOutcome> {
  try {
    return interpretAnswer(plan, deps, record, cooldownEnd, await patch(plan, deps))
  } catch (error) {
    if (!(error instanceof NetworkError)) throw error
    const failure = new ActionError(`Stats update failed twice: ${error.message}. It is not sent again; the next run will try.`)
    return outcome(plan, record, { result: 'failed', sent: true, status: undefined, error: failure })
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

/**
 * After a failure that may have delivered the update, reads the public record again:
 * - `arrived`: a count was updated since just before the PATCH went out;
 * - `resend`: no update within 6 hours, so it did not arrive and a resend cannot be early;
 * - `unknown`: anything else (an earlier update within the window, an unreadable record).
 */
async function confirmDelivery(
  plan: StatsPlan,
  deps: StatsDeps,
  error: NetworkError,
  sentAt: number
): Promise<'arrived' | 'resend' | 'unknown'> {
  deps.log(`The stats update failed after it was sent (${error.message}); reading the public record to see whether it arrived.`)
  // After a timeout the service may still be working on the update (checking the server
  // count with Discord, say): a record read now could show the old time and a resend would
  // be early. So a timeout never leads to a resend; after a dropped connection, the read
  // waits a moment for whatever the service was doing to land.
  const timedOut = error.code === 'ETIMEDOUT'
  let fresh: RecordRead
  try {
    if (!timedOut) await deps.requests.sleep(SETTLE_MS)
    fresh = await readPublicRecord(plan, deps)
  } catch (failure) {
    if (failure instanceof DeadlineError) return 'unknown'
    throw failure
  }
  if (!fresh.ok) return 'unknown'
  const times = [
    plan.body.command_count !== undefined && fresh.record.commandsUpdatedAt,
    plan.body.server_count !== undefined && fresh.record.serversUpdatedAt
  ]
  // A minute of leeway for the runner's clock against the service's.
  if (times.some(time => time instanceof Date && time.getTime() >= sentAt - 60_000)) return 'arrived'
  const end = cooldownEnds(fresh.record)
  return !timedOut && end !== undefined && end.getTime() <= now(deps).getTime() ? 'resend' : 'unknown'
}

/** How long a dropped update gets to land before the record is read again. */
const SETTLE_MS = 2_000

function now(deps: StatsDeps): Date {
  return new Date(deps.requests.clock.now())
}

function interpretAnswer(
  plan: StatsPlan,
  deps: StatsDeps,
  record: RecordRead | undefined,
  cooldownEnd: Date | undefined,
  answer: HttpAnswer
): StatsOutcome {
  const serviceText = serviceMessage(answer)
  deps.log(`The service answered ${answer.status}${serviceText === undefined ? '' : `: ${serviceText}`}`)
  if (answer.status >= 200 && answer.status < 300) {
    return outcome(plan, record, {
      result: 'updated',
      status: answer.status,
      answer: serviceText,
      nextUpdateAt: new Date(now(deps).getTime() + COOLDOWN_MS)
    })
  }
  if (answer.status === 429) {
    const wait = retryAfterMs(answer)
    const fromHeaders = wait === undefined ? undefined : new Date(now(deps).getTime() + wait)
    const fromRecord = cooldownEnd !== undefined && cooldownEnd > now(deps) ? cooldownEnd : undefined
    return outcome(plan, record, {
      result: 'cooldown',
      status: 429,
      answer: serviceText,
      nextUpdateAt: fromRecord ?? fromHeaders
    })
  }
  const failure = new ActionError(explainFailure(answer, serviceText, plan))
  return outcome(plan, record, { result: 'failed', status: answer.status, answer: serviceText, error: failure })
}

function outcome(
  plan: StatsPlan,
  record: RecordRead | undefined,
  fields: Pick<StatsOutcome, 'result' | 'status'> & Partial<StatsOutcome>
): StatsOutcome {
  return { body: plan.body, sent: true, record, answer: undefined, nextUpdateAt: undefined, error: undefined, ...fields }
}

/**
 * Reads the bot's public record. Never fails the run: when the record cannot be read the
 * update goes ahead, and the service's own cooldown answer (429) still protects the key.
 */
export async function readPublicRecord(plan: Pick<StatsPlan, 'baseUrl' | 'botId'>, deps: StatsDeps): Promise<RecordRead> {
  const url = `${plan.baseUrl}/bots/${plan.botId}`
  deps.log(`Reading the bot's public record: GET ${url}`)
  let read: RecordRead
  try {
    // The public record needs no key, and none is sent.
    const answer = await deps.requests.send(
      { method: 'GET', url, headers: { Accept: 'application/json', 'User-Agent': USER_AGENT } },
      POLICIES.record
    )
    read = interpretRecord(answer)
  } catch (error) {
    if (!(error instanceof NetworkError) && !(error instanceof DeadlineError)) throw error
    read = { ok: false, status: undefined, reason: error.message }
  }
  if (!read.ok) deps.log(`Could not read the public record (${read.reason}); going on with the update.`)
  return read
}

/** Turns the answer to `GET /bots/{id}` into a record, or says why it is not one. */
export function interpretRecord(answer: HttpAnswer): RecordRead {
  const { status } = answer
  const reasons: Record<number, string> = {
    403: 'the bot is not verified yet, so its record is not public (403)',
    404: 'the service has no record for this bot (404)',
    429: 'the service is rate limiting reads (429)'
  }
  if (status !== 200) return { ok: false, status, reason: reasons[status] ?? `the service answered ${status}` }
  const json = answer.json
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    return { ok: false, status, reason: 'the answer was not a JSON object' }
  }
  const fields = json as Record<string, unknown>
  const record: PublicRecord = {
    commands: asCount(fields['commands']),
    servers: asCount(fields['servers']),
    commandsUpdatedAt: asDate(fields['commands_updated_at']),
    serversUpdatedAt: asDate(fields['servers_updated_at'])
  }
  if (record.commandsUpdatedAt === undefined && record.serversUpdatedAt === undefined) {
    return { ok: false, status, reason: 'the record has no update times' }
  }
  return { ok: true, status, record }
}

/** When the 6-hour window that the latest update opened closes. */
export function cooldownEnds(record: PublicRecord): Date | undefined {
  const times = [record.commandsUpdatedAt, record.serversUpdatedAt].filter((d): d is Date => d !== undefined)
  if (times.length === 0) return undefined
  return new Date(Math.max(...times.map(d => d.getTime())) + COOLDOWN_MS)
}

/** The service's `error` text when it sent one, else a short description of a non-JSON answer. */
export function serviceMessage(answer: HttpAnswer): string | undefined {
  const json = answer.json as { error?: unknown } | undefined
  if (typeof json?.error === 'string' && json.error.trim() !== '') return excerpt(json.error, 300)
  if (answer.text.trim() === '' || answer.json !== undefined) return undefined
  const type = String(answer.headers['content-type'] ?? 'unknown type').split(';')[0]
  const size = answer.truncated ? 'a large body' : `${Buffer.byteLength(answer.text)} bytes`
  return `a non-JSON answer (${type}, ${size})`
}

/** One line for a refused update: what the service said, and what to do about it. */
export function explainFailure(answer: HttpAnswer, serviceText: string | undefined, plan: Pick<StatsPlan, 'botId' | 'body'>): string {
  const said = `the service answered ${answer.status}${serviceText === undefined ? '' : ` with "${serviceText}"`}`
  const advice = adviceFor(answer.status, serviceText, plan)
  return `Stats update failed: ${said}. ${advice}`
}

function adviceFor(status: number, serviceText: string | undefined, plan: Pick<StatsPlan, 'botId' | 'body'>): string {
  switch (status) {
    case 400:
      if (plan.body.server_count !== undefined && !/command/i.test(serviceText ?? '')) {
        return (
          'The service accepts a server count only within max(50, 10%) of the count Discord reports for the bot. ' +
          'Send the count your bot sees (its guild cache), or read it from Discord.'
        )
      }
      return 'Check command-count (0 to 1000) and server-count (0 to 10000000).'
    case 401:
      return (
        "The API key was refused: the api-key secret is wrong or outdated. Copy the current key from the bot's " +
        'manage page on discord.place into the secret (regenerating a key invalidates the old one).'
      )
    case 404:
      return `The service lists no bot with ID ${plan.botId}. Check bot-id, and that the bot is listed on discord.place.`
    case 410:
      return (
        'The API key was revoked because too many updates were refused as early (5 within 6 hours). ' +
        "Generate a new key on the bot's manage page on discord.place, store it in the secret, and run this " +
        'action at most once every 6 hours with cooldown-check: true.'
      )
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

function asCount(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined
}

function asDate(value: unknown): Date | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined
  const date = new Date(value)
  // Invalid, or out of the range a Date can print (a hostile or broken answer).
  return Number.isNaN(date.getTime()) ? undefined : date
}
