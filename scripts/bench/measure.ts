/**
 * Times one whole process: wall time, CPU time (user + sys) and peak memory (max RSS), and
 * the moment it was started, on the clock `process.hrtime.bigint()` reads.
 *
 * How, and why this way: the figures come from the kernel's own accounting of the child,
 * `wait4(2)`'s `struct rusage`, read by a few lines of Python (python3 is on every machine
 * of this project's kind) that start the process with `posix_spawn` and reap it.
 * - Node cannot give them: `child_process` reaps with `waitpid` and drops the rusage, and
 *   `process.resourceUsage()` only covers the calling process (a preload in the child would
 *   change what is measured and miss its exit).
 * - `/usr/bin/time -f` reads the same rusage but prints CPU time in hundredths of a second,
 *   and `/proc/self/stat`'s cutime/cstime are clock ticks (10 ms): too coarse for processes
 *   of 30 to 100 ms. `wait4` gives microseconds, and on Linux user + sys adds up to the
 *   scheduler's precise run time of every thread of the child (only the split between user
 *   and sys is sampled).
 * - `ru_maxrss` is the high-water mark of the child's resident memory, all threads, in KiB.
 *   It also covers the address space the child ran in before `exec` (posix_spawn's vfork
 *   shares the Python wrapper's, about 10 MB), far below any Node process.
 * - Wall time is taken in the wrapper from just before `posix_spawn` to `wait4`'s return on
 *   CLOCK_MONOTONIC, so the wrapper's own start (about 20 ms of Python) is not counted; the
 *   same clock as `process.hrtime.bigint()` in the benchmark, so the start time can be
 *   compared with the time a request byte reaches the loopback server.
 * The child's stdout and stderr are pipes to the benchmark, as the runner's are, and its
 * stdin is /dev/null. When python3 is missing (or BENCH_RUSAGE=time), GNU time is used
 * instead, with 10 ms resolution for CPU time and wall and start timed by the benchmark.
 */
import { spawn, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import type { Readable, Writable } from 'node:stream'

export interface Measured {
  code: number | null
  stdout: string
  stderr: string
  /** When the process was started, on process.hrtime.bigint()'s clock. */
  startNs: bigint
  wallMs: number
  userMs: number
  sysMs: number
  cpuMs: number
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
os.write(3, json.dumps({"start": start, "wall": end - start, "code": os.waitstatus_to_exitcode(status),
  "user": ru.ru_utime, "sys": ru.ru_stime, "maxrss": ru.ru_maxrss}).encode())
`

/** The real Python binary (pyenv's shim is a shell script, resolved once), or undefined. */
function findPython(): string | undefined {
  if (process.env['BENCH_RUSAGE'] === 'time') return undefined
  const found = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' })
  const path = found.status === 0 ? found.stdout.trim() : ''
  return path !== '' && existsSync(path) ? path : undefined
}

const python = findPython()
const gnuTime = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined

export const METHOD = python ? `wait4(2) rusage through ${python}` : gnuTime ? 'GNU time (/usr/bin/time -f): CPU time to 10 ms' : undefined

/** Starts `argv` (argv[0] an absolute path) with exactly `env` in `cwd`, and measures it. */
export function measure(argv: string[], env: Record<string, string>, cwd: string, timeoutMs = 60_000): Promise<Measured> {
  if (python) return viaPython(python, argv, env, cwd, timeoutMs)
  if (gnuTime) return viaGnuTime(gnuTime, argv, env, cwd, timeoutMs)
  throw new Error('neither python3 nor /usr/bin/time is on this machine: cannot read a child process rusage')
}

function viaPython(python: string, argv: string[], env: Record<string, string>, cwd: string, timeoutMs: number): Promise<Measured> {
  return new Promise((resolve, reject) => {
    const child = spawn(python, ['-I', '-S', '-c', WRAPPER], { cwd, env: {}, stdio: ['pipe', 'pipe', 'pipe', 'pipe'] })
    const done = collect(child.stdout, child.stderr)
    let report = ''
    ;(child.stdio[3] as Readable).setEncoding('utf8').on('data', (d: string) => (report += d))
    // The wrapper kills the process at the deadline; this is a backstop for the wrapper itself.
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs + 5_000)
    child.on('error', reject)
    child.on('close', async code => {
      clearTimeout(timer)
      const out = await done
      if (code !== 0 || report === '') {
        reject(new Error(`the rusage wrapper failed (${code}): ${out.stderr}`))
        return
      }
      const r = JSON.parse(report) as { start: number; wall: number; code: number; user: number; sys: number; maxrss: number }
      resolve({
        code: r.code,
        ...out,
        startNs: BigInt(r.start),
        wallMs: r.wall / 1e6,
        userMs: r.user * 1000,
        sysMs: r.sys * 1000,
        cpuMs: (r.user + r.sys) * 1000,
        maxRssKiB: r.maxrss
      })
    })
    ;(child.stdin as Writable).end(JSON.stringify({ argv, env, timeout: timeoutMs / 1000 }))
  })
}

function viaGnuTime(time: string, argv: string[], env: Record<string, string>, cwd: string, timeoutMs: number): Promise<Measured> {
  return new Promise((resolve, reject) => {
    const marker = '@@bench-rusage'
    const startNs = process.hrtime.bigint()
    const child = spawn(time, ['-f', `${marker} %e %U %S %M %x`, ...argv], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
    const done = collect(child.stdout, child.stderr)
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.on('error', reject)
    child.on('close', async () => {
      const wallMs = Number(process.hrtime.bigint() - startNs) / 1e6
      clearTimeout(timer)
      const out = await done
      const line = out.stderr.split('\n').find(l => l.startsWith(marker))
      if (line === undefined) {
        reject(new Error(`GNU time printed no figures: ${out.stderr}`))
        return
      }
      const [, , user, sys, rss, code] = line.split(' ').map(Number)
      resolve({
        code: code!,
        stdout: out.stdout,
        stderr: out.stderr.replace(line, ''),
        startNs,
        wallMs,
        userMs: user! * 1000,
        sysMs: sys! * 1000,
        cpuMs: (user! + sys!) * 1000,
        maxRssKiB: rss!
      })
    })
  })
}

/** Both streams' text, once both have closed. */
function collect(stdout: Readable, stderr: Readable): Promise<{ stdout: string; stderr: string }> {
  let out = ''
  let err = ''
  stdout.setEncoding('utf8').on('data', (d: string) => (out += d))
  stderr.setEncoding('utf8').on('data', (d: string) => (err += d))
  const ended = (s: Readable): Promise<void> => new Promise(r => (s.readableEnded ? r() : s.once('close', () => r())))
  return Promise.all([ended(stdout), ended(stderr)]).then(() => ({ stdout: out, stderr: err }))
}
