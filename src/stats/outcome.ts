import type { ActionError } from '../errors.js'
import { KEY_ANSWERS, type KeyCheck } from '../keys.js'
import type { StatsSettings } from '../settings.js'
import { utc, when } from '../summary.js'
import { HOUR_MS, lastUpdate, type RecordRead } from './window.js'

/**
 * What the stages of a stats run share: the counts (inputs, manifest, Discord), what was sent,
 * and the outcome, with each outcome's words (the table below), which the report renders. No
 * stage imports another stage for them.
 */

/** A count and where it came from, so the log and the summary can say so. */
export interface ResolvedCount {
  readonly value: number
  /**
   * Human-readable origin, e.g. "input command-count", "commands-file commands.json", "Discord".
   */
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
  | 'commandCount'
  | 'serverCount'
  | 'commandsFile'
  | 'countSubcommands'
  | 'discordToken'
  | 'discordApiUrl'
  | 'github'
>

/** The PATCH body: only the counts that were resolved, as JSON integers. */
export interface StatsBody {
  command_count?: number
  server_count?: number
}

export type StatsResult =
  'updated' | 'skipped' | 'cooldown' | 'rate-limited' | 'deferred' | 'dry-run' | 'failed'

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

/**
 * Everything that happened, for the report; `error` is set (and `result` is `failed`) when the step
 * must fail.
 */
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
  /**
   * After the 6-hour refusal: when another run updated the counts, after this run read the record.
   */
  readonly overlap: Date | undefined
  /** After the 6-hour refusal: its likely cause. */
  readonly strikeCause: StrikeCause | undefined
  readonly keyCheck: KeyCheck | undefined
  /**
   * The service's passing failure that a deferred (or stale) run names: its answer, or the
   * connection's failure.
   */
  readonly failure: string | undefined
  /**
   * stale-after, in hours, when it judged this run: the summary and the line then give the
   * listing's age.
   */
  readonly staleAfter: number | undefined
  /** What the person reading the log must know about this run, each one a warning. */
  readonly warnings: readonly string[]
  readonly error: ActionError | undefined
  /** When the outcome was decided, by the runner's clock: times are shown relative to it. */
  readonly at: Date
  /**
   * A run started by the schedule: what it found about GitHub disabling the schedule, when there
   * is something to say.
   */
  readonly schedule?: ScheduleCheck
}

/**
 * What a run started by the schedule found (interface.md, "A schedule that never goes quiet"):
 * `soon`, 45 days or more since the repository's last push; `failing`, 55 or more with
 * stale-after set, so the step fails; `past`, the date has passed and the schedule still runs;
 * `unread`, the last push could not be read.
 */
export type ScheduleCheck =
  | {
      readonly stage: 'soon' | 'failing' | 'past'
      /** 60 days after the last push: when GitHub disables the schedule, as far as one can tell. */
      readonly disabledAround: Date
      readonly lastPush: Date
    }
  | { readonly stage: 'unread'; readonly reason: string }

/**
 * The stats mode's outcomes: for each, its `result`, the summary headline's mark and words, and
 * what the run says (the log line or annotation of a run that succeeds, the error of one that
 * fails, with its advice). This table is the one home of those words: `npm run docs` writes
 * them into docs/troubleshooting.md.
 */

/**
 * What a sentence may name, as the run knows it: times as dates, hours and statuses as numbers,
 * and undefined for what it does not know (or, for stale-after, when it is off). How each is
 * written is the Wording's: a run writes its own values, the docs their placeholders.
 */
export interface Facts {
  readonly botId: string
  readonly body: StatsBody
  /** When the next update is accepted, and when the counts were last updated. */
  readonly next: Date | undefined
  readonly last: Date | undefined
  /** The answer's status, and the service's words in it. */
  readonly status: number | undefined
  readonly said: string | undefined
  /** When another run updated the counts (a strike from overlapping runs). */
  readonly overlap: Date | undefined
  /** stale-after, in hours, when it judged the run: the words then give the listing's age. */
  readonly staleAfter: number | undefined
  /** The passing failure a deferred or stale run names: the answer, or the network failure. */
  readonly failure: string | undefined
  /** Why nothing was sent, or why a dry run's real run would send nothing. */
  readonly skip: SkipReason | undefined
  /** What the workflow file shows about a strike's cause; what a stop cut short. */
  readonly workflow: string | undefined
  readonly stopped: string | undefined
}

