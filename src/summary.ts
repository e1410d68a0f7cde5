import * as core from '@actions/core'
import { DEFAULT_BASE_URL } from './settings.js'
import { redact } from './secrets.js'
import { annotationText, bounded, html, htmlLink, htmlMessage, MAX_MESSAGE_CHARS } from './text.js'

/**
 * The job summary's plumbing, shared by both modes' reports: each writes one section of HTML
 * (GitHub renders it as it is), under a size the runner keeps. Over 1 MiB the runner drops the
 * whole summary: every quoted text is cut, and the section capped.
 */

/** The largest section written; far under the runner's 1 MiB for the job's summaries together. */
export const MAX_SECTION_CHARS = 256 * 1024

/** The discord.place address of a bot's page, and how the summary names the bot. */
export function botTitle(botId: string, name: string | undefined, baseUrl: string): string {
  const label = name ?? `Bot ${botId}`
  return baseUrl === DEFAULT_BASE_URL
    ? htmlLink(label, `https://discord.place/bots/${botId}`)
    : html(label)
}

/** A paragraph with a mark, for a warning or an error: visible, with its `code` spans rendered. */
export function markedParagraph(mark: string, label: string, message: string): string {
  return `<p>${mark} <strong>${label}</strong> ${htmlMessage(bounded(message, MAX_MESSAGE_CHARS))}</p>\n`
}

/**
 * Writes the section to the job summary: no summary file (a local run) is no error, and a failed
 * write one warning, never a crash.
 */
export async function writeSection(build: (summary: typeof core.summary) => void): Promise<void> {
  if (!process.env['GITHUB_STEP_SUMMARY']) {
    core.debug('No job summary written: GITHUB_STEP_SUMMARY is not set.')
    return
  }
  try {
    core.summary.emptyBuffer()
    build(core.summary)
    const text = core.summary.stringify()
    if (text.length > MAX_SECTION_CHARS) {
      // Cut at a line's end: each element of a section is on lines of its own.
      core.summary
        .emptyBuffer()
        .addRaw(text.slice(0, text.lastIndexOf('\n', MAX_SECTION_CHARS - 200) + 1), false)
      core.summary.addRaw(
        '\n<p>(The rest of this section was cut: it would have been too large for the job summary.)</p>\n',
        false
      )
    }
    await core.summary.write()
  } catch (error) {
    core.warning(
      annotationText(
        `The job summary could not be written: ${error instanceof Error ? error.message : String(error)}`
      )
    )
  }
}

/**
 * The section of a run that failed before its mode began (bad input), under a headline naming the
 * bot once its ID was read.
 */
export function failureSection(
  summary: typeof core.summary,
  message: string,
  botId?: string,
  headline?: string
): void {
  const who = botId === undefined ? 'discord.place' : html(`Bot ${botId}`)
  summary.addRaw(
    `<h3>❌ ${who}: failed${headline === undefined ? '' : `: ${html(headline)}`}</h3>\n`,
    false
  )
  summary.addRaw(markedParagraph('❌', 'Error:', message), false)
}

/**
 * A headline whose step failed only because its outputs could not be written: the outcome stays as
 * it was (an update that went through did go through), the mark and the words say the step failed.
 */
export function headlineWith(
  outputsFailure: string | undefined,
  [mark, words]: [string, string]
): [string, string] {
  return outputsFailure === undefined || mark === '❌'
    ? [mark, words]
    : ['❌', `${words}; the step failed: its outputs could not be written`]
}

/**
 * Runs a report's output writes. Outputs that cannot be written must not turn a finished run into a
 * crash: the step fails with one clear error (returned), and the summary is still written.
 */
export function writeOutputsSafely(write: () => void): string | undefined {
  try {
    write()
    return undefined
  } catch (error) {
    return redact(
      `The step's outputs could not be written to GITHUB_OUTPUT (${error instanceof Error ? error.message : String(error)}); ` +
        'later steps will not see them. Check that the runner can write its temporary files (disk space, permissions).'
    )
  }
}

// The figures and times a person reads in the summary and the log.

/**
 * `1,260`, as a bot page shows it. Not toLocaleString, whose first call loads ICU data: about 15 ms
 * and 7 MB on every run.
 */
export function number(value: number): string {
  const digits = String(Math.abs(Math.trunc(value)))
  return `${value < 0 ? '-' : ''}${digits.replace(/\B(?=(\d{3})+$)/g, ',')}`
}

/** `21:05 UTC` on the run's day (`now`), else with its date: `2026-11-25 03:05 UTC`. */
export function utc(date: Date, now: Date): string {
  const iso = date.toISOString()
  const sameDay = iso.slice(0, 10) === now.toISOString().slice(0, 10)
  return `${sameDay ? iso.slice(11, 16) : `${iso.slice(0, 10)} ${iso.slice(11, 16)}`} UTC`
}

/** A span under two days: `42 min`, `5 h`, `5 h 3 min`. */
function hoursAndMinutes(minutes: number): string {
  const hours = Math.floor(minutes / 60)
  if (hours === 0) return `${minutes} min`
  if (minutes % 60 === 0) return `${hours} h`
  return `${hours} h ${minutes % 60} min`
}

/**
 * `5 h 3 min after this run`, `under a minute before this run`: relative to the run (`now`), not to
 * the reader, because a summary is read later: "in 6 h" read the next morning would be untrue.
 */
export function relative(date: Date, now: Date): string {
  const ms = date.getTime() - now.getTime()
  const minutes = Math.round(Math.abs(ms) / 60_000)
  if (minutes === 0)
    return ms >= 0 ? 'under a minute after this run' : 'under a minute before this run'
  const hours = Math.floor(minutes / 60)
  const days = Math.round(hours / 24)
  // Past two days, hours and minutes are noise: "30 days", not "720 h".
  const span = hours >= 48 ? `${days} days` : hoursAndMinutes(minutes)
  return `${span} ${ms >= 0 ? 'after' : 'before'} this run`
}

/**
 * `21:05 UTC, 5 h 3 min after this run`: a time as the log and the summary print it (no
 * parentheses, so it nests in some).
 */
export function when(date: Date, now: Date): string {
  return `${utc(date, now)}, ${relative(date, now)}`
}
