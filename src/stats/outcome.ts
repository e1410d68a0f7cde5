import type { ActionError } from '../errors.js'
import type { Requests } from '../http/client.js'
import type { KeyCheck } from '../keys.js'
import type { StatsSettings } from '../settings.js'
import type { RecordRead } from './window.js'

/**
 * The words the stages of a stats run share: the counts (inputs, manifest, Discord), what was
 * sent, and the outcome the report renders. Types only, so that every stage imports them and
 * none imports another stage for them.
 */

/** A count and where it came from, so the log and the summary can say so. */
export interface ResolvedCount {
  readonly value: number
  /** Human-readable origin, e.g. "input command-count", "commands-file commands.json", "Discord". */
  readonly source: string
  /** Read from a source (a manifest, Discord) rather than given as an input. */
  readonly read: boolean
}

export interface Counts {
  readonly command: ResolvedCount | undefined
  readonly server: ResolvedCount | undefined
  /** Things the log should warn about, e.g. duplicate commands counted once. */
  readonly warnings: readonly string[]
}

/** What resolving the counts needs from the settings. */
export type CountInputs = Pick<
  StatsSettings,
  'commandCount' | 'serverCount' | 'commandsFile' | 'countSubcommands' | 'discordToken' | 'discordApiUrl' | 'github'
>

export interface CountDeps {
  readonly requests: Requests
  readonly log: (line: string) => void
}

/** The PATCH body: only the counts that were resolved, as JSON integers. */
export interface StatsBody {
  command_count?: number
  server_count?: number
}

export type StatsResult = 'updated' | 'skipped' | 'cooldown' | 'rate-limited' | 'dry-run' | 'failed'

/**
 * Why nothing was sent (or, in a dry run, why a real run would send nothing):
 * `recent`: the record shows an update within 6 hours; `unverified`: the bot is not verified
 * yet, so its record is not public and its submission counts as an update (the first day);
 * `unchecked`: the record could not be checked (unreadable, cached, untrusted); `nothing`: no
 * count was left to send.
 */
export type SkipReason = 'recent' | 'unverified' | 'unchecked' | 'nothing'

/**
 * What most likely made the service refuse an update as too early (a strike):
 * `overlap`: another run updated the counts after this run read the record; `unverified`: the
 * bot is not verified yet (its submission counts as an update); `unchecked`: the update was
 * sent without reading the record (cooldown-check: false); `unknown`: the record allowed it.
 */
export type StrikeCause = 'overlap' | 'unverified' | 'unchecked' | 'unknown'

/** What happened to the PATCH. */
export type Delivery = 'not-sent' | 'answered' | 'no-answer' | 'arrived'

/** Everything that happened, for the report; `error` is set (and `result` is `failed`) when the step must fail. */
export interface StatsOutcome {
  readonly result: StatsResult
  /** The counts resolved so far, with their sources; undefined when the run failed before. */
  readonly counts: Counts | undefined
  /** What was sent, or would be. */
  readonly body: StatsBody
  readonly delivery: Delivery
  /** The public record read, when cooldown-check is on. */
  readonly record: RecordRead | undefined
  /** HTTP status of the service's answer to the update; undefined when none came. */
  readonly status: number | undefined
  /** The service's own words about the update (its `error` text), or a short description. */
  readonly answer: string | undefined
  readonly nextUpdateAt: Date | undefined
  readonly skip: SkipReason | undefined
  /** After the 6-hour refusal: when another run updated the counts, after this run read the record. */
  readonly overlap: Date | undefined
  /** After the 6-hour refusal: its likely cause. */
  readonly strikeCause: StrikeCause | undefined
  readonly keyCheck: KeyCheck | undefined
  /** What the person reading the log must know about this run, each one a warning. */
  readonly warnings: readonly string[]
  readonly error: ActionError | undefined
  /** When the outcome was decided, by the runner's clock: times are shown relative to it. */
  readonly at: Date
}