/**
 * How a sentence writes the facts that are not words already. A run writes its own values
 * (`runWording`); scripts/docs.ts writes placeholders such as `<time>` in their place. A sentence
 * that names a fact only where its outcome always knows it (the status of a failing answer, the
 * last update's time that stale-after judged by) leaves the unknown to the wording.
 */
export interface Wording {
  /** A time: `21:05 UTC, 5 h 3 min after this run`. */
  readonly time: (date: Date | undefined) => string
  /** Another run's update, which the sentence places against this run's read: `21:05 UTC`. */
  readonly utc: (date: Date | undefined) => string
  /** How long ago the counts were last updated, in whole hours: `53 h`. */
  readonly age: (last: Date | undefined) => string
  readonly staleAfter: (hours: number | undefined) => string
  readonly status: (status: number | undefined) => string
  /** The update's body, as JSON. */
  readonly body: (body: StatsBody) => string
  /** Why a real run would not send, after "A real run would not send: " in a dry run. */
  readonly reason: (facts: Facts) => string
  /** A day, in UTC: `2026-12-20`. */
  readonly day: (date: Date | undefined) => string
}

/** What a run's wording writes for a fact it does not know, where a sentence names one anyway. */
const UNKNOWN = 'unknown'

/** The facts of a run in its own words, times relative to when its outcome was decided (`at`). */
export function runWording(at: Date): Wording {
  const wording: Wording = {
    time: date => (date === undefined ? UNKNOWN : when(date, at)),
    utc: date => (date === undefined ? UNKNOWN : utc(date, at)),
    age: last =>
      last === undefined ? UNKNOWN : `${Math.floor((at.getTime() - last.getTime()) / HOUR_MS)} h`,
    staleAfter: hours => (hours === undefined ? UNKNOWN : String(hours)),
    status: status => (status === undefined ? UNKNOWN : String(status)),
    body: body => JSON.stringify(body),
    reason: facts => (facts.skip === undefined ? '' : REASONS[facts.skip](facts, wording)),
    day: date => (date === undefined ? UNKNOWN : date.toISOString().slice(0, 10))
  }
  return wording
}

type Words = (facts: Facts, say: Wording) => string

export interface Outcome {
  readonly result: StatsResult
  readonly mark: string
  /** The summary headline's words after the bot's name; after "failed: " for a failure. */
  readonly headline: Words
  readonly says: Words
}

const group = (f: Facts): string =>
  `concurrency: group: discord-place-stats-${f.botId}, cancel-in-progress: false`
const quoted = (f: Facts): string => (f.said === undefined ? '' : `: "${f.said}"`)
const then = (f: Facts, say: Wording, lead: string): string =>
  f.next === undefined ? '' : `${lead}${say.time(f.next)}`
const young = (f: Facts, say: Wording): string =>
  f.staleAfter === undefined || f.last === undefined
    ? ''
    : ` The listing was updated ${say.age(f.last)} ago, under stale-after: ${say.staleAfter(f.staleAfter)}, so the step succeeds.`

/** `the service answered 500 with "…"`: an answer, with the service's words when it sent some. */
export const answeredWith = (status: number | string, said: string | undefined): string =>
  `the service answered ${status}${said === undefined ? '' : ` with "${said}"`}`

/** A failing answer to the update: the headline's words and what to do. */
function failingAnswer({ headline, advice }: { headline: string; advice: Words }): Outcome {
  return {
    result: 'failed',
    mark: '❌',
    headline: () => headline,
    says: (f, say) =>
      `Stats update failed: ${answeredWith(say.status(f.status), f.said)}. ${advice(f, say)}`
  }
}

function strike(cause: Words, overlap = false): Outcome {
  return {
    result: 'cooldown',
    mark: '🛑',
    headline: () => `refused: strike counted${overlap ? ' (another run updated first)' : ''}`,
    says: (f, say) =>
      `Stats update refused as too early (429${quoted(f)}): the service counted a strike against the API key, and 5 strikes ` +
      `within 6 hours revoke it. ${cause(f, say)}${f.workflow === undefined ? '' : ` ${f.workflow}`} ` +
      `${f.next === undefined ? 'When the next update is accepted is unknown.' : `The next update is accepted from ${say.time(f.next)}.`} ` +
      `The update was not retried.${f.stopped === undefined ? '' : ` ${f.stopped}`}`
  }
}

