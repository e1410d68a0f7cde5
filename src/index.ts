import { run } from './main.js'

await run()

// The run is over once run() resolves: the report is written (outputs with synchronous file
// writes, the job summary awaited). Ending the process then, rather than when nothing keeps
// its event loop busy, is a backstop: a socket a library left open (a proxy that never
// answers) must not hold the step until its time limit. Only stdout and stderr are waited for:
// to a pipe, as the runner reads them, Node writes asynchronously on POSIX (a write is queued
// while the reader is behind). process.exit() keeps process.exitCode (1 once the step failed).
await Promise.all([process.stdout, process.stderr].map(stream => new Promise(resolve => stream.write('', resolve))))
process.exit()
