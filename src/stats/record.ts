import { ActionError } from '../errors.js'
import { type HttpAnswer, NetworkError, retryAfterMs } from '../http/transport.js'
import { type Deps, type Policy, READ_DEFAULTS, SERVER_ERRORS } from '../http/client.js'
import { serviceError } from '../service.js'
import { excerpt } from '../text.js'
import { USER_AGENT } from '../version.js'
import type { SkipReason } from './outcome.js'
import { acceptsFrom, type PublicRecord, type RecordRead } from './window.js'

/**
 * Reading the bot's public record (`GET /bots/{id}`, no key), for the cooldown check before an
 * update, the re-read after a strike and the delivery check after a failure; what a record
 * says of the 6-hour window is window.ts.
 */

/**
 * The record keeps the key safe, so it is read patiently: 5xx and network failures are retried
 * here, and the read limiter's 429 is waited out by readPublicRecord, which knows how much of
 * the step's time the update still needs. A record is kept up to a megabyte.
 */
export const RECORD_POLICY: Policy = {
  ...READ_DEFAULTS,
  name: "the bot's public record",
  attempts: 3,
  retryStatuses: SERVER_ERRORS,
  maxBodyBytes: 1024 * 1024
}

/** Read-limiter waits one read may sit out (the live limiter asks for 60 s each). */
const MAX_LIMITER_WAITS = 3

/**
 * How far an update time may lie ahead of the runner's clock: clocks differ, by seconds, not hours.
 */
const FUTURE_TOLERANCE_MS = 60 * 60 * 1000

/**
 * Reads the record. A read the read limiter turns away (429, `Retry-After: 60` on the live
 * service, whose limit of 10 a minute is shared by every job on the runner's address) is
 * waited out and read again, as long as the step's timeout leaves room for the read and the
 * update after it; a 5xx or network failure is retried by the record policy. What is still
 * unreadable then comes back `unreadable`: the caller sends nothing rather than an update
 * that would be a strike whenever the last one was recent. Only the step's own deadline
 * passing throws (DeadlineError).
 */
export async function readPublicRecord(
  plan: { readonly baseUrl: string; readonly botId: string },
  deps: Deps
): Promise<RecordRead> {
  const url = `${plan.baseUrl}/bots/${plan.botId}`
  deps.log(`Reading the bot's public record: GET ${url}`)
  for (let waits = 0; ; waits++) {
    let answer: HttpAnswer
    try {
      // No key: the record is public. no-cache: a cached copy could hide a recent update.
      answer = await deps.requests.send(
        {
          method: 'GET',
          url,
          headers: {
            Accept: 'application/json',
            'Cache-Control': 'no-cache',
            'User-Agent': USER_AGENT
          }
        },
        RECORD_POLICY
      )
    } catch (error) {
      if (!(error instanceof NetworkError)) throw error
      return unreadable(deps, {
        ok: false,
        status: undefined,
        reason: error.message,
        problem: error.delivered ? 'unreadable' : 'unreachable'
      })
    }
    const receivedAt = deps.requests.clock.now()
    const read = interpretRecord(answer, receivedAt)
    if (read.ok)
      return {
        ...read,
        cached: Number(answer.headers['age']) > 0,
        lagMs: lagMs(answer, receivedAt)
      }
    if (answer.status !== 429) return read.problem === 'unreadable' ? unreadable(deps, read) : read

    // The read limiter: wait as long as it asks (at least a second), if the step has room.
    const wait = Math.max(1_000, retryAfterMs(answer) ?? 60_000)
    const room = deps.requests.remainingMs() - 2 * deps.requests.limits.attemptTimeoutMs
    if (waits >= MAX_LIMITER_WAITS || wait > room) {
      const why = `the service's read limit asks for a wait of ${Math.ceil(wait / 1000)} s, more than the step's timeout leaves`
      return unreadable(deps, {
        ...read,
        reason: waits >= MAX_LIMITER_WAITS ? `${read.reason}, ${waits + 1} times` : why
      })
    }
    deps.log(
      `The service's read limit answered 429; reading the record again in ${Math.ceil(wait / 1000)} s.`
    )
    await deps.requests.sleep(wait, RECORD_POLICY)
  }
}

/**
 * What a record read means for an update about to be sent: undefined when it may be sent, or
 * why it is held back (with a warning when the check itself could not be made). A record that
 * shows no update could get through either (the service unreachable, the bot not listed)
 * fails the run; a dry run fails where a real run would, so it promises nothing a real run
 * would not do.
 */