function skipped(mark: string, headline: Words, reason: Words): Outcome {
  return {
    result: 'skipped',
    mark,
    headline,
    says: (f, say) => `Stats not sent: ${reason(f, say)}`
  }
}

/**
 * Why nothing was sent: after "Stats not sent: " in a skip, after "A real run would not send: " in
 * a dry run.
 */
const REASONS = {
  recent: (f, say) =>
    `the counts were updated less than 6 hours ago${f.last === undefined ? '' : ` (${say.time(f.last)})`}, and the service accepts one ` +
    `update per 6 hours. The next update is accepted from ${f.next === undefined ? 'a later run' : say.time(f.next)}.`,
  unverified: () =>
    'discord.place has not verified the bot yet, so its record is not public, and its submission counts as an update: an ' +
    'update within 6 hours of submitting it would be refused as a strike, and no read can tell. Updates start once ' +
    'discord.place verifies the bot (its page is not public until then). cooldown-check: false sends anyway, at the risk of a strike.',
  unchecked: () =>
    "the bot's public record could not be checked (see the warning); the next run will try again.",
  nothing: () => 'no count was left to send (see the warning).'
} satisfies Record<SkipReason, Words>

export const STATS_OUTCOMES = {
  updated: {
    result: 'updated',
    mark: '✅',
    headline: (f, say) => `updated${then(f, say, ', next update from ')}`,
    says: (f, say) =>
      `Stats updated (${say.body(f.body)}). The next update is accepted from ${say.time(f.next)}.`
  },
  'too-soon': skipped(
    '⏭️',
    (f, say) => `not sent: too soon${then(f, say, ', next update from ')}`,
    REASONS.recent
  ),
  'not-verified': skipped('⏸️', () => 'not sent: the bot is not verified yet', REASONS.unverified),
  'record-unchecked': skipped(
    '⚠️',
    () => "not sent: the bot's record could not be checked",
    REASONS.unchecked
  ),
  'no-count': skipped('⚠️', () => 'not sent: no count to send', REASONS.nothing),
  'rate-limited': {
    result: 'rate-limited',
    mark: '⏸️',
    headline: (f, say) =>
      `turned away by the rate limit, no strike${then(f, say, '; try again from ')}`,
    says: (f, say) =>
      `The service's request limiter turned the update away (429${quoted(f)}) before looking at it: nothing was stored and no ` +
      `strike was counted. ${f.next === undefined ? 'Try again in 30 minutes.' : `Try again from ${say.time(f.next)}.`}${young(f, say)}`
  },
  deferred: {
    result: 'deferred',
    mark: '⏸️',
    headline: (f, say) => `deferred, the listing ${say.age(f.last)} old`,
    says: (f, say) =>
      `Stats update deferred: ${f.failure}.${young(f, say)} It is not sent again; the next run will try.`
  },
  stale: {
    result: 'failed',
    mark: '❌',
    headline: (f, say) => `no update for ${say.age(f.last)}`,
    says: (f, say) =>
      `discord.place has not taken an update for ${say.age(f.last)} (last at ${say.time(f.last)}), stale-after: ${say.staleAfter(f.staleAfter)}. ` +
      `This run's update failed too: ${f.failure}. It is not sent again; the next run will try.`
  },
  'dry-run': {
    result: 'dry-run',
    mark: '🧪',
    headline: () => 'dry run: nothing sent, a real run would send',
    says: (f, say) => `Dry run: nothing sent. A real run would send ${say.body(f.body)}.`
  },
  'dry-run-not-due': {
    result: 'dry-run',
    mark: '🧪',
    headline: () => 'dry run: nothing sent, a real run would not send',
    says: (f, say) => `Dry run: nothing sent. A real run would not send: ${say.reason(f)}`
  },
  'strike-overlap': strike(
    (f, say) =>
      `Likely cause: overlapping runs. Another run updated the counts at ${say.utc(f.overlap)}, after this run read the bot's record: ` +
      'runs that overlap (a deploy and the schedule at once) both pass the check. Put the stats job of every workflow for this ' +
      `bot in one concurrency group (${group(f)}) so that they run one at a time.`,
    true
  ),
  'strike-unverified': strike(
    () =>
      'Likely cause: discord.place has not verified the bot yet, and its submission counts as an update, so any update within ' +
      '6 hours of submitting it is refused. Keep cooldown-check: true, which holds updates until the bot is verified.'
  ),
  'strike-unchecked': strike(
    () =>
      'Likely cause: it was sent without reading the record first (cooldown-check: false), less than 6 hours after the last ' +
      'update (or after the bot was submitted, if it is not verified yet). Keep cooldown-check: true.'
  ),
  'strike-unknown': strike(
    f =>
      'Likely cause: overlapping runs, or an update from elsewhere (the bot itself, another workflow) after this run read the ' +
      `record. Schedule runs every 8 hours, keep cooldown-check: true, and put every stats job for this bot in one concurrency group (${group(f)}).`
  ),
  'server-count-refused': failingAnswer({
    headline: 'count refused by discord.place',
    advice: f =>
      'The service accepts a server count only within max(50, 10%) of the count Discord reports for the bot, and refuses the ' +
      `whole update: nothing was stored${f.body.command_count === undefined ? '' : ', the command count neither'}. Send the count your bot sees ` +
      '(its guild cache), or leave server-count out and set discord-token to read it from Discord.'
  }),
  'count-refused': failingAnswer({
    headline: 'count refused by discord.place',
    advice: () => 'Check command-count (0 to 1000) and server-count (0 to 10000000).'
  }),
  'key-401': failingAnswer(KEY_ANSWERS[401]),
  'key-404': failingAnswer(KEY_ANSWERS[404]),
  'key-410-fifth': failingAnswer(KEY_ANSWERS['410-fifth']),
  'key-410': failingAnswer(KEY_ANSWERS[410]),
  redirect: failingAnswer({
    headline: 'redirect not followed',
    advice: () =>
      "A redirect is not followed: a request carrying the API key never goes to another address. Set base-url to the service's own address."
  }),
  'service-failed': failingAnswer({
    headline: 'discord.place failed on its side',
    advice: () =>
      'The service failed on its side; nothing in the workflow needs to change. The update was not repeated (a second update ' +
      'could count as an early one); the next run will try again.'
  }),
  unexpected: {
    ...failingAnswer({
      headline: '',
      advice: () =>
        'This answer was not expected; the update was not repeated. Check base-url and the service status.'
    }),
    headline: (f, say) => `unexpected answer (${say.status(f.status)})`
  },
  unreachable: {
    result: 'failed',
    mark: '❌',
    headline: () => 'discord.place unreachable',
    says: f =>
      `Stats update failed: ${f.failure}. Nothing reached the service. Check base-url and the runner's network; the next run will try again.`
  },
  'no-answer': {
    result: 'failed',
    mark: '❌',
    headline: () => 'no answer to the update',
    says: f =>
      `Stats update failed: ${f.failure}. The update may have reached the service, so it was not sent again: a second update ` +
      "within 6 hours would count as a strike against the key. Check the bot's page; the next run will update it if needed."
  },
  'no-answer-not-arrived': {
    result: 'failed',
    mark: '❌',
    headline: () => 'no answer to the update',
    says: f =>
      `Stats update failed: ${f.failure}. A fresh read of the public record shows it has not arrived, but sending it again ` +
      'could still be early (the service may yet store this one, or an earlier update is within 6 hours), so it was not. ' +
      'The next run will try.'
  },
  'no-answer-twice': {
    result: 'failed',
    mark: '❌',
    headline: () => 'no answer to the update',
    says: f =>
      `Stats update failed twice: ${f.failure}. It is not sent again; the next run will try.`
  }
} satisfies Record<string, Outcome>

