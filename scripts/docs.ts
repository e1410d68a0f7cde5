// `npm run docs`: writes the outcome tables of src/ into docs/troubleshooting.md, between the
// page's `<!-- generated: NAME -->` and `<!-- end: NAME -->` marks; the rest of the page is
// written by hand. test/repo/docs.test.ts fails when the committed page differs.
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { KEY_ANSWERS } from '../src/keys.js'
import { type Facts, SCHEDULE_WORDS, STATS_OUTCOMES, type Wording } from '../src/stats/outcome.js'
import { VOTE_OUTCOMES } from '../src/votes/report.js'

export const PAGE = fileURLToPath(new URL('../docs/troubleshooting.md', import.meta.url))

/**
 * What varies, as the page shows it: facts of their real types, which the page's wording below
 * writes as placeholders whatever their values. Both counts sent, stale-after on.
 */
export const PLACEHOLDERS: Facts = {
  botId: '<bot-id>',
  body: { command_count: 0, server_count: 0 },
  next: new Date(0),
  last: new Date(0),
  status: 0,
  said: '<text>',
  overlap: new Date(0),
  staleAfter: 0,
  failure: '<network failure>',
  skip: undefined,
  workflow: undefined,
  stopped: undefined
}

/** How the page writes each fact: by what it is, never by its value. */
export const PLACEHOLDER_WORDING: Wording = {
  time: () => '<time>',
  utc: () => '<time>',
  age: () => '<n> h',
  staleAfter: () => '<hours>',
  status: () => '<status>',
  body: () => '<body>',
  reason: () => '<a reason from a "Stats not sent" row>'
}

/** A table cell: Markdown's `<` and `|` escaped, so that `<time>` shows as written. */
const cell = (text: string): string => text.replace(/[<|]/g, '\\$&')
const table = (head: string[], rows: string[][]): string =>
  [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...rows.map(row => `| ${row.map(cell).join(' | ')} |`)
  ].join('\n')

/** A row's words, its first and last sentences shown as `…` where the row above has the same. */
function elided(text: string, above: string): string {
  const sentences = (words: string): string[] => words.split(/(?<=\.) /)
  const [mine, theirs] = [sentences(text), sentences(above)]
  let head = 0
  while (head < mine.length - 1 && mine[head] === theirs[head]) head++
  let tail = 0
  while (tail < mine.length - head - 1 && mine.at(-1 - tail) === theirs.at(-1 - tail)) tail++
  return [head > 0 ? '…' : '', ...mine.slice(head, mine.length - tail), tail > 0 ? '…' : '']
    .filter(Boolean)
    .join(' ')
}

const SECTIONS: Record<string, () => string> = {
  stats: () =>
    table(
      ['`result`', 'Headline', 'What the run says'],
      Object.entries(STATS_OUTCOMES)
        .filter(([id]) => !id.startsWith('key-'))
        .map(([id, { result, mark, headline, says }], row, rows) => {
          // A deferred or stale run names the service's answer (a 5xx, the limiter) or the network
          // failure; the limiter's warning names the listing's age only with stale-after set, shown
          // in the deferred row.
          const facts =
            id === 'deferred' || id === 'stale'
              ? { ...PLACEHOLDERS, failure: '<answer or network failure>' }
              : {
                  ...PLACEHOLDERS,
                  staleAfter: id === 'rate-limited' ? undefined : PLACEHOLDERS.staleAfter
                }
          const say = PLACEHOLDER_WORDING
          return [
            `\`${result}\``,
            `${mark} ${result === 'failed' ? 'failed: ' : ''}${headline(facts, say)}`,
            elided(says(facts, say), row === 0 ? '' : rows[row - 1]![1].says(PLACEHOLDERS, say))
          ]
        })
    ),
  schedule: () =>
    table(
      ['When', 'Annotation', 'What the run says'],
      Object.values(SCHEDULE_WORDS).map(({ when, kind, title, says }) => {
        const facts = {
          disabledAround: '<date>',
          lastPush: '<date of the last push>',
          stats: '<"The counts were updated.", or how the stats run ended>',
          reason: '<why>'
        }
        const annotation = kind === 'error' ? 'error: the step fails' : `${kind}: ${title}`
        return [when, annotation, says(facts)]
      })
    ),
  keys: () =>
    table(
      ['Answer', 'Headline', 'Advice'],
      Object.entries(KEY_ANSWERS).map(([answer, { headline, advice }], row, rows) => [
        answer === '410-fifth' ? '410, "…revoked due to spamming…"' : answer,
        `failed: ${headline}`,
        elided(advice(PLACEHOLDERS), row === 0 ? '' : rows[row - 1]![1].advice(PLACEHOLDERS))
      ])
    ),
  votes: () =>
    table(
      ['`result`', 'Headline: one user', 'Several users'],
      Object.entries(VOTE_OUTCOMES).map(([result, { mark, headline }]) => [
        `\`${result}\``,
        `${mark} ${headline(1, 1, 0, result === 'failed' ? '<why>' : undefined)}`,
        `${mark} ${headline('<m>', '<n>', '<k>', result === 'failed' ? '<why>' : undefined)}`
      ])
    )
}

/** The page with each generated section written afresh. */
export function generate(page: string): string {
  return page.replace(
    /(<!-- generated: (\w+) -->\n)[\s\S]*?(<!-- end: \2 -->)/g,
    (_all, open: string, name: string, close: string) => {
      const section = SECTIONS[name]
      if (section === undefined)
        throw new Error(`docs/troubleshooting.md names an unknown section: ${name}`)
      return `${open}${section()}\n${close}`
    }
  )
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(PAGE, generate(readFileSync(PAGE, 'utf8')))
}
