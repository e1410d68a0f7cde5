import { redact } from './redact.js'

/**
 * Every way text is made safe to show: for a message (one line, cut short), for the job
 * summary (HTML, escaped), and the figures and times a person reads. Secrets are redacted
 * before anything is cut or escaped: a cut must not leave a piece of a secret that redaction
 * no longer recognises, and an escaped copy is not masked by the runner.
 */

/** Text from outside, for a message: redacted, on one line, cut to `max` characters. */
export function excerpt(text: string, max = 200): string {
  const oneLine = redact(text).replace(/\s+/g, ' ').trim()
  return oneLine.length > max ? `${oneLine.slice(0, max)}…` : oneLine
}

/**
 * Text cut to `max` characters, saying how much was left out: for messages and summary lines
 * that quote input or answers of any size (the runner drops a summary over 1 MiB whole).
 */
export function bounded(text: string, max: number): string {
  if (text.length <= max) return text
  return `${text.slice(0, max)}… (${text.length - max} more characters not shown)`
}

/**
 * HTML-escaped text, redacted first, on one line: for the job summary, whose sections are HTML.
 * A section is one HTML block to GitHub's Markdown renderer; a blank line in quoted text would
 * end it, and what follows would be read as Markdown (a heading, a link).
 */
export function html(text: string): string {
  return redact(text)
    .replace(/[\r\n]+/g, ' ')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;')
}

/**
 * A message of the action's own for the summary: HTML-escaped, with its `code` spans shown as
 * code (the messages name inputs and values that way), and no line breaks.
 */
export function htmlMessage(text: string): string {
  return html(text.replace(/\s+/g, ' ').trim()).replace(/`([^`]+)`/g, '<code>$1</code>')
}

/** A link for the summary; only http(s) addresses, escaped, else the text alone. */
export function htmlLink(text: string, url: string): string {
  return /^https?:\/\//i.test(url) ? `<a href="${html(url)}">${html(text)}</a>` : html(text)
}

/**
 * `1,260`: thousands separated, as a bot page shows them. Written out rather than with
 * toLocaleString, whose first call loads ICU data: about 15 ms and 7 MB on every run.
 */
export function number(value: number): string {
  const digits = String(Math.abs(Math.trunc(value)))
  return `${value < 0 ? '-' : ''}${digits.replace(/\B(?=(\d{3})+$)/g, ',')}`
}

/** `21:05 UTC` on the day of `now`, else `2026-11-25 03:05 UTC`. */
export function utc(date: Date, now: Date): string {
  const iso = date.toISOString()
  const sameDay = iso.slice(0, 10) === now.toISOString().slice(0, 10)
  return `${sameDay ? iso.slice(11, 16) : `${iso.slice(0, 10)} ${iso.slice(11, 16)}`} UTC`
}

/** `in 5 h 3 min`, `in 40 min`, `in under a minute`, or `2 h ago`, from `now`. */
export function relative(date: Date, now: Date): string {
  const ms = date.getTime() - now.getTime()
  const minutes = Math.round(Math.abs(ms) / 60_000)
  if (minutes === 0) return ms >= 0 ? 'in under a minute' : 'just now'
  const hours = Math.floor(minutes / 60)
  const span = hours === 0 ? `${minutes} min` : minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`
  return ms >= 0 ? `in ${span}` : `${span} ago`
}

/** `21:05 UTC (in 5 h 3 min)`: a time as the log and the summary print it. */
export function when(date: Date, now: Date): string {
  return `${utc(date, now)} (${relative(date, now)})`
}
