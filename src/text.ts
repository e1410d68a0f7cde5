import { redact } from './secrets.js'

/**
 * Every way text is made safe to print: a log line (one line, inert to the runner), an
 * annotation, an excerpt of an answer, the job summary's HTML. Secrets are removed first, always
 * (secrets.ts), then control characters and the runner's command syntax are made harmless. The
 * figures and times a person reads are formatted by the summary module.
 */

/**
 * Text for one log line: secrets redacted, and no line break or other control character, so
 * that no part of it can begin a line of its own, where the runner would read `::…` as a
 * workflow command; nor `##[` anywhere in it (see `neutraliseCommands`).
 */
export function logLine(text: string): string {
  const line = neutraliseCommands(redact(text).replace(CONTROL_RUNS, ' '))
  // The runner reads a line that begins with `::` (after spaces) as a command, so such a line
  // is shown with its colons apart.
  return /^\s*::/.test(line) ? line.replace('::', ': :') : line
}

/** The longest message or warning printed, or quoted in the summary. */
export const MAX_MESSAGE_CHARS = 4_000

/** A log line: redacted, on one line, inert to the runner, of bounded length. */
export function logText(text: string): string {
  return bounded(logLine(text), MAX_MESSAGE_CHARS)
}

/**
 * An annotation or the failure message (`::warning::`, `::notice::`, `::error::`): redacted,
 * inert to the runner, of bounded length. Redacted before it is cut, so that a cut leaves no
 * piece of a secret that redaction would no longer recognise.
 */
export function annotationText(text: string): string {
  return bounded(safeText(text), MAX_MESSAGE_CHARS)
}

/**
 * Text from outside for an annotation or a failure message: secrets redacted and no `##[`.
 * Line breaks are kept: the toolkit escapes them inside the `::error::` command, so they cannot
 * begin a line of their own.
 */
export function safeText(text: string): string {
  return neutraliseCommands(visibleControls(redact(text)))
}

/** C0 and C1 control characters other than the tab and the line ends: never printed raw. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const RAW_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g

/**
 * Text from outside with its control characters shown as escapes (`\x1b`), never raw: an
 * escape sequence would recolour or rewrite the log as a terminal shows it, and a NUL or a BEL
 * means nothing to a reader. The tab and the line ends stay where a line allows them.
 */
export function visibleControls(text: string): string {
  return text.replace(RAW_CONTROL, char => `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`)
}

/**
 * The runner also reads its legacy syntax, `##[command]value`, wherever `##[` appears in a line,
 * not only at its start (actions/runner, ActionCommand.TryParse). A visible space keeps such text
 * readable and inert: replaced left to right, the result holds no `##[` of its own.
 */
function neutraliseCommands(text: string): string {
  return text.includes('##[') ? text.replace(/##\[/g, '# #[') : text
}

/** C0 and C1 control characters (line breaks, tabs, escapes) and the Unicode line separators. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
export const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/
const CONTROL_RUNS = new RegExp(`${CONTROL_CHARACTER.source}+`, 'g')

/*
 * Text made safe to show: for a message (one line, cut short), for the job summary (HTML,
 * escaped), and the figures and times a person reads. Secrets are redacted before anything is
 * cut or escaped: a cut must not leave a piece of a secret that redaction no longer
 * recognises, and an escaped copy is not masked by the runner.
 */

/** Text from outside, for a message: redacted, on one line, cut to `max` characters. */
export function excerpt(text: string, max = 200): string {
  const oneLine = visibleControls(redact(text).replace(/\s+/g, ' ').trim())
  return oneLine.length > max ? `${oneLine.slice(0, max)}…` : oneLine
}

/**
 * Text cut to `max` characters, saying how much was left out: for messages and summary lines
 * that quote input or answers of any size (the runner drops a summary over 1 MiB whole).
 * Redacted before it is cut, whoever calls it: a cut through a secret would leave a piece
 * that redaction no longer recognises.
 */
export function bounded(text: string, max: number): string {
  const clean = redact(text)
  if (clean.length <= max) return clean
  return `${clean.slice(0, max)}… (${clean.length - max} more characters not shown)`
}

/**
 * HTML-escaped text, redacted first, on one line: for the job summary, whose sections are HTML.
 * A section is one HTML block to GitHub's Markdown renderer; a blank line in quoted text would
 * end it, and what follows would be read as Markdown (a heading, a link).
 */
export function html(text: string): string {
  return visibleControls(redact(text).replace(/[\r\n]+/g, ' '))
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
