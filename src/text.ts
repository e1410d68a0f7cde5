import { redact } from './secrets.js'

/**
 * Every way text is made safe to print: a log line (one line, inert to the runner), an
 * annotation, an excerpt of an answer, the job summary's HTML. Secrets are redacted first, always
 * (secrets.ts), before anything is cut or escaped: a cut must not leave a piece of a secret that
 * redaction no longer recognises, and the runner does not mask an escaped copy.
 */

/** C0 and C1 control characters (line breaks, tabs, escapes) and the Unicode line separators. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
export const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/
const CONTROL_RUNS = new RegExp(`${CONTROL_CHARACTER.source}+`, 'g')

/** C0 and C1 control characters other than the tab and the line ends: never printed raw. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const RAW_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g

/** The longest message or warning printed, or quoted in the summary. */
export const MAX_MESSAGE_CHARS = 4_000

/**
 * Text for one log line: no line break or other control character, so that no part of it can
 * begin a line of its own, where the runner would read `::…` as a workflow command; nor `##[`.
 */
export function logLine(text: string): string {
  const line = neutraliseCommands(redact(text).replace(CONTROL_RUNS, ' '))
  // The runner reads a line that begins with `::` (after spaces) as a command.
  return /^\s*::/.test(line) ? line.replace('::', ': :') : line
}

/** A log line of bounded length. */
export function logText(text: string): string {
  return bounded(logLine(text), MAX_MESSAGE_CHARS)
}

/** An annotation or the failure message (`::error::` and the like), of bounded length. */
export function annotationText(text: string): string {
  return bounded(safeText(text), MAX_MESSAGE_CHARS)
}

/**
 * Text for an annotation: line breaks are kept, since the toolkit escapes them inside the command.
 */
export function safeText(text: string): string {
  return neutraliseCommands(visibleControls(redact(text)))
}

/**
 * Control characters shown as escapes (`\x1b`): an escape sequence would recolour or rewrite
 * the log as a terminal shows it. The tab and the line ends stay where a line allows them.
 */
export function visibleControls(text: string): string {
  return text.replace(RAW_CONTROL, char => `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`)
}

/**
 * The runner also reads its legacy syntax, `##[command]value`, wherever `##[` appears in a line
 * (actions/runner, ActionCommand.TryParse). Replaced left to right, the result holds no `##[`.
 */
function neutraliseCommands(text: string): string {
  return text.replace(/##\[/g, '# #[')
}

/** Text from outside, for a message: on one line, cut to `max` characters. */
export function excerpt(text: string, max = 200): string {
  const oneLine = visibleControls(redact(text).replace(/\s+/g, ' ').trim())
  return oneLine.length > max ? `${oneLine.slice(0, max)}…` : oneLine
}

/**
 * Text cut to `max` characters, saying how much was left out (the runner drops a summary over 1 MiB
 * whole).
 */
export function bounded(text: string, max: number): string {
  const clean = redact(text)
  if (clean.length <= max) return clean
  return `${clean.slice(0, max)}… (${clean.length - max} more characters not shown)`
}

/**
 * HTML-escaped text on one line, for the job summary: a blank line would end the summary's HTML
 * block, and what follows would be read as Markdown.
 */
export function html(text: string): string {
  return visibleControls(redact(text).replace(/[\r\n]+/g, ' ')).replace(
    /[&<>"']/g,
    char => HTML_ESCAPES[char]!
  )
}

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;'
}

/**
 * A message of the action's own for the summary, its `code` spans (inputs, values) shown as code.
 */
export function htmlMessage(text: string): string {
  return html(text.replace(/\s+/g, ' ').trim()).replace(/`([^`]+)`/g, '<code>$1</code>')
}

/** A link for the summary; only http(s) addresses, escaped, else the text alone. */
export function htmlLink(text: string, url: string): string {
  return /^https?:\/\//i.test(url) ? `<a href="${html(url)}">${html(text)}</a>` : html(text)
}
