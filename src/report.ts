import * as core from '@actions/core'
import type { Counts, ResolvedCount } from './counts/index.js'
import { logLine, redact } from './redact.js'
import type { PublicRecord } from './service/record.js'
import type { StatsOutcome } from './service/stats.js'
import type { Vote, VoteOutcome } from './service/votes.js'
import { DEFAULT_BASE_URL, type Settings, type VoteSettings } from './settings.js'

/*
 * Every line and annotation goes through these: secrets redacted from any text that came from
 * outside, and a log line kept to one line. (The runner escapes line breaks in annotations.)
 */
const info = (line: string): void => core.info(logLine(line))
const warning = (text: string, properties?: core.AnnotationProperties): void => core.warning(redact(text), properties)
const notice = (text: string, properties?: core.AnnotationProperties): void => core.notice(redact(text), properties)

/** What the run knows at its end, however far it got. */
export interface RunState {
  settings?: Settings
  counts?: Counts
  outcome?: StatsOutcome
  votes?: VoteOutcome
  /** The message of the failure that ends the step, if any. */
  failure?: string
}

/**
 * Writes every output that is known. The only writer of outputs: a failed step still
 * writes what it learned (for example `status` after a refused update), so a later step
 * with `if: always()` can use it.
 */
export function writeOutputs(state: RunState): void {
  if (state.settings?.mode === 'vote-check') {
    writeVoteOutputs(state)
    return
  }
  const { counts, outcome } = state
  const result = state.failure !== undefined ? 'failed' : outcome?.result
  if (result !== undefined) core.setOutput('result', result)
  if (counts?.command !== undefined) core.setOutput('command-count', counts.command.value)
  if (counts?.server !== undefined) core.setOutput('server-count', counts.server.value)
  if (outcome?.status !== undefined) core.setOutput('status', outcome.status)
  if (outcome?.nextUpdateAt !== undefined) core.setOutput('next-update-at', outcome.nextUpdateAt.toISOString())
}

/**
 * vote-check outputs. `result` and `voted` speak for every user only when every user was
 * checked; otherwise the result is `failed` and `votes` holds the users that were.
 */
function writeVoteOutputs(state: RunState): void {
  core.setOutput('result', voteResult(state))
  const votes = state.votes
  if (votes === undefined) return
  if (votes.status !== undefined) core.setOutput('status', votes.status)
  const all = [...votes.votes.values()]
  if (votes.unchecked.length === 0 && all.length > 0)
    core.setOutput(
      'voted',
      all.every(vote => vote.voted)
    )
  core.setOutput('votes', JSON.stringify(Object.fromEntries([...votes.votes].map(([id, vote]) => [id, voteJson(vote)]))))
  const only = all.length === 1 && votes.unchecked.length === 0 ? all[0] : undefined
  if (only?.lastVote) core.setOutput('last-vote', only.lastVote.toISOString())
}

function voteResult(state: RunState): string {
  const votes = state.votes
  if (votes === undefined) return state.failure === undefined && state.settings?.dryRun ? 'dry-run' : 'failed'
  if (votes.unchecked.length > 0 || votes.error !== undefined) return 'failed'
  return [...votes.votes.values()].every(vote => vote.voted) ? 'voted' : 'not-voted'
}

function voteJson(vote: Vote): { voted: boolean; votes: number | null; last_vote: string | null } {
  return { voted: vote.voted, votes: vote.votes, last_vote: vote.lastVote?.toISOString() ?? null }
}

/** One log line per user checked. */
export function announceVotes(outcome: VoteOutcome): void {
  for (const [id, vote] of outcome.votes) {
    const details = [vote.votes === null ? '' : `${vote.votes} votes`, vote.lastVote ? `last ${vote.lastVote.toISOString()}` : '']
      .filter(Boolean)
      .join(', ')
    info(`User ${id}: ${vote.voted ? 'voted' : 'has not voted'} in the last 24 hours${details ? ` (${details})` : ''}.`)
  }
  if (outcome.rateLimited > 0) info(`The service's rate limit answered ${outcome.rateLimited} time(s); those checks were retried.`)
}

/** Logs each count with its source, and the warnings met while resolving them. */
export function reportCounts(counts: Counts): void {
  for (const [label, count] of [
    ['Command count', counts.command],
    ['Server count', counts.server]
  ] as const) {
    if (count !== undefined) info(`${label}: ${count.value} (${count.source})`)
  }
  for (const text of counts.warnings) warning(text)
}