export type OutcomeId = keyof typeof STATS_OUTCOMES

/**
 * Which row of the table an outcome that succeeded (or a strike) is, for the report's line and
 * headline; a failure's words are its error's, written when the run decided it (update.ts).
 */
export function outcomeOf(outcome: StatsOutcome): OutcomeId | undefined {
  switch (outcome.result) {
    case 'skipped':
      return (
        {
          recent: 'too-soon',
          unverified: 'not-verified',
          unchecked: 'record-unchecked',
          nothing: 'no-count'
        } as const
      )[outcome.skip!]
    case 'dry-run':
      return outcome.skip === undefined ? 'dry-run' : 'dry-run-not-due'
    case 'cooldown':
      return `strike-${outcome.strikeCause ?? 'unknown'}`
    case 'failed':
      return undefined
    default:
      return outcome.result
  }
}

/** A run's facts, for its outcome's words; the workflow finding and a stop only beside a strike. */
export function factsOf(
  outcome: Omit<StatsOutcome, 'result'>,
  botId: string,
  strike: { readonly workflow?: string | undefined; readonly stopped?: string | undefined } = {}
): Facts {
  return {
    botId,
    body: outcome.body,
    next: outcome.nextUpdateAt,
    last: outcome.record?.ok ? lastUpdate(outcome.record.record) : undefined,
    status: outcome.status,
    said: outcome.answer,
    overlap: outcome.overlap,
    staleAfter: outcome.staleAfter,
    failure: outcome.failure,
    skip: outcome.skip,
    workflow: strike.workflow,
    stopped: strike.stopped
  }
}

