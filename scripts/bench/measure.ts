/**
 * Times one whole process: wall time and peak memory, and the moment it was started on the
 * clock `process.hrtime.bigint()` reads (CLOCK_MONOTONIC), to compare with the moment a
 * request byte reaches a loopback server.
 *
 * The figures come from the kernel's accounting of the child, `wait4(2)`'s rusage, read by
 * a few lines of Python (python3 is on every runner) that start the process with
 * `posix_spawn` and reap it: Node's child_process drops the rusage, and a preload in the
 * child would change what is measured. `ru_maxrss` is the child's high-water mark of
 * resident memory in KiB; wall time runs from just before `posix_spawn` to `wait4`'s return,
 * so the wrapper's own start is not counted.
 */
import { spawn, spawnSync } from 'node:child_process'
import type { Readable, Writable } from 'node:stream'

export interface Measured {
  code: number | null
  stdout: string
  stderr: string
  /** When the process was started, on process.hrtime.bigint()'s clock. */
  startNs: bigint
  wallMs: number
  maxRssKiB: number
}

const WRAPPER = `
import json, os, signal, sys, time
spec = json.load(sys.stdin)
actions = [(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0), (os.POSIX_SPAWN_CLOSE, 3)]
start = time.monotonic_ns()
pid = os.posix_spawn(spec["argv"][0], spec["argv"], spec["env"], file_actions=actions)
signal.signal(signal.SIGALRM, lambda *_: os.kill(pid, signal.SIGKILL))
signal.setitimer(signal.ITIMER_REAL, spec["timeout"])
_, status, ru = os.wait4(pid, 0)
end = time.monotonic_ns()
os.write(3, json.dumps({"start": start, "wall": end - start, "code": os.waitstatus_to_exitcode(status), "maxrss": ru.ru_maxrss}).encode())
`

/** The real Python binary (a pyenv shim is a shell script), resolved once. */
const python = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], {
  encoding: 'utf8'
}).stdout?.trim()

/** Starts `argv` (argv[0] an absolute path) with exactly `env` in `cwd`, and measures it. */
export function measure(
  argv: string[],
  env: Record<string, string>,
  cwd: string,
  timeoutMs = 60_000
): Promise<Measured> {
  if (!python) throw new Error('python3 is needed to read a child process rusage')
  return new Promise((resolve, reject) => {
    const child = spawn(python, ['-I', '-S', '-c', WRAPPER], {
      cwd,
      env: {},
      stdio: ['pipe', 'pipe', 'pipe', 'pipe']
    })
    let [stdout, stderr, report] = ['', '', '']
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
    ;(child.stdio[3] as Readable).setEncoding('utf8').on('data', (d: string) => (report += d))
    child.on('error', reject)
    child.on('close', code => {
      if (code !== 0 || report === '')
        return reject(new Error(`the rusage wrapper failed (${code}): ${stderr}`))
      const r = JSON.parse(report) as { start: number; wall: number; code: number; maxrss: number }
      resolve({
        code: r.code,
        stdout,
        stderr,
        startNs: BigInt(r.start),
        wallMs: r.wall / 1e6,
        maxRssKiB: r.maxrss
      })
    })
    ;(child.stdin as Writable).end(JSON.stringify({ argv, env, timeout: timeoutMs / 1000 }))
  })
}