/** The warnings of the run, then the log line or annotation that says how it ended (a failure says so itself). */
export function announce(outcome: StatsOutcome): void {
  for (const text of outcome.warnings ?? []) warning(text)
  const next = outcome.nextUpdateAt?.toISOString()
  switch (outcome.result) {
    case 'updated':
      info(`Stats updated (${JSON.stringify(outcome.body)}). The next update is accepted from ${next}.`)
      break
    case 'skipped':
      // A skip without a next update time (the record unreadable, cached or untrusted) is
      // explained by its warning, not by a recent update.
      if (next === undefined) break
      notice(
        `Stats not sent: the bot's counts were updated less than 6 hours ago, and the service accepts one update ` +
          `per 6 hours. The next update is accepted from ${next}.`,
        { title: 'Update skipped (cooldown)' }
      )
      break
    case 'cooldown':
      warning(
        `The service refused the update as too early (429${outcome.answer ? `: "${outcome.answer}"` : ''}). ` +
          `${next ? `The next update is allowed from ${next}.` : 'When the next update is allowed is unknown.'} ` +
          'It was not retried. Refused updates count as strikes (5 within 6 hours revoke the key): schedule this ' +
          'at most once every 6 hours and keep cooldown-check: true.',
        { title: 'Update refused (cooldown)' }
      )
      break
    case 'rate-limited':
      warning(
        `The service's request limiter turned the update away (429${outcome.answer ? `: "${outcome.answer}"` : ''}) ` +
          'before looking at it: nothing was stored and no strike was counted. ' +
          `${next ? `Try again from ${next}.` : 'Try again in 30 minutes.'}`,
        { title: 'Update turned away (rate limit, no strike)' }
      )
      break
    case 'dry-run':
      info(`Dry run: nothing sent. A real run would send ${JSON.stringify(outcome.body)}.`)
      break
    case 'failed':
      break
  }
}

/** Writes the job summary section; a missing summary file (a local run) is not an error. */
export async function writeSummary(state: RunState): Promise<void> {
  // Outside a runner (a local run without local-action) there is no summary file; core.summary
  // would throw, so say it quietly instead.
  if (!process.env['GITHUB_STEP_SUMMARY']) {
    core.debug('No job summary written: GITHUB_STEP_SUMMARY is not set.')
    return
  }
  try {
    await core.summary.addRaw(renderSummary(state), true).write()
  } catch (error) {
    warning(`The job summary could not be written: ${error instanceof Error ? error.message : String(error)}`)
  }
}

const HEADLINES: Record<string, string> = {
  updated: 'updated',
  skipped: 'skipped, updated less than 6 hours ago',
  cooldown: 'refused as too early (cooldown)',
  'rate-limited': 'turned away by the request limiter (no strike)',
  'dry-run': 'dry run, nothing sent',
  failed: 'failed'
}

/** The summary as GitHub-flavoured Markdown. Every text from outside is escaped. */
export function renderSummary(state: RunState): string {
  if (state.settings?.mode === 'vote-check') return renderVoteSummary(state, state.settings)
  const { settings, counts, outcome } = state
  const result = state.failure !== undefined ? 'failed' : (outcome?.result ?? 'failed')
  const headline =
    result === 'skipped' && outcome?.nextUpdateAt === undefined ? "skipped, the bot's record could not be checked" : HEADLINES[result]
  const lines: string[] = [`### Bot stats: ${headline}`, '']

  const facts: [string, string][] = []
  if (settings !== undefined) {
    facts.push(['Bot', botLink(settings)], ['Service', addressLink(settings.baseUrl)])
  }
  if (outcome !== undefined) {
    facts.push(['Record read', recordLine(outcome)])
    const path = `PATCH /bots/${settings?.botId ?? ''}/stats`
    const body = `\`${JSON.stringify(outcome.body)}\``
    facts.push(['Request', outcome.sent ? `\`${path}\` ${body}` : `not sent (would be \`${path}\` ${body})`])
    if (outcome.sent) facts.push(['Answer', answerLine(outcome)])
    if (outcome.nextUpdateAt !== undefined) facts.push(['Next update', `from ${when(outcome.nextUpdateAt)}`])
    for (const warning of outcome.warnings ?? []) facts.push(['Warning', escapeText(warning)])
  }
  facts.push(['Result', `**${result}**`])
  lines.push('| | |', '|---|---|', ...facts.map(([k, v]) => `| ${k} | ${v} |`), '')

  if (counts !== undefined && (counts.command !== undefined || counts.server !== undefined)) {
    const record = outcome?.record?.ok ? outcome.record.record : undefined
    lines.push('| Count | Value | Source | Listed before | Change |', '|---|--:|---|--:|---|')
    lines.push(countRow('Commands', counts.command, record?.commands))
    lines.push(countRow('Servers', counts.server, record?.servers))
    lines.push('')
  }
  if (state.failure !== undefined) lines.push(`> **Error:** ${escapeText(state.failure)}`, '')
  return lines.join('\n')
}

