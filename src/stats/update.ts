import { ActionError, StoppedError } from '../errors.js'
import { type HttpAnswer, NetworkError, retryAfterMs } from '../http/transport.js'
import {
  DeadlineError,
  type Deps,
  MIN_ATTEMPT_MS,
  type Policy,
  READ_DEFAULTS
} from '../http/client.js'
import { checkKey, keyAnswerOf } from '../keys.js'
import { keyedHeaders, serviceMessage } from '../service.js'
import type { StatsSettings } from '../settings.js'
import type { Evidence } from './diagnosis.js'
import { afterRefusal, answerFromStatusLine, kindOf429, whatWasSent } from './answers.js'
import { localCounts, needsDiscord, withDiscordCounts, withoutErasure } from './counts.js'
import { confirmDelivery } from './delivery.js'
import type { Counts, Delivery, OutcomeId, SkipReason, StatsBody, StatsOutcome } from './outcome.js'
import { answeredWith, factsOf, runWording, STATS_OUTCOMES } from './outcome.js'
import { holdBack, readPublicRecord } from './record.js'
import { withScheduleCheck } from './schedule.js'
import {
  acceptsFrom,
  CLOCK_MARGIN_MS,
  COOLDOWN_MS,
  HOUR_MS,
  lastUpdate,
  type RecordRead
} from './window.js'

/**
 * How the update is sent. Not like a read: the service allows one update per 6 hours, an update
 * it refuses as early is a strike, and 5 strikes revoke the key. So the PATCH is sent again only
 * when the connection failed before the request could reach the service (refused, DNS, TLS
 * handshake), never after any answer; after a failure that may have delivered it (a reset or a
 * timeout once the request was out), only when a fresh read of the public record shows it did
 * not arrive (delivery.ts). It is sent with at least MIN_ATTEMPT_MS of the step's time left.
 */
export const STATS_POLICY: Policy = {
  ...READ_DEFAULTS,
  name: 'the stats update',
  attempts: 2,
  retryStatuses: [],
  retryNetwork: 'undelivered',
  minAttemptMs: MIN_ATTEMPT_MS
}

/** What a run knows so far: a failure or a stop reports it. */
interface Progress {
  counts: Counts | undefined
  record: RecordRead | undefined
  body: StatsBody
  delivery: Delivery
  /** The status of the service's answer to the update, once one came. */
  status: number | undefined
  warnings: string[]
}

/**
 * The stats mode: reads the counts given and the manifest, then the public record (the
 * cooldown check), and only when the update is due asks Discord and sends it. The record
 * check skips an update the service would refuse as early; when the record cannot be read for
 * a reason that may pass, nothing is sent (a blind update is a strike whenever the last one was
 * recent). A run that sends nothing still checks the key, with a request that spends no update.
 * The PATCH is never repeated after an answer (a received status line is one): see STATS_POLICY.
 * Returns an outcome for every expected end, a stop included; throws only for a bug.
 */
export async function runStats(settings: StatsSettings, deps: Deps): Promise<StatsOutcome> {
  const outcome = await statsRun(settings, deps)
  // A run started by the schedule warns before GitHub disables the schedule (interface.md, "A
  // schedule that never goes quiet"): after the run's own requests, never in front of the update.
  // A static import, unlike the other optional parts: most runs are scheduled, and loading it as a
  // chunk made such a run 2 % slower (paired bench, BENCH_EVENT=schedule: 0.817x against 0.799x
  // the fetch script), while a run of another event pays about 1 % for having it in the bundle.
  if (settings.github.eventName !== 'schedule') return outcome
  return withScheduleCheck(settings, deps, outcome)
}

