/**
 * The Actions runner's protocol, as the action uses it: inputs from `INPUT_*` variables,
 * workflow commands on stdout (masks, annotations, debug lines), and the `GITHUB_OUTPUT`
 * and `GITHUB_STEP_SUMMARY` files.
 *
 * Written here rather than imported from @actions/core because @actions/core loads
 * @actions/http-client, and with it node:https, node:tls and a proxy tunnel, on every run,
 * for its OIDC client, which this action never uses: about 20 ms of a 75 ms run. The
 * protocol is small and documented ("Workflow commands for GitHub Actions"); the
 * end-to-end tests read it back the way the runner does.
 */
import { randomUUID } from 'node:crypto'
import { appendFileSync } from 'node:fs'
import { EOL } from 'node:os'

/** An input's value, trimmed; `''` when the workflow did not set it and it has no default. */
export function getInput(name: string): string {
  return (process.env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] ?? '').trim()
}

/** Asks the runner to mask a value in everything printed after this line. */
export function setSecret(secret: string): void {
  command('add-mask', {}, secret)
}

export function info(message: string): void {
  process.stdout.write(message + EOL)
}

export function debug(message: string): void {
  command('debug', {}, message)
}

export interface Annotation {
  title?: string
}

export function notice(message: string, annotation: Annotation = {}): void {
  command('notice', annotation, message)
}

export function warning(message: string, annotation: Annotation = {}): void {
  command('warning', annotation, message)
}

export function error(message: string, annotation: Annotation = {}): void {
  command('error', annotation, message)
}

/** Fails the step: one error annotation, and exit code 1. */
export function setFailed(message: string): void {
  process.exitCode = 1
  error(message)
}

/** Writes a step output to `GITHUB_OUTPUT` (a heredoc with a random delimiter, as values may span lines). */
export function setOutput(name: string, value: string | number | boolean): void {
  const text = String(value)
  const file = process.env['GITHUB_OUTPUT']
  if (!file) {
    // Outside a runner (a local run): show it instead.
    info(`output ${name}=${text}`)
    return
  }
  const delimiter = `ghadelimiter_${randomUUID()}`
  if (name.includes(delimiter) || text.includes(delimiter)) throw new Error(`output ${name} contains its delimiter`)
  appendFileSync(file, `${name}<<${delimiter}${EOL}${text}${EOL}${delimiter}${EOL}`, 'utf8')
}

/** Appends Markdown to the job summary; false when there is no summary file (a local run). */
export function appendSummary(markdown: string): boolean {
  const file = process.env['GITHUB_STEP_SUMMARY']
  if (!file) return false
  appendFileSync(file, markdown.endsWith(EOL) ? markdown : markdown + EOL, 'utf8')
  return true
}

/** `::name key=value,...::message`, escaped so that a value can never end the command or start another. */
function command(name: string, properties: Annotation, message: string): void {
  const props = Object.entries(properties)
    .filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== '')
    .map(([key, value]) => `${key}=${escapeProperty(value)}`)
    .join(',')
  process.stdout.write(`::${name}${props ? ` ${props}` : ''}::${escapeData(message)}${EOL}`)
}

function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A')
}

function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C')
}