/**
 * What a sentence about the schedule names: the check's dates (undefined when it could not read
 * them), why it could not, and how the stats run itself went, in that run's own words.
 */
export interface ScheduleFacts {
  readonly disabledAround: Date | undefined
  readonly lastPush: Date | undefined
  readonly stats: string
  readonly reason: string | undefined
}

type ScheduleWords = (facts: ScheduleFacts, say: Wording) => string

const disables: ScheduleWords = (f, say) =>
  `GitHub disables this workflow's schedule around ${say.day(f.disabledAround)}, 60 days after the last push to the repository ` +
  `(${say.day(f.lastPush)}): a public repository's schedules stop after 60 days without activity. A push (a commit to main) ` +
  'keeps it running.'

/**
 * A scheduled run's words about GitHub disabling its schedule, by stage: when it applies, the
 * annotation's kind and title, and what it says (for the failure, its error, which also says how
 * the stats run went, and the end of its headline). `npm run docs` writes them into
 * docs/troubleshooting.md.
 */
/** One stage's words: when it applies, its annotation's kind and title, and what it says. */
interface ScheduleStage {
  readonly when: string
  readonly kind: 'warning' | 'error' | 'notice'
  readonly title: string
  readonly says: ScheduleWords
  /** The end of the summary's headline, for the stage that fails the step. */
  readonly headline?: ScheduleWords
}

export const SCHEDULE_WORDS = {
  soon: {
    when: '45 days or more since the last push',
    kind: 'warning',
    title: 'Schedule disabled soon',
    says: disables
  },
  failing: {
    when: '55 days or more, with stale-after set',
    kind: 'error',
    title: '',
    headline: (f, say) => `GitHub disables the schedule around ${say.day(f.disabledAround)}`,
    says: (f, say) => `${disables(f, say)} ${f.stats}`
  },
  past: {
    when: 'the date has passed, and the schedule still runs',
    kind: 'warning',
    title: 'Schedule past 60 days without a push',
    says: (f, say) =>
      `The last push to the repository was on ${say.day(f.lastPush)}, and a public repository's schedules stop after 60 days ` +
      `without activity (around ${say.day(f.disabledAround)}); this run still came, so the schedule was enabled again or there ` +
      'was activity the action cannot see. A push (a commit to main) keeps it running.'
  },
  unread: {
    when: 'no pushed_at in the event, and the read of the repository failed',
    kind: 'notice',
    title: 'Schedule not checked',
    says: f =>
      `The repository's last push could not be read (${f.reason}), so this run cannot tell when GitHub disables the ` +
      "workflow's schedule: a public repository's schedules stop after 60 days without activity."
  }
} satisfies Record<string, ScheduleStage>

/** A scheduled run's facts: the check's dates or why it has none, and how the stats run went. */
export function scheduleFactsOf(outcome: StatsOutcome, botId: string): ScheduleFacts {
  const check = outcome.schedule
  const dated = check !== undefined && check.stage !== 'unread' ? check : undefined
  return {
    disabledAround: dated?.disabledAround,
    lastPush: dated?.lastPush,
    stats: statsWords(outcome, botId),
    reason: check?.stage === 'unread' ? check.reason : undefined
  }
}

/**
 * How the stats run itself went: its error, an update in the contract's words, or its outcome's.
 */
function statsWords(outcome: StatsOutcome, botId: string): string {
  if (outcome.error !== undefined) return outcome.error.message
  // The contract's words for an update, shorter than the outcome's own line.
  if (outcome.result === 'updated') return 'The counts were updated.'
  const id = outcomeOf(outcome)
  return id === undefined
    ? ''
    : STATS_OUTCOMES[id].says(factsOf(outcome, botId), runWording(outcome.at))
}
