import type { NetworkError } from '../http/transport.js'
import { DeadlineError, type Deps } from '../http/client.js'
import { readPublicRecord } from './record.js'
import { acceptsFrom, type RecordRead } from './window.js'

/** How long a dropped update gets to land before the record is read again. */
const SETTLE_MS = 2_000

/** A minute of leeway for the runner's clock against the service's update times. */
const ARRIVAL_LEEWAY_MS = 60_000

/**
 * After a failure that may have delivered the update (no status line came back), reads the
 * public record again:
 * - `arrived`: a count sent was updated since just before the PATCH went out;
 * - `resend`: no update within 6 hours (margin included), so it did not arrive and a resend
 *   cannot be early;
 * - `not-arrived`: it did not arrive, but a resend is not safe: after a timeout (the service may
 *   still be working on it), or after an earlier update within the window;
 * - `unknown`: the record is unreadable, or a cached one (`Age` > 0), which cannot prove that
 *   something did not arrive.
 */
export async function confirmDelivery(
  plan: {
    readonly baseUrl: string
    readonly botId: string
    readonly body: { command_count?: number; server_count?: number }
  },
  deps: Deps,
  error: NetworkError,
  sentAt: number
): Promise<'arrived' | 'resend' | 'not-arrived' | 'unknown'> {
  deps.log(
    `The stats update failed after it was sent (${error.message}); reading the public record to see whether it arrived.`
  )
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
  if (times.some(time => time instanceof Date && time.getTime() >= sentAt - ARRIVAL_LEEWAY_MS))
    return 'arrived'
  if (fresh.cached) {
    deps.log(
      'The record came from a cache (Age > 0), so it cannot show that the update did not arrive.'
    )
    return 'unknown'
  }
  const from = acceptsFrom(fresh)
  const resendable = from !== undefined && from.getTime() <= deps.requests.clock.now()
  return resendable && !timedOut ? 'resend' : 'not-arrived'
}
