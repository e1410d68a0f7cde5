// The reference: a one-file Node script doing the action's stats update (one PATCH, from the
// same INPUT_* variables) with the global fetch. Run by `npm run bench`.
const env = process.env
const response = await fetch(`${env['INPUT_BASE-URL']}/bots/${env['INPUT_BOT-ID']}/stats`, {
  method: 'PATCH',
  headers: { Authorization: env['INPUT_API-KEY'], 'Content-Type': 'application/json' },
  body: JSON.stringify({
    command_count: Number(env['INPUT_COMMAND-COUNT']),
    server_count: Number(env['INPUT_SERVER-COUNT'])
  })
})
console.log(`${response.status} ${await response.text()}`)
if (!response.ok) process.exitCode = 1