/** The stats run itself: an outcome for every expected end. */
async function statsRun(settings: StatsSettings, deps: Deps): Promise<StatsOutcome> {
  const progress: Progress = {
    counts: undefined,
    record: undefined,
    body: {},
    delivery: 'not-sent',
    status: undefined,
    warnings: []
  }
  try {
    return await decide(settings, deps, progress)
  } catch (error) {
    if (error instanceof StoppedError) {
      const message = `${error.message} ${whatWasSent(progress.delivery, progress.status, settings.dryRun)}`
      return failed(deps, progress, new ActionError(message, { headline: error.headline }))
    }
    if (error instanceof ActionError) return failed(deps, progress, error)
    throw error
  }
}

async function decide(
  settings: StatsSettings,
  deps: Deps,
  progress: Progress
): Promise<StatsOutcome> {
  progress.counts = await localCounts(settings, deps)
  logCounts(progress.counts, deps)
  progress.body = bodyOf(progress.counts)
  if (settings.cooldownCheck) {
    progress.record = await readPublicRecord(settings, deps)
    const held = holdBack(progress.record, settings.botId, now(deps))
    if (held !== undefined) {
      if (held.warning !== undefined) progress.warnings.push(held.warning)
      return notSent(settings, deps, progress, held.skip, held.nextUpdateAt)
    }
  }
  // The update is due: now, and only now, Discord is asked for what it fills in.
  const { record } = progress
  if (needsDiscord(settings, progress.counts)) {
    progress.counts = await withDiscordCounts(settings, progress.counts, deps)
    logCounts(progress.counts, deps, 'Discord')
  }
  progress.counts = withoutErasure(progress.counts, record?.ok ? record.record : undefined)
  progress.body = bodyOf(progress.counts)
  if (progress.body.command_count === undefined && progress.body.server_count === undefined) {
    return notSent(settings, deps, progress, 'nothing', undefined)
  }
  // A dry run of a due update still says from when the record accepts one (already passed).
  if (settings.dryRun)
    return notSent(
      settings,
      deps,
      progress,
      undefined,
      record?.ok ? acceptsFrom(record) : undefined
    )
  return sendUpdate(settings, deps, progress)
}

/**
 * A run that sends no update: skipped (or a dry run). The key is still checked when there is
 * one, so that a wrong or replaced key fails the step now rather than at the next update.
 */
async function notSent(
  settings: StatsSettings,
  deps: Deps,
  progress: Progress,
  skip: SkipReason | undefined,
  nextUpdateAt: Date | undefined
): Promise<StatsOutcome> {
  const keyCheck =
    settings.apiKey === undefined
      ? undefined
      : await checkKey({ ...settings, apiKey: settings.apiKey }, deps)
  if (keyCheck?.state === 'unchecked') {
    progress.warnings.push(
      `The API key could not be checked (${keyCheck.reason}); the next run will check it.`
    )
  }
  if (settings.dryRun) {
    // The set-up check: what in the workflow would cost a strike later. Cut off by the deadline
    // or a stop, the dry run fails as a real run would, naming what it did not check.
    const read = await workflowDiagnosis(settings, deps, 'dry-run')
    if (read.cut !== undefined)
      throw new ActionError(`${read.cut} Nothing was sent (dry run).`, { headline: read.headline })
    if (read.shown !== undefined) progress.warnings.push(read.shown)
  }
  return {
    ...base(deps, progress),
    result: settings.dryRun ? 'dry-run' : 'skipped',
    skip,
    nextUpdateAt,
    keyCheck
  }
}

/**
 * How the update ended, before stale-after's judgement: the row of the outcomes' table that words
 * it, and what the outcome records.
 */
interface Ending extends Partial<
  Pick<StatsOutcome, 'status' | 'answer' | 'nextUpdateAt' | 'overlap' | 'strikeCause' | 'failure'>
> {
  readonly id: OutcomeId
  /** A strike's words add what the workflow file shows, and what a stop cut short. */
  readonly workflow?: string | undefined
  readonly stopped?: string | undefined
}

/**
 * Sends the update and ends the run by how it went: the service's answer, by its status, or a
 * connection that failed.
 */