export function holdBack(
  read: RecordRead,
  botId: string,
  now: Date
): { skip: Exclude<SkipReason, 'nothing'>; nextUpdateAt?: Date; warning?: string } | undefined {
  if (!read.ok) {
    switch (read.problem) {
      // The first day: the record stays private until the bot is verified, and the bot's
      // submission stamped its update times, so no read can tell whether an update would be a
      // strike. Nothing is sent until the bot is verified (cooldown-check: false sends anyway).
      case 'unverified':
        return { skip: 'unverified' }
      case 'unreadable':
        return {
          skip: 'unchecked',
          warning:
            `Stats not sent: the bot's public record could not be checked (${read.reason}). An update sent without that check ` +
            'is a strike whenever the last one was less than 6 hours ago, so nothing was sent; the next run will try again.'
        }
      case 'unreachable':
        throw new ActionError(
          `Could not read the bot's public record: ${read.reason}. Nothing was sent. Check base-url and the runner's network; the next run will try again.`,
          { headline: 'discord.place unreachable' }
        )
      case 'absent':
        // The stats route answers 404 for the same bot: fail before spending a request on it.
        throw new ActionError(
          `The service lists no bot with ID ${botId} (its public record answered 404), so nothing was sent. ` +
            "Check bot-id: it is the bot's Discord application ID, and the bot must be listed on discord.place.",
          { headline: 'bot not listed on discord.place' }
        )
    }
  }
  const from = acceptsFrom(read)
  if (from !== undefined && from > now) return { skip: 'recent', nextUpdateAt: from }
  // A copy from a cache (Age > 0) may predate the last update: it can hold an update back,
  // never clear one.
  if (read.cached === true) {
    return {
      skip: 'unchecked',
      warning:
        "Stats not sent: the bot's public record came from a cache (Age header above 0), so it may not show the latest " +
        'update, and an update within 6 hours of it would be a strike. The next run will try again. (cooldown-check: false sends without the check.)'
    }
  }
  return undefined
}

function unreadable(deps: Deps, read: RecordRead & { ok: false }): RecordRead {
  deps.log(`Could not read the public record (${read.reason}).`)
  return read
}

/**
 * How far the service's clock is behind ours when it answered, from its `Date` header. The
 * header is in whole seconds, so a second is allowed for; a clock ahead of ours only makes
 * the check stricter, so it is not corrected for. A missing or broken header counts as 0
 * (the margin still applies).
 */
function lagMs(answer: HttpAnswer, receivedAt: number): number {
  const date = Date.parse(String(answer.headers['date'] ?? ''))
  if (Number.isNaN(date)) return 0
  // A day at most: past that the header is broken, not a clock.
  return Math.min(Math.max(0, receivedAt - date - 1_000), 86_400_000)
}

/** Turns the answer to `GET /bots/{id}` into a record, or says why it is not one. */
export function interpretRecord(answer: HttpAnswer, now: number = Date.now()): RecordRead {
  const { status } = answer
  // Only the service's own words mean "not verified" (routes/bots/[id]/index.js:51): any other 403,
  // a firewall's page or a gateway's JSON in the service's shape, says nothing about the bot, and
  // taking it for the first day would hold updates and advise sending without the check.
  const said = serviceError(answer)
  if (status === 403 && isServiceAnswer(answer) && NOT_VERIFIED.test(said ?? '')) {
    return {
      ok: false,
      status,
      problem: 'unverified',
      reason: 'the bot is not verified yet, so its record is not public (403)'
    }
  }
  if (status === 403) {
    return {
      ok: false,
      status,
      problem: 'unreadable',
      reason: `a 403 ("${said ?? excerpt(answer.text, 120)}") that is not the service's own "not verified" answer: a gateway or firewall in the way?`
    }
  }
  if (status === 404)
    return {
      ok: false,
      status,
      problem: 'absent',
      reason: 'the service has no record for this bot (404)'
    }
  if (status === 429)
    return {
      ok: false,
      status,
      problem: 'unreadable',
      reason: 'the service is limiting reads (429)'
    }
  if (status !== 200)
    return { ok: false, status, problem: 'unreadable', reason: `the service answered ${status}` }
  const json = answer.json
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    return { ok: false, status, problem: 'unreadable', reason: 'the answer was not a JSON object' }
  }
  const fields = json as Record<string, unknown>
  const record: PublicRecord = {
    username:
      typeof fields['username'] === 'string' && fields['username'].trim() !== ''
        ? fields['username'].trim()
        : undefined,
    commands: asCount(fields['commands']),
    servers: asCount(fields['servers']),
    commandsUpdatedAt: asDate(fields['commands_updated_at']),
    serversUpdatedAt: asDate(fields['servers_updated_at'])
  }
  if (record.commandsUpdatedAt === undefined && record.serversUpdatedAt === undefined) {
    return { ok: false, status, problem: 'unreadable', reason: 'the record has no update times' }
  }
  // The service stamps an update with its own clock, so a time well past ours is a broken (or
  // hostile) record, not a clock: trusting it would skip every update until that date.
  const future = [record.commandsUpdatedAt, record.serversUpdatedAt].find(
    d => d !== undefined && d.getTime() > now + FUTURE_TOLERANCE_MS
  )
  if (future !== undefined) {
    return {
      ok: false,
      status,
      problem: 'unreadable',
      reason: `its update time ${future.toISOString()} is later than the runner's clock (${new Date(now).toISOString()}), so it cannot be trusted`
    }
  }
  return { ok: true, status, record }
}

/** The service's words for a bot it has not verified yet. */
const NOT_VERIFIED = /^This bot is not verified yet\.?$/i

/** The service's own error shape: JSON (by its content type) with `success: false`. */
function isServiceAnswer(answer: HttpAnswer): boolean {
  const json = answer.json as { success?: unknown } | undefined
  const type = String(answer.headers['content-type'] ?? '')
  return /^application\/json\b/i.test(type) && json?.success === false
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
