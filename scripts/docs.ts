// `npm run docs`: writes the outcome tables of src/ into docs/troubleshooting.md, and the inputs
// and outputs of action.yml into README.md, each between the page's `<!-- generated: NAME -->` and
// `<!-- end: NAME -->` marks; the rest of each page is written by hand. test/repo/docs.test.ts
// fails when a committed page differs.
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { parse } from 'yaml'
import { KEY_ANSWERS } from '../src/keys.js'
import { type Facts, SCHEDULE_WORDS, STATS_OUTCOMES, type Wording } from '../src/stats/outcome.js'
import { VOTE_OUTCOMES } from '../src/votes/report.js'

const path = (file: string): string => fileURLToPath(new URL(`../${file}`, import.meta.url))

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
  reason: () => '<a reason from a "Stats not sent" row>',
  day: () => '<date>'
}

/** A table cell: Markdown's `<` and `|` escaped, so that `<time>` shows as written. */
const cell = (text: string): string => text.replace(/[<|]/g, '\\$&')
const table = (head: string[], rows: string[][]): string =>
  [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...rows.map(row => `| ${row.map(cell).join(' | ')} |`)
  ].join('\n')

const TROUBLESHOOTING: Record<string, () => string> = {
  stats: () =>
    table(
      ['`result`', 'Headline', 'What the run says'],
      Object.entries(STATS_OUTCOMES)
        .filter(([id]) => !id.startsWith('key-'))
        .map(([id, { result, mark, headline, says }]) => {
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
            says(facts, say)
          ]
        })
    ),
  schedule: () =>
    table(
      ['When', 'Annotation', 'What the run says'],
      Object.values(SCHEDULE_WORDS).map(({ when, kind, title, says }) => {
        const facts = {
          disabledAround: new Date(0),
          lastPush: new Date(0),
          stats: '<"The counts were updated.", or how the stats run ended>',
          reason: '<why>'
        }
        const annotation = kind === 'error' ? 'error: the step fails' : `${kind}: ${title}`
        return [when, annotation, says(facts, PLACEHOLDER_WORDING)]
      })
    ),
  keys: () =>
    table(
      ['Answer', 'Headline', 'Advice'],
      Object.entries(KEY_ANSWERS).map(([answer, { headline, advice }]) => [
        answer === '410-fifth' ? '410, "…revoked due to spamming…"' : answer,
        `failed: ${headline}`,
        advice(PLACEHOLDERS)
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

/** action.yml's inputs and outputs, as the runner and the Marketplace read them. */
interface Metadata {
  inputs: Record<string, { description: string; required?: boolean; default?: string }>
  outputs: Record<string, { description: string }>
}

/** A description as a table cell: on one line. */
const oneLine = (text: string): string => text.trim().replace(/\s+/g, ' ')

const metadata = (): Metadata => parse(readFileSync(path('action.yml'), 'utf8')) as Metadata

const README: Record<string, () => string> = {
  inputs: () =>
    table(
      ['Input', 'Default', 'Description'],
      Object.entries(metadata().inputs).map(([name, input]) => [
        `\`${name}\``,
        input.default === undefined ? '' : `\`${input.default}\``,
        `${input.required === true ? '**Required.** ' : ''}${oneLine(input.description)}`
      ])
    ),
  outputs: () =>
    table(
      ['Output', 'Description'],
      Object.entries(metadata().outputs).map(([name, output]) => [
        `\`${name}\``,
        oneLine(output.description)
      ])
    )
}

/** The pages `npm run docs` writes, with the sections each holds. */
export const PAGES: Record<string, Record<string, () => string>> = {
  'docs/troubleshooting.md': TROUBLESHOOTING,
  'README.md': README
}

/** `file`'s text (`page`) with each generated section written afresh. */
export function generate(file: string, page: string): string {
  const sections = PAGES[file]!
  return page.replace(
    /(<!-- generated: (\w+) -->\n)[\s\S]*?(<!-- end: \2 -->)/g,
    (_all, open: string, name: string, close: string) => {
      const section = sections[name]
      if (section === undefined) throw new Error(`${file} names an unknown section: ${name}`)
      return `${open}${section()}\n${close}`
    }
  )
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const file of Object.keys(PAGES))
    writeFileSync(path(file), generate(file, readFileSync(path(file), 'utf8')))
}
