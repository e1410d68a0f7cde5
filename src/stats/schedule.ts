import { readFileSync, statSync } from 'node:fs'
import { ActionError, StoppedError } from '../errors.js'
import { DeadlineError, type Deps, type Policy, READ_DEFAULTS } from '../http/client.js'
import type { StatsSettings } from '../settings.js'
import {
  type ScheduleCheck,
  SCHEDULE_WORDS,
  scheduleFactsOf,
  runWording,
  type StatsOutcome
} from './outcome.js'

/**
 * A schedule that never goes quiet (interface.md, 2026-11-29). In a public repository, GitHub
 * disables a workflow's schedule after 60 days without activity; no run then means no
 * stale-after and no error, and the listing's counts freeze. A run started by the schedule is
 * the one thing that can say so in time, so it does: loaded only on such a run, after the stats
 * run's own requests. It never writes to the repository: keeping a schedule alive artificially
 * is against GitHub's terms.
 */

const DAY_MS = 24 * 60 * 60 * 1000
/** GitHub's rule: a public repository's schedules stop after 60 days without activity. */
const DISABLED_AFTER_DAYS = 60
/** From then on a run warns: 15 days before the date, time for a push even on a weekly schedule. */
const WARN_FROM_DAYS = 45
/** From then on, with stale-after set, the step fails: GitHub's failure e-mail comes in time. */
const FAIL_FROM_DAYS = 55

/** The largest event payload read; a schedule's is a few kilobytes. */
const MAX_EVENT_BYTES = 1024 * 1024

/**
 * The repository read, when the event names no last push: one try, since the next scheduled run
 * reads again days before the date matters, and a warning is not worth more of the step's time.
 */
const LAST_PUSH_POLICY: Policy = {
  ...READ_DEFAULTS,
  name: "GitHub's API (the repository's last push)",
  attempts: 1,
  retryStatuses: []
}

/**
 * The stats run's outcome with what the schedule shows. From 55 days with stale-after set, the
 * step fails with the warning's sentence and how the stats run went as its one error; `result`
 * and the other outputs stay the stats run's.
 */
export async function withScheduleCheck(
  settings: StatsSettings,
  deps: Deps,
  outcome: StatsOutcome
): Promise<StatsOutcome> {
  const schedule = await checkSchedule(settings, deps, outcome.at)
  if (schedule === undefined) return outcome
  if (schedule.stage !== 'failing') return { ...outcome, schedule }
  const says = SCHEDULE_WORDS.failing.says(
    scheduleFactsOf({ ...outcome, schedule }, settings.botId),
    runWording(outcome.at)
  )
  // A run that failed on its own keeps its headline; one that did not is headed by the schedule.
  return {
    ...outcome,
    schedule,
    error: new ActionError(says, { headline: outcome.error?.headline })
  }
}

/**
 * What the repository's last push says about the schedule, or undefined when there is nothing to
 * say (a private repository, a push under 45 days ago, a run that was stopped).
 */
async function checkSchedule(
  settings: StatsSettings,
  deps: Deps,
  now: Date
): Promise<ScheduleCheck | undefined> {
  const event = eventRepository(settings.github.eventPath)
  // Only a public repository's schedules stop; the event says which it is.
  if (event.private === true) return undefined
  const fromEvent = pushDate(event.pushed_at)
  if (fromEvent !== undefined)
    return event.private === false ? stageOf(fromEvent, now, settings.staleAfter) : undefined
  const read = await readLastPush(settings, deps)
  if (read === undefined || 'reason' in read) return read
  if ((event.private ?? read.private) !== false) return undefined
  return stageOf(read.lastPush, now, settings.staleAfter)
}

/** The stage the last push puts the schedule at `now`; undefined under 45 days. */
function stageOf(
  lastPush: Date,
  now: Date,
  staleAfter: number | undefined
): ScheduleCheck | undefined {
  const disabledAround = new Date(lastPush.getTime() + DISABLED_AFTER_DAYS * DAY_MS)
  const days = (now.getTime() - lastPush.getTime()) / DAY_MS
  if (now >= disabledAround) return { stage: 'past', disabledAround, lastPush }
  // stale-after is the owner's word that a listing which stops updating should be loud.
  if (days >= FAIL_FROM_DAYS && staleAfter !== undefined)
    return { stage: 'failing', disabledAround, lastPush }
  if (days >= WARN_FROM_DAYS) return { stage: 'soon', disabledAround, lastPush }
  return undefined
}

/**
 * `repository.pushed_at` as GitHub writes it: ISO text in a schedule's payload and the REST API,
 * seconds since 1970 in a push's. Undefined for anything else.
 */
function pushDate(value: unknown): Date | undefined {
  let ms = NaN
  if (typeof value === 'number') ms = value * 1000
  if (typeof value === 'string') ms = Date.parse(value)
  return Number.isFinite(ms) ? new Date(ms) : undefined
}

/**
 * The event payload's `repository`: empty when the runner gave no payload, or one that is not a
 * regular file of JSON within its size. Read synchronously, as the runner's own small file: the
 * promise API would load eight more of Node's modules and start its thread pool, on every
 * scheduled run, for one read.
 */
function eventRepository(path: string | undefined): { private?: unknown; pushed_at?: unknown } {
  if (path === undefined) return {}
  try {
    const found = statSync(path)
    if (!found.isFile() || found.size > MAX_EVENT_BYTES) return {}
    const event: unknown = JSON.parse(readFileSync(path, 'utf8'))
    const repository = isObject(event) ? event['repository'] : undefined
    return isObject(repository) ? repository : {}
  } catch {
    return {}
  }
}

/**
 * The one read of the repository (`GET /repos/{owner}/{repo}` with github-token), for an event
 * that names no last push. Refused, failed or cut off by the step's deadline: the reason, for
 * one notice. Stopped: undefined, and nothing is said.
 */
async function readLastPush(
  settings: StatsSettings,
  deps: Deps
): Promise<{ lastPush: Date; private: unknown } | { stage: 'unread'; reason: string } | undefined> {
  const { token, repository, apiUrl } = settings.github
  const unread = (reason: string) => ({ stage: 'unread' as const, reason })
  if (token === undefined) return unread('no github-token')
  if (repository === undefined) return unread('GITHUB_REPOSITORY is not set')
  const { readRepository } = await import('./github.js')
  try {
    const found = await readRepository(
      { token, repository, apiUrl },
      deps.requests,
      LAST_PUSH_POLICY
    )
    const lastPush = pushDate(found.pushed_at)
    if (lastPush === undefined) return unread("GitHub's answer names no last push")
    return { lastPush, private: found.private }
  } catch (error) {
    if (error instanceof StoppedError) return undefined
    if (error instanceof DeadlineError) return unread("the step's timeout left no time for it")
    return unread(error instanceof Error ? error.message : String(error))
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