async function sendUpdate(
  settings: StatsSettings,
  deps: Deps,
  progress: Progress
): Promise<StatsOutcome> {
  const sent = await deliver(settings, deps, progress)
  const ending = 'id' in sent ? sent : await judgeAnswer(settings, deps, progress, sent)
  return ended(settings, deps, progress, ending)
}

/**
 * The run's outcome from how the update ended. stale-after judges a passing failure of the service
 * here (`judgedByAge`); then a failure or a strike, which fail the step, carries its row's words
 * as its error.
 */
function ended(
  settings: StatsSettings,
  deps: Deps,
  progress: Progress,
  { id: decided, workflow, stopped, ...fields }: Ending
): StatsOutcome {
  const decidedOutcome = { ...base(deps, progress), ...fields }
  const { id, staleAfter } = judgedByAge(settings, decidedOutcome, decided)
  const outcome = { ...decidedOutcome, staleAfter }
  const row = STATS_OUTCOMES[id]
  if (row.result !== 'failed' && row.result !== 'cooldown')
    return { ...outcome, result: row.result }
  const facts = factsOf(outcome, settings.botId, { workflow, stopped })
  const say = runWording(outcome.at)
  const error = new ActionError(row.says(facts, say), { headline: row.headline(facts, say) })
  return { ...outcome, result: row.result, error }
}

/**
 * Sends the PATCH, and once more only when a fresh read of the record proves the first did not
 * arrive: the service's answer, or how the update ended without one.
 */
async function deliver(
  settings: StatsSettings,
  deps: Deps,
  progress: Progress
): Promise<HttpAnswer | Ending> {
  for (let resent = false; ; resent = true) {
    const sentAt = deps.requests.clock.now()
    try {
      return await patch(settings, deps, progress.body)
    } catch (error) {
      // A stop that cut the PATCH off once it was out: it may have reached the service, and
      // when the answer's status line had come, the service did answer.
      if (error instanceof StoppedError && error.inFlight) {
        progress.delivery = error.answeredStatus === undefined ? 'no-answer' : 'answered'
        progress.status = error.answeredStatus
      }
      if (!(error instanceof NetworkError)) throw error
      const cut = answerFromStatusLine(error)
      if (cut !== undefined) {
        deps.log(
          `The answer stopped after its status line (${error.message}); the service answered, so the update is not sent again.`
        )
        return cut
      }
      // Nothing reached the service (on the first try, or on the resend that the record allowed).
      if (!error.delivered) return { id: 'unreachable', failure: error.message }
      progress.delivery = 'no-answer'
      if (resent) return { id: 'no-answer-twice', failure: error.message }
      const delivery = await confirmDelivery(
        { ...settings, body: progress.body },
        deps,
        error,
        sentAt
      )
      if (delivery === 'arrived') {
        deps.log(
          'The connection failed after the update was sent, but the public record shows it arrived.'
        )
        progress.delivery = 'arrived'
        return { id: 'updated', nextUpdateAt: sixHoursFromNow(deps) }
      }
      // Not arrived, by the record, yet not safe to send again (the request timed out and the
      // service may still be working on it, or an earlier update is within 6 hours): a passing
      // failure, which stale-after judges by the listing's age like a 5xx.
      if (delivery === 'not-arrived') return { id: 'no-answer-not-arrived', failure: error.message }
      if (delivery === 'unknown') return { id: 'no-answer', failure: error.message }
      deps.log(
        'The public record shows the update did not arrive and none is due before it; sending it once more.'
      )
    }
  }
}