function renderVoteSummary(state: RunState, settings: VoteSettings): string {
  const result = voteResult(state)
  const lines = [`### Vote check: ${result}`, '', '| | |', '|---|---|']
  lines.push(`| Bot | ${botLink(settings)} |`, `| Service | ${addressLink(settings.baseUrl)} |`, `| Result | **${result}** |`, '')
  const votes = state.votes
  if (votes !== undefined && (votes.votes.size > 0 || votes.unchecked.length > 0)) {
    lines.push('| User | Voted in the last 24 hours | Votes | Last vote |', '|---|---|--:|---|')
    for (const [id, vote] of votes.votes) {
      lines.push(
        `| \`${id}\` | ${vote.voted ? 'yes' : 'no'} | ${vote.votes === null ? '' : number(vote.votes)} | ${vote.lastVote ? when(vote.lastVote) : ''} |`
      )
    }
    for (const id of votes.unchecked) lines.push(`| \`${id}\` | not checked | | |`)
    lines.push('')
  } else if (settings.dryRun) {
    lines.push(`Dry run: ${settings.userIds.length} user(s) would be checked: ${settings.userIds.map(id => `\`${id}\``).join(', ')}.`, '')
  }
  if (state.failure !== undefined) lines.push(`> **Error:** ${escapeText(state.failure)}`, '')
  return lines.join('\n')
}

function botLink(settings: Settings): string {
  return settings.baseUrl === DEFAULT_BASE_URL
    ? link(settings.botId, `https://discord.place/bots/${settings.botId}`)
    : `\`${settings.botId}\``
}

/** The service's address as a link to itself (an http(s) address; anything else as text). */
function addressLink(address: string): string {
  return /^https?:\/\//i.test(address) ? link(address, address) : escapeText(address)
}

/**
 * A Markdown link: the text escaped as text, the address escaped as a link destination.
 * escapeText() must not touch the address: its `\:` is an escape in text, but a link
 * target keeps the backslash (`https\://…` is a relative path, not the service).
 */
function link(text: string, url: string): string {
  return `[${escapeText(text)}](${linkDestination(url)})`
}

/**
 * An address as a GFM link destination that stays one, whatever it contains, in a table
 * cell too: characters that would end it or split the cell (space, `<`, `>`, `(`, `)`,
 * `|`, `\`, quotes, control characters, non-ASCII) are percent-encoded, and `&` is escaped
 * so that `&amp;` in an address stays as typed rather than being read as a character
 * reference.
 */
export function linkDestination(url: string): string {
  // encodeURIComponent leaves `(`, `)` and `'` as they are: they are encoded by hand.
  const encode = (char: string): string => encodeURIComponent(char).replace(/[()']/g, c => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
  return url.replace(/[^A-Za-z0-9\-._~:/?#[\]@!$&*+,;=%]/gu, encode).replace(/&/g, '\\&')
}

function recordLine(outcome: StatsOutcome): string {
  const read = outcome.record
  if (read === undefined) return 'no (cooldown-check: false)'
  if (!read.ok) return `no: ${escapeText(read.reason)}`
  return `yes, last update ${lastUpdate(read.record)}`
}

function lastUpdate(record: PublicRecord): string {
  const times = [record.commandsUpdatedAt, record.serversUpdatedAt].filter((d): d is Date => d !== undefined)
  return when(new Date(Math.max(...times.map(d => d.getTime()))))
}

function answerLine(outcome: StatsOutcome): string {
  if (outcome.status === undefined) return 'none (the connection failed)'
  return `${outcome.status}${outcome.answer === undefined ? '' : `: ${escapeText(outcome.answer)}`}`
}

function countRow(label: string, count: ResolvedCount | undefined, before: number | undefined): string {
  if (count === undefined) return `| ${label} | | not sent | ${before === undefined ? '' : number(before)} | |`
  const change = before === undefined ? '' : `${number(before)} → ${number(count.value)} (${signed(count.value - before)})`
  return `| ${label} | ${number(count.value)} | ${escapeText(count.source)} | ${before === undefined ? 'unknown' : number(before)} | ${change} |`
}

/**
 * `1,260`: thousands separated, as a bot page shows them. Written out rather than with
 * toLocaleString, whose first call loads ICU data: about 15 ms and 7 MB on every run.
 */
export function number(value: number): string {
  const digits = String(Math.abs(Math.trunc(value)))
  return `${value < 0 ? '-' : ''}${digits.replace(/\B(?=(\d{3})+$)/g, ',')}`
}

function signed(delta: number): string {
  return delta > 0 ? `+${number(delta)}` : delta < 0 ? `−${number(-delta)}` : '±0'
}

function when(date: Date): string {
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`
}

/**
 * Escapes text from outside (the service's words, paths, reasons) for a Markdown table
 * cell or quote: HTML is neutralised, Markdown syntax shown as typed (no link, not even
 * GFM's automatic one for a bare address: `:`, `@` and `www.` are escaped), one line.
 */
export function escapeText(text: string): string {
  return redact(text)
    .replace(/\s+/g, ' ')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/([\\`*_[\]|~#!():@])/g, '\\$1')
    .replace(/\bwww\./gi, match => `${match.slice(0, 3)}\\.`)
}
