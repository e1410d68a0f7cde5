// The floor: the same PATCH as fetch-reference.mjs with node:http, nothing else loaded.
// Not `import { request } from 'node:http'`: on Node 24 an ESM import of node:http builds
// the module's whole namespace, whose lazy getters (WebSocket and the like) load undici,
// about 40 ms; a floor is what a node:http script can do, so the module is taken as
// CommonJS has it.
const { request } = process.getBuiltinModule('node:http')

const env = process.env
const body = JSON.stringify({ command_count: Number(env['INPUT_COMMAND-COUNT']), server_count: Number(env['INPUT_SERVER-COUNT']) })
const req = request(`${env['INPUT_BASE-URL']}/bots/${env['INPUT_BOT-ID']}/stats`, {
  method: 'PATCH',
  headers: { Authorization: env['INPUT_API-KEY'], 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) }
})
req.on('response', response => {
  let text = ''
  response.setEncoding('utf8').on('data', chunk => (text += chunk))
  response.on('end', () => {
    console.log(`${response.statusCode} ${text}`)
    if (response.statusCode !== 200) process.exitCode = 1
  })
})
req.on('error', error => {
  console.error(error)
  process.exitCode = 1
})
req.end(body)
