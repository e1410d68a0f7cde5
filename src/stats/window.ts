/**
 * The service's 6-hour window and what a public record says of it: the arithmetic every stats
 * run needs (the next update's time), apart from reading the record (record.ts).
 */

export const HOUR_MS = 60 * 60 * 1000

/** The service accepts one stats update per bot per 6 hours. */
export const COOLDOWN_MS = 6 * HOUR_MS

/**
 * Added to every 6-hour comparison: the runner's clock and the service's may differ, and an
 * update the service sees as a second early is a strike. Covers the `Date` header's whole
 * seconds and the time an answer takes to arrive; a larger difference is measured (`lagMs`).
 */
export const CLOCK_MARGIN_MS = 60_000

/** The parts of the record the action uses. */
export interface PublicRecord {
  /** The bot's name on its listing, for the summary. */
  readonly username: string | undefined
  readonly commands: number | undefined
  readonly servers: number | undefined
  readonly commandsUpdatedAt: Date | undefined
  readonly serversUpdatedAt: Date | undefined
}

/**
 * Why a record was not read:
 * - `unverified`: the service's own 403 (its JSON error), the bot's record is not public until
 *   it is verified (its stats route still works), so it can never protect this bot's update;
 * - `absent`: 404, the service lists no such bot (the update will be answered 404 too);
 * - `unreachable`: no connection could be made at all (refused, DNS, TLS): the update could
 *   not get through either, and a wrong base-url must not pass as a skip;
 * - `unreadable`: anything else that may pass (read limiter, 5xx, a connection lost
 *   mid-way, a broken answer, a 403 that is not the service's own: a proxy's or a firewall's).
 */
export type RecordProblem = 'unverified' | 'absent' | 'unreachable' | 'unreadable'

export type RecordRead =
  | {
      readonly ok: true
      readonly status: number
      readonly record: PublicRecord
      /** A cache answered (`Age` > 0): the record may be older than the read. */
      readonly cached?: boolean
      /**
       * How far the service's clock is behind the runner's, from the answer's `Date` (0 when not
       * behind).
       */
      readonly lagMs?: number
    }
  | {
      readonly ok: false
      readonly status: number | undefined
      readonly reason: string
      readonly problem: RecordProblem
    }

/** The latest update time the record shows, if any. */
export function lastUpdate(record: PublicRecord): Date | undefined {
  const times = [record.commandsUpdatedAt, record.serversUpdatedAt].filter(
    (d): d is Date => d !== undefined
  )
  return times.length === 0 ? undefined : new Date(Math.max(...times.map(d => d.getTime())))
}

/** When the 6-hour window that the latest update opened closes, by the service's clock. */
export function cooldownEnds(record: PublicRecord): Date | undefined {
  const last = lastUpdate(record)
  return last === undefined ? undefined : new Date(last.getTime() + COOLDOWN_MS)
}

/**
 * From when, by the runner's clock, an update is safe: the window's end, plus how far the
 * service's clock was seen behind ours, plus the margin.
 */
export function acceptsFrom(read: RecordRead & { ok: true }): Date | undefined {
  const end = cooldownEnds(read.record)
  return end === undefined
    ? undefined
    : new Date(end.getTime() + (read.lagMs ?? 0) + CLOCK_MARGIN_MS)
}