function patch(settings: StatsSettings, deps: Deps, body: StatsBody): Promise<HttpAnswer> {
  if (settings.apiKey === undefined)
    throw new Error('an update needs the API key; settings guarantee it outside dry runs')
  deps.log(
    `Sending PATCH ${settings.baseUrl}/bots/${settings.botId}/stats with ${JSON.stringify(body)}`
  )
  return deps.requests.send(
    {
      method: 'PATCH',
      url: `${settings.baseUrl}/bots/${settings.botId}/stats`,
      headers: keyedHeaders(settings.apiKey),
      body: JSON.stringify(body)
    },
    STATS_POLICY
  )
}

/**
 * What the service's answer to the PATCH means, by its status: the row of the outcomes' table that
 * words it.
 */
async function judgeAnswer(
  settings: StatsSettings,
  deps: Deps,
  progress: Progress,
  answer: HttpAnswer
): Promise<Ending> {
  progress.delivery = 'answered'
  progress.status = answer.status
  const { status } = answer
  const said = serviceMessage(answer)
  deps.log(`The service answered ${status}${said === undefined ? '' : `: ${said}`}`)
  const answered = { status, answer: said }
  if (status >= 200 && status < 300)
    return { id: 'updated', ...answered, nextUpdateAt: sixHoursFromNow(deps) }
  if (status === 429 && kindOf429(answer) === 'limiter') {
    const nextUpdateAt = afterLimiter(deps, progress.record, answer)
    return { id: 'rate-limited', ...answered, nextUpdateAt, failure: answeredWith(status, said) }
  }
  if (status === 429) return { ...answered, ...(await strikeFound(settings, deps, progress)) }
  if (status === 400) {
    // The service names the command count when it refuses that; else the server count it checks
    // against Discord's, when one was sent.
    const serverCount = progress.body.server_count !== undefined && !/command/i.test(said ?? '')
    return { id: serverCount ? 'server-count-refused' : 'count-refused', ...answered }
  }
  // 401, 404 and 410 are about the key or the bot, read as the vote check and key check read them.
  const key = keyAnswerOf(status, said)
  if (key !== undefined) return { id: `key-${key}`, ...answered }
  if (status >= 300 && status < 400) return { id: 'redirect', ...answered }
  if (status >= 500)
    return { id: 'service-failed', ...answered, failure: answeredWith(status, said) }
  return { id: 'unexpected', ...answered }
}

/**
 * After the request limiter's 429 (turned away before the service looked at the update): try again
 * once the limiter's window has passed, or later if the record says the 6-hour window ends later.
 * Only the wait it named: RateLimit-Reset ends the limiter's window, which says nothing about
 * when an update is accepted (interface.md: never next-update-at's source).
 */
function afterLimiter(
  deps: Deps,
  record: RecordRead | undefined,
  answer: HttpAnswer
): Date | undefined {
  const wait = retryAfterMs(answer, { limiterReset: false })
  const fromLimiter = wait === undefined ? undefined : new Date(deps.requests.clock.now() + wait)
  const fromRecord = record?.ok ? acceptsFrom(record) : undefined
  const next = [fromLimiter, fromRecord].filter((d): d is Date => d !== undefined && d > now(deps))
  return next.length === 0 ? undefined : new Date(Math.max(...next.map(d => d.getTime())))
}

/**
 * After the 6-hour refusal (a strike): what the fresh record read and the workflow around the step
 * show of its cause, unless the first day does or a stop came.
 */
async function strikeFound(
  settings: StatsSettings,
  deps: Deps,
  progress: Progress
): Promise<Ending> {
  const refusal = await afterRefusal(settings, deps, progress.record)
  const { strikeCause } = refusal.found
  const read =
    refusal.stopped === undefined && strikeCause !== 'unverified'
      ? await workflowDiagnosis(
          settings,
          deps,
          strikeCause === 'unchecked' ? 'unchecked' : 'allowed'
        )
      : {}
  return {
    id: `strike-${strikeCause}`,
    ...refusal.found,
    workflow: read.shown,
    stopped: refusal.stopped ?? read.cut
  }
}

