// `npm run mutate [-- module...]`: mutation testing, one module at a time, each judged by the
// in-process tests of its own behaviour (OWN_TESTS). A mutant in settings.ts or summary.ts is
// run over by nearly every test of the suite, so judging each module by the whole suite took
// hours; by its own tests, minutes. Without arguments it goes through every module in
// stryker.config.json's `mutate` list. It prints one table of scores at the end and writes it to
// reports/mutation/scores.md (figures from the run, never pasted); each module's full report is
// reports/mutation/<module>.json.
import { spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/**
 * The tests that speak for each module: the file that mirrors it, and the files of the
 * behaviours it takes part in. A module not listed is judged by every in-process test.
 */
const OWN_TESTS = {
  // cases.test.ts runs run() in process over the tables of refused inputs, injected commands and
  // echoed secrets: it takes part in main's, the settings', the secrets' and the texts' behaviour.
  'src/main.ts': ['test/shared/main.test.ts', 'test/shared/cases.test.ts'],
  'src/settings.ts': [
    'test/shared/settings.test.ts',
    'test/shared/main.test.ts',
    'test/shared/cases.test.ts'
  ],
  // number(), relative() and when() are tested with the other texts a person reads, in
  // text.test.ts.
  'src/summary.ts': [
    'test/shared/summary.test.ts',
    'test/shared/summary-gfm.test.ts',
    'test/shared/text.test.ts',
    'test/shared/main.test.ts',
    'test/stats/report.test.ts'
  ],
  // text.test.ts tests maskSecret and proxyCredentials with the texts they make safe.
  'src/secrets.ts': [
    'test/shared/secrets.test.ts',
    'test/shared/text.test.ts',
    'test/shared/settings.test.ts',
    'test/shared/cases.test.ts'
  ],
  'src/text.ts': [
    'test/shared/text.test.ts',
    'test/shared/secrets.test.ts',
    'test/shared/cases.test.ts'
  ],
  'src/service.ts': ['test/shared/service.test.ts', 'test/votes/'],
  'src/keys.ts': ['test/shared/service.test.ts', 'test/stats/', 'test/votes/'],
  'src/http/transport.ts': ['test/http/'],
  'src/http/client.ts': ['test/http/'],
  'src/stats/update.ts': ['test/stats/'],
  'src/stats/record.ts': ['test/stats/'],
  'src/stats/window.ts': ['test/stats/'],
  'src/stats/delivery.ts': ['test/stats/'],
  'src/stats/answers.ts': ['test/stats/'],
  'src/stats/counts.ts': ['test/stats/'],
  'src/stats/workflow.ts': ['test/stats/'],
  'src/stats/diagnosis.ts': ['test/stats/'],
  'src/stats/discord.ts': ['test/stats/discord.test.ts', 'test/stats/counts.test.ts'],
  'src/stats/manifest.ts': ['test/stats/manifest.test.ts', 'test/stats/counts.test.ts'],
  // The outcomes' words are pinned once, by the troubleshooting page's test (docs.test.ts); the
  // stats tests decide which outcome a run ends in.
  'src/stats/outcome.ts': ['test/stats/', 'test/repo/docs.test.ts'],
  'src/stats/report.ts': ['test/stats/report.test.ts'],
  'src/votes/report.ts': ['test/votes/'],
  'src/votes/check.ts': ['test/votes/']
}

const STRYKER = fileURLToPath(
  new URL('../node_modules/@stryker-mutator/core/bin/stryker.js', import.meta.url)
)
const config = JSON.parse(readFileSync('stryker.config.json', 'utf8'))
const modules = process.argv.slice(2).length > 0 ? process.argv.slice(2) : config.mutate
const unknown = modules.filter(module => !existsSync(module))
if (unknown.length > 0) {
  console.error(`No such module: ${unknown.join(', ')}. Give paths like src/settings.ts.`)
  process.exit(2)
}

mkdirSync('reports/mutation', { recursive: true })
const rows = []
const failures = []
for (const module of modules) {
  const tests = OWN_TESTS[module] ?? []
  console.log(
    `\n${module}, judged by ${tests.length === 0 ? 'every in-process test' : tests.join(', ')}`
  )
  const started = Date.now()
  const run = spawnSync(
    process.execPath,
    [STRYKER, 'run', '--mutate', module, '--reporters', 'json,clear-text'],
    {
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, MUTATE_TESTS: tests.join(',') }
    }
  )
  if (run.status !== 0) {
    // One module's failure (its tests failed before any mutant) leaves the others' runs to go on.
    console.error(`Stryker failed on ${module} (exit ${run.status}).`)
    failures.push(module)
    continue
  }
  const report = JSON.parse(readFileSync(config.jsonReporter.fileName, 'utf8'))
  copyFileSync(
    config.jsonReporter.fileName,
    `reports/mutation/${module.replace(/^src\//, '').replace(/\//g, '-')}.json`
  )
  const mutants = Object.values(report.files).flatMap(file => file.mutants)
  const count = status => mutants.filter(mutant => mutant.status === status).length
  const killed = count('Killed') + count('Timeout')
  const survived = count('Survived') + count('NoCoverage')
  rows.push({ module, killed, survived, minutes: (Date.now() - started) / 60_000 })
}

const score = row =>
  row.killed + row.survived === 0 ? 100 : (100 * row.killed) / (row.killed + row.survived)
const all = rows.reduce(
  (sum, row) => ({ killed: sum.killed + row.killed, survived: sum.survived + row.survived }),
  {
    killed: 0,
    survived: 0
  }
)
const table = [
  `Mutation scores, ${new Date().toISOString().slice(0, 10)} (npm run mutate${process.argv.length > 2 ? ` -- ${modules.join(' ')}` : ''})`,
  '',
  '| Module | Killed | Survived | Score | Minutes |',
  '|---|---:|---:|---:|---:|',
  ...rows.map(
    row =>
      `| \`${row.module}\` | ${row.killed} | ${row.survived} | ${score(row).toFixed(1)} % | ${row.minutes.toFixed(1)} |`
  ),
  `| all | ${all.killed} | ${all.survived} | ${score(all).toFixed(1)} % | ${rows.reduce((sum, row) => sum + row.minutes, 0).toFixed(1)} |`
].join('\n')
writeFileSync('reports/mutation/scores.md', `${table}\n`)
console.log(`\n${table}`)
if (failures.length > 0) {
  console.error(`\nNo score for ${failures.join(', ')}: Stryker failed (see above).`)
  process.exit(1)
}
