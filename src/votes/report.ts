import * as core from '@actions/core'
import type { VoteSettings } from '../settings.js'
import {
  botTitle,
  headlineWith,
  markedParagraph,
  number,
  when,
  writeOutputsSafely,
  writeSection
} from '../summary.js'
import { annotationText, html, logText } from '../text.js'
import type { Vote, VoteOutcome } from './check.js'

/**
 * The vote-check mode's report: its outputs (the only writer of them), log lines and summary
 * section.
 */

const info = (line: string): void => core.info(logText(line))

/** Writes the outputs, the log lines and the summary section; returns the failure, if any. */
export async function reportVotes(
  settings: VoteSettings,
  outcome: VoteOutcome
): Promise<string | undefined> {
  const outputsFailure = writeOutputsSafely(() => writeOutputs(outcome))
  announce(outcome)
  if (outputsFailure !== undefined && outcome.error !== undefined)
    core.warning(annotationText(outputsFailure))
  await writeSection(summary =>
    summary.addRaw(renderSummary(settings, outcome, outputsFailure), true)
  )
  return outcome.error?.message ?? outputsFailure
}

/**
 * `result` and `voted` speak for every user only when every user was checked; otherwise the
 * result is `failed` and `votes` holds the users that were.
 */
export function writeOutputs(outcome: VoteOutcome): void {
  core.setOutput('result', outcome.result)
  if (outcome.status !== undefined) core.setOutput('status', outcome.status)
  if (outcome.result === 'dry-run') return
  const all = [...outcome.votes.values()]
  if (outcome.result === 'voted' || outcome.result === 'not-voted')
    core.setOutput('voted', outcome.result === 'voted')
  core.setOutput(
    'votes',
    JSON.stringify(Object.fromEntries([...outcome.votes].map(([id, vote]) => [id, voteJson(vote)])))
  )
  const only = all.length === 1 && outcome.unchecked.length === 0 ? all[0] : undefined
  if (only?.lastVote) core.setOutput('last-vote', only.lastVote.toISOString())
}

function voteJson(vote: Vote): { voted: boolean; votes: number | null; last_vote: string | null } {
  return { voted: vote.voted, votes: vote.votes, last_vote: vote.lastVote?.toISOString() ?? null }
}

/** One log line per user checked. */
export function announce(outcome: VoteOutcome): void {
  const { at } = outcome
  for (const [id, vote] of outcome.votes) {
    const details = [
      vote.votes === null ? '' : `${vote.votes} votes`,
      vote.lastVote ? `last ${when(vote.lastVote, at)}` : ''
    ]
      .filter(Boolean)
      .join(', ')
    info(
      `User ${id}: ${vote.voted ? 'voted' : 'has not voted'} in the last 24 hours${details ? ` (${details})` : ''}.`
    )
  }
  if (outcome.keyCheck?.state === 'unchecked') {
    core.warning(
      annotationText(
        `The API key could not be checked (${outcome.keyCheck.reason}); the next run will check it.`
      ),
      {
        title: 'Key not checked'
      }
    )
  }
  if (outcome.rateLimited > 0)
    info(
      `The service's rate limit answered ${outcome.rateLimited} time(s); those checks were retried.`
    )
}

/**
 * The vote check's outcomes: for each `result`, the summary headline's mark and words, by how
 * many users were checked and how many had not voted. `npm run docs` writes them into
 * docs/troubleshooting.md; a failure's error says what to do.
 */
export const VOTE_OUTCOMES = {
  voted: {
    mark: '✅',
    headline: (checked: number | string) => (checked === 1 ? 'voted' : `all ${checked} users voted`)
  },
  'not-voted': {
    mark: '⭕',
    headline: (checked: number | string, missing: number | string) =>
      checked === 1
        ? 'not voted in the last 24 hours'
        : `${missing} of ${checked} users have not voted in the last 24 hours`
  },
  'dry-run': { mark: '🧪', headline: () => 'dry run: nobody checked' },
  failed: {
    mark: '❌',
    headline: (
      _checked: number | string,
      _missing: number | string,
      unchecked: number | string,
      why?: string
    ) =>
      `failed${why === undefined ? '' : `: ${why}`}${unchecked === 0 ? '' : `${why === undefined ? ':' : ';'} ${unchecked} user(s) not checked`}`
  }
} satisfies Record<VoteOutcome['result'], unknown>

function headline(outcome: VoteOutcome): [mark: string, words: string] {
  const { mark, headline } = VOTE_OUTCOMES[outcome.result]
  const missing = [...outcome.votes.values()].filter(vote => !vote.voted).length
  return [
    mark,
    headline(outcome.votes.size, missing, outcome.unchecked.length, outcome.error?.headline)
  ]
}

/** The summary section, as HTML. */
export function renderSummary(
  settings: VoteSettings,
  outcome: VoteOutcome,
  outputsFailure?: string
): string {
  const { at } = outcome
  const [mark, words] = headlineWith(outputsFailure, headline(outcome))
  const parts = [
    `<h3>${mark} Vote check for ${botTitle(settings.botId, undefined, settings.baseUrl)}: ${html(words)}</h3>\n`
  ]
  if (outcome.votes.size > 0 || outcome.unchecked.length > 0) {
    const rows = [...outcome.votes].map(
      ([id, vote]) =>
        `<tr><td><code>${id}</code></td><td>${vote.voted ? 'yes' : 'no'}</td><td>${vote.votes === null ? '' : number(vote.votes)}</td><td>${vote.lastVote ? html(when(vote.lastVote, at)) : ''}</td></tr>`
    )
    if (outcome.result === 'failed')
      for (const id of outcome.unchecked)
        rows.push(`<tr><td><code>${id}</code></td><td>not checked</td><td></td><td></td></tr>`)
    parts.push(
      `<table>\n<tr><th>User</th><th>Voted in the last 24 hours</th><th>Votes</th><th>Last vote</th></tr>\n${rows.join('\n')}\n</table>\n`
    )
  } else if (outcome.result === 'dry-run') {
    parts.push(
      `<p>A real run would check ${settings.userIds.length} user(s): ${settings.userIds.map(id => `<code>${id}</code>`).join(', ')}.</p>\n`
    )
  }
  if (outcome.error !== undefined)
    parts.push(markedParagraph('❌', 'Error:', outcome.error.message))
  if (outputsFailure !== undefined) parts.push(markedParagraph('❌', 'Error:', outputsFailure))
  return parts.join('')
}
