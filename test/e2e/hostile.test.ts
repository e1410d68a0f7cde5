/**
 * End to end, as an attacker or a careless user would try it (issue 12), for what only the
 * bundle in a process of its own shows: real stdout as the runner reads it (workflow commands,
 * masks), files that are not files, GitHub's and a YAML parser's warnings, and stop signals.
 * Every run passes through runAction's secrets sweep. A GITHUB_OUTPUT that cannot be written:
 * test/stats/report.test.ts.
 *
 * The tables of test/support/cases.ts run whole in process (test/shared/cases.test.ts); one case
 * of each runs here. Text from outside is made inert by the functions every annotation and log
 * line goes through (test/shared/text.test.ts, test/shared/secrets.test.ts), whichever remote sent
 * it; a stop's report, in process: test/stats/stops.test.ts.
 */
import { execFileSync } from 'node:child_process'
import { symlink, truncate, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { MAX_WORKFLOW_BYTES } from '../../src/stats/diagnosis.js'
import { errorsOf } from '../support/action.js'
import {
  ECHOES,
  expectEchoRedacted,
  expectInert,
  expectInjectionRefused,
  expectLegacyInjectionRefused,
  expectMixUpRefused,
  expectRefused,
  INJECTIONS,
  LEGACY_INJECTIONS,
  MIX_UPS,
  pick,
  REFUSALS
} from '../support/cases.js'
import { jsonFault, limiterFault } from '../../scripts/emulator/service.js'
import {
  botInputs,
  discord,
  DISCORD_TOKEN,
  github,
  KEY,
  run,
  runWatched,
  service,
  statsInputs,
  WINDOWS
} from '../support/e2e.js'

describe.concurrent('one case of each table of cases.ts, through the bundle', () => {
  it('a refused input: an api-key cut by a line break, masked line by line as the runner masks', () =>
    expectRefused(run, pick(REFUSALS, ['api-key with a line break inside'])[0]!))
  it("a credential that belongs elsewhere: the bot's Discord token inside api-key, and in discord-token", () =>
    expectMixUpRefused(
      run,
      pick(MIX_UPS, [
        "api-key holding this bot's Discord token with a comma after it, the token in discord-token too"
      ])[0]!
    ))
  it('an input holding workflow-command lines: bot-id', () =>
    expectInjectionRefused(run, pick(INJECTIONS, ['bot-id'])[0]!))
  it('an input holding the legacy ##[ syntax: commands-file', () =>
    expectLegacyInjectionRefused(run, pick(LEGACY_INJECTIONS, ['commands-file'])[0]!))
  it('the API key echoed back by the service as base64', () =>
    expectEchoRedacted(run, pick(ECHOES, ['as base64'])[0]!))
})

/**
 * Text a remote sends that the runner would read as workflow commands if it reached a line of
 * stdout as it is: the legacy `##[command]value` (read wherever `##[` appears in a line) and
 * `::command::value` at a line's start, among them an output and a mask for a common word.
 */
const FORGED =
  '##[error]forged-legacy ##[set-output name=result;]updated ##[add-mask]Bot\n::error::forged-line\n  ::add-mask::Bot\n::set-output name=result::updated'

describe.concurrent('what a remote and the runner hand the run', () => {
  it('workflow commands, the key and a proxy password in a refused update: the runner reads no command of theirs, and no secret', async () => {
    const api = await service()
    const password = 'pr0xy-Pa55w0rd-Zq8Lk3'
    api.inject(
      'stats',
      jsonFault(500, {
        success: false,
        error: `${FORGED} key ${KEY}, proxy said ${password}`,
        status: 500
      })
    )
    // NO_PROXY keeps the loopback service direct: the password is held, never used.
    const env = {
      HTTPS_PROXY: `http://robot:${encodeURIComponent(password)}@127.0.0.1:9`,
      NO_PROXY: '127.0.0.1'
    }
    const result = await run({ inputs: statsInputs(api, { 'cooldown-check': 'false' }), env })

    expect(result.code).toBe(1)
    expectInert(result)
    const masks = result.commands.filter(c => c.command === 'add-mask').map(c => c.message)
    expect(masks).toEqual(expect.arrayContaining([KEY, password]))
    // No mask for a short or common word.
    expect(masks.filter(mask => mask.length < 8)).toEqual([])
    // The remote text is shown, inert: in the one annotation that quotes it, and in the log line.
    expect(result.commands.filter(c => c.message.includes('forged'))).toEqual([
      expect.objectContaining({
        command: 'error',
        message: expect.stringMatching(/# #\[error\]forged-legacy .*key \*\*\*, proxy said \*\*\*/)
      })
    ])
    expect(
      result.log.filter(line => line.includes('forged') && !line.startsWith('error: '))
    ).toEqual([expect.stringMatching(/^The service answered 500: # #\[error\]forged-legacy/)])
  })

  it("workflow commands in Discord's refusal of the token (401): the one error says the token is invalid, inert", async () => {
    const api = await service()
    const fake = await discord()
    fake.inject('application', jsonFault(401, { message: FORGED, code: 0 }))
    const result = await run({
      inputs: statsInputs(api, { 'discord-token': DISCORD_TOKEN, 'discord-api-url': fake.url })
    })

    expect(result.code).toBe(1)
    expectInert(result)
    expect(errorsOf(result)).toEqual([
      expect.stringMatching(
        /^Discord answered 401 .*# #\[error\]forged-legacy.*: the discord-token is invalid\./
      )
    ])
    expect(fake.requests, 'not tried again').toHaveLength(1)
    expect(api.received('stats')).toEqual([])
  })

  it('a dry run reading its workflow through GitHub: what the answer plants reaches neither stream, and 128 KiB of tagged entries parses in time', async () => {
    const api = await service()
    const repo = await github()
    // An unknown directive and unresolved tags, each of which the parser warns about, quoting its
    // line; then tagged entries up to the size limit, each a node of its own.
    const head =
      '%FOO ::warning::planted ##[error]planted\n---\njobs:\n  stats:\n    runs-on: !!planted x\nx:\n'
    const workflow = head + '  - !t v\n'.repeat(Math.floor((MAX_WORKFLOW_BYTES - head.length) / 9))
    // Octokit warns about a deprecated endpoint, quoting GitHub's headers.
    const headers = {
      Deprecation: 'true',
      Sunset: '::warning::planted',
      Link: '<https://example.com/##[error]planted>; rel="deprecation"'
    }
    repo.inject('contents', { kind: 'answer', status: 200, headers, body: workflow })
    const result = await run({
      inputs: statsInputs(api, { 'dry-run': 'true', timeout: '5' }),
      env: {
        GITHUB_WORKFLOW_REF: 'example/bot/.github/workflows/stats.yml@refs/heads/main',
        GITHUB_JOB: 'stats',
        GITHUB_API_URL: repo.url
      },
      timeoutMs: 20_000
    })

    expect(result.code, result.stderr).toBe(0)
    expect(repo.requests).toHaveLength(1)
    for (const stream of [result.stdout, result.stderr]) {
      expect(stream).not.toContain('##[')
      expect(stream.split('\n').filter(line => /^\s*::warning::planted/.test(line))).toEqual([])
    }
    expect(result.commands.filter(c => c.message.includes('planted'))).toEqual([])
    // About a second here; a duplicate-key check took 30 s and more. Room for a loaded machine.
    expect(result.durationMs).toBeLessThan(15_000)
  })
})

const SECRET = '[{"name":"top-secret-content"}]'
const at = (workspace: string): string => join(workspace, 'c.json')
/** [case, the commands-file, how the workspace is prepared, the error] */
type NotAFile = [string, string, (workspace: string) => Promise<unknown>, RegExp]
const PORTABLE: NotAFile[] = [
  [
    'a path that climbs out',
    '../secret.json',
    ws => writeFile(join(ws, '../secret.json'), SECRET),
    /outside the workspace/
  ],
  [
    'a sparse file that claims 4 GiB',
    'c.json',
    ws => writeFile(at(ws), '').then(() => truncate(at(ws), 4 * 1024 ** 3)),
    /larger than 5 MB/
  ]
]
const POSIX: NotAFile[] = [
  [
    'a named pipe, not waited on',
    'c.json',
    async ws => execFileSync('mkfifo', [at(ws)]),
    /not a regular file \(a named pipe\)/
  ],
  [
    '/dev/zero through a symbolic link',
    'c.json',
    ws => symlink('/dev/zero', at(ws)),
    /resolves to \/dev\/zero, outside the workspace/
  ]
]

describe.concurrent(
  'a commands-file that is not a plain file in the workspace: refused at once, before any request',
  () => {
    it.for(WINDOWS ? PORTABLE : [...PORTABLE, ...POSIX])('%s', async ([, file, setup, message]) => {
      const api = await service()
      const result = await run({
        inputs: botInputs(api, { 'commands-file': file, timeout: '5', 'request-timeout': '5' }),
        setup
      })
      expect(result.code).toBe(1)
      expect(errorsOf(result)).toEqual([expect.stringMatching(message)])
      expect(result.durationMs, 'well within timeout: 5').toBeLessThan(4_000)
      expect(result.stdout + result.summary, 'nothing of the file shown').not.toContain(
        'top-secret-content'
      )
      expect(api.requests, 'nothing sent').toEqual([])
    })
  }
)

describe.skipIf(WINDOWS)(
  'a stopped run (cancelled workflow, runner time limit): Windows ends a process, POSIX signals it',
  () => {
    it('SIGTERM while the PATCH waits for its answer: says it was sent, writes result and summary, exits at once', async () => {
      const api = await service()
      api.inject('stats', { kind: 'hang' })
      const { result, exitMs } = await runWatched(
        { inputs: statsInputs(api) },
        () => api.received('stats').length > 0,
        child => child.kill('SIGTERM')
      )
      expect(exitMs, 'exits within a second of the signal').toBeLessThan(1_000)
      expect(result.code).toBe(1)
      expect(api.received('stats'), 'one PATCH, never resent').toHaveLength(1)
      expect(errorsOf(result)).toEqual([
        expect.stringMatching(
          /^The step was stopped by SIGTERM .*The stats update was sent, and no answer came back/
        )
      ])
      expect(result.outputs).toMatchObject({ result: 'failed', 'command-count': '14' })
      expect(result.summary).toMatch(/^<h3>❌ [^<]*: failed: stopped by SIGTERM<\/h3>/)
    })

    it('SIGTERM while a dry run reads a hostile workflow file under the cap (thousands of anchors, each used once): the stop reported, exit at once', async () => {
      const api = await service()
      let workflow = 'jobs:\n  stats:\n    runs-on: x\nx:\n'
      for (let i = 0; ; i++) {
        const anchors = `  - &s${i} v\n  - &c${i} [*s${i}]\n  - *c${i}\n`
        if (workflow.length + anchors.length > MAX_WORKFLOW_BYTES) break
        workflow += anchors
      }
      // The key check is the dry run's last request before the file is read and parsed.
      const { result, exitMs } = await runWatched(
        {
          inputs: statsInputs(api, { 'dry-run': 'true', timeout: '5' }),
          files: { '.github/workflows/stats.yml': workflow },
          env: {
            GITHUB_WORKFLOW_REF: 'example/bot/.github/workflows/stats.yml@refs/heads/main',
            GITHUB_JOB: 'stats'
          }
        },
        () => api.received('votes').length > 0,
        child => setTimeout(() => child.kill('SIGTERM'), 20)
      )
      // About 0.2 s on an idle machine (the parser's own alias lookup held it 6 s and more); the
      // bound leaves room for a loaded one.
      expect(exitMs, 'exits about at once').toBeLessThan(3_000)
      expect(result.code).toBe(1)
      expect(errorsOf(result)).toEqual([
        expect.stringMatching(
          /^The step was stopped by SIGTERM .*The workflow that ran this step was not checked\. Nothing was sent \(dry run\)\./
        )
      ])
      expect(result.outputs['result']).toBe('failed')
    })

    it('SIGINT during a wait for the read limiter: says nothing was sent, sends nothing, exits at once', async () => {
      const api = await service()
      api.inject(
        'record',
        limiterFault(
          { retry_after: 30 },
          { 'Retry-After': '30', 'RateLimit-Remaining': '0', 'RateLimit-Reset': '30' }
        )
      )
      const { result, exitMs } = await runWatched(
        { inputs: statsInputs(api) },
        () => api.requests.length > 0,
        child => child.kill('SIGINT')
      )
      expect(exitMs, 'exits within a second of the signal, not after the 30 s wait').toBeLessThan(
        1_000
      )
      expect(result.code).toBe(1)
      expect(api.requests.map(r => r.route)).toEqual(['record'])
      expect(errorsOf(result)).toEqual([
        expect.stringMatching(/^The step was stopped by SIGINT .*The stats update was not sent\./)
      ])
      expect(result.outputs['result']).toBe('failed')
      expect(result.summary).toContain('The stats update was not sent')
    })
  }
)