/**
 * The service's passing failures (interface.md, "Scheduled runs"): a 5xx, its request limiter, no
 * connection after the record was read, no answer where a re-read shows the update did not arrive
 * (and none to the resend such a re-read allowed). The owner's failures (bad input, 400, 401, 404,
 * 410, a strike) are not among them: they fail at once, whatever stale-after says.
 */
const PASSING_FAILURES: ReadonlySet<OutcomeId> = new Set<OutcomeId>([
  'service-failed',
  'rate-limited',
  'unreachable',
  'no-answer-not-arrived',
  'no-answer-twice'
])

/**
 * stale-after's judgement, the one place it judges: a passing failure of the service on a listing
 * younger than stale-after hours leaves the step green with its warning (`deferred`, or
 * `rate-limited` for the limiter's); on an older one the step fails, saying how long the listing
 * has gone without an update (`stale`). Off, the listing's age unknown, or another outcome: the
 * row stays as decided, and the run ends as it would without.
 */
function judgedByAge(
  settings: StatsSettings,
  outcome: Omit<StatsOutcome, 'result'>,
  decided: OutcomeId
): { id: OutcomeId; staleAfter?: number } {
  const last = outcome.record?.ok ? lastUpdate(outcome.record.record) : undefined
  const { staleAfter } = settings
  if (!PASSING_FAILURES.has(decided) || staleAfter === undefined || last === undefined)
    return { id: decided }
  if (outcome.at.getTime() - last.getTime() >= staleAfter * HOUR_MS)
    return { id: 'stale', staleAfter }
  return { id: decided === 'rate-limited' ? decided : 'deferred', staleAfter }
}

/**
 * What the workflow that ran the step shows, with its reader loaded only now; `cut` says why it
 * was not checked when a stop or the deadline came first. A bug is still a bug.
 */
async function workflowDiagnosis(
  settings: StatsSettings,
  deps: Deps,
  evidence: Evidence
): Promise<{ shown?: string | undefined; cut?: string; headline?: string | undefined }> {
  const { diagnoseWorkflow } = await import('./diagnosis.js')
  try {
    return { shown: await diagnoseWorkflow(settings, deps, evidence) }
  } catch (error) {
    if (!(error instanceof StoppedError || error instanceof DeadlineError)) throw error
    return {
      cut: `${error.message} The workflow that ran this step was not checked.`,
      headline: error.headline
    }
  }
}

/** One log line per count, with its source; `only` logs just the counts read from that source. */
function logCounts(counts: Counts, deps: Deps, only?: string): void {
  for (const [label, count] of [
    ['Command count', counts.command],
    ['Server count', counts.server]
  ] as const) {
    if (count !== undefined && (only === undefined || count.source.startsWith(only)))
      deps.log(`${label}: ${count.value} (${count.source})`)
  }
}

function bodyOf(counts: Counts): StatsBody {
  return { command_count: counts.command?.value, server_count: counts.server?.value }
}

function base(deps: Deps, progress: Progress) {
  return {
    counts: progress.counts,
    body: progress.body,
    delivery: progress.delivery,
    record: progress.record,
    status: progress.status,
    answer: undefined,
    nextUpdateAt: undefined,
    skip: undefined,
    overlap: undefined,
    strikeCause: undefined,
    keyCheck: undefined,
    failure: undefined,
    staleAfter: undefined,
    warnings: progress.warnings,
    error: undefined,
    at: now(deps)
  } satisfies Omit<StatsOutcome, 'result'>
}

function failed(deps: Deps, progress: Progress, error: ActionError): StatsOutcome {
  return { ...base(deps, progress), result: 'failed', error }
}

function now(deps: Deps): Date {
  return new Date(deps.requests.clock.now())
}

/** After an update: 6 hours, and the clock margin, from now. */
function sixHoursFromNow(deps: Deps): Date {
  return new Date(deps.requests.clock.now() + COOLDOWN_MS + CLOCK_MARGIN_MS)
}
