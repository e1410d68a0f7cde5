// Stand-in for undici, bundled instead of it (package.json "overrides").
//
// @actions/http-client and @actions/github import undici for one purpose: a fetch
// dispatcher through HTTPS_PROXY. This action never uses it: its requests go through
// node:http/node:https with @actions/http-client's tunnelling agent (src/http.ts), and
// Octokit is given the action's own fetch (src/counts/github.ts). Bundling the real undici
// would add about 350 KB and 35 ms to every run's start for code that never runs, so this
// module keeps the two names those packages import, inert. If a future version of either
// package used them, the action's proxy tests would fail.
export class ProxyAgent {
  constructor(options) {
    this.options = options
  }
}

export async function fetch() {
  throw new Error('undici is not bundled with this action; requests go through its own HTTP helper')
}
