export const id = 584;
export const ids = [584];
export const modules = {

/***/ 4584:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   readRepository: () => (/* binding */ readRepository),
/* harmony export */   readRepositoryFile: () => (/* binding */ readRepositoryFile)
/* harmony export */ });
/* unused harmony export GITHUB_POLICY */
/* harmony import */ var _actions_github__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(2413);
/* harmony import */ var _errors_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(3916);
/* harmony import */ var _http_transport_js__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(1517);
/* harmony import */ var _http_client_js__WEBPACK_IMPORTED_MODULE_3__ = __webpack_require__(3329);
/* harmony import */ var _text_js__WEBPACK_IMPORTED_MODULE_4__ = __webpack_require__(8992);





/**
 * How GitHub's API is read: 429s and 5xx retried (after their Retry-After), answers kept up to
 * their size.
 */
const GITHUB_POLICY = {
    ..._http_client_js__WEBPACK_IMPORTED_MODULE_3__/* .READ_DEFAULTS */ .qW,
    name: "GitHub's API",
    attempts: 3,
    retryStatuses: [429, ..._http_client_js__WEBPACK_IMPORTED_MODULE_3__/* .SERVER_ERRORS */ .Qx],
    maxBodyBytes: 5 * 1024 * 1024 + 1
};
/**
 * One file's bytes at a commit, through GitHub's contents API (raw, so files over 1 MB come whole)
 * at the run's GITHUB_API_URL. Octokit sends through the action's request helper, under the policy,
 * deadline and proxy settings of every other request.
 */
async function readRepositoryFile(file, requests) {
    const [owner, repo] = file.repository.split('/');
    const octokit = octokitFor(file, requests, GITHUB_POLICY, { parseSuccessResponseBody: false });
    try {
        const response = await octokit.request('GET /repos/{owner}/{repo}/contents/{path}', {
            owner: owner ?? '',
            repo: repo ?? '',
            path: file.path,
            ref: file.ref,
            headers: { accept: 'application/vnd.github.raw+json' }
        });
        // A directory is listed as JSON whatever was asked for; a file comes raw.
        if (/^application\/json\b/i.test(response.headers['content-type'] ?? ''))
            throw new Error('the path is not a file');
        return Buffer.from(await new Response(response.data).arrayBuffer());
    }
    catch (error) {
        throw apiFailure(error);
    }
}
/**
 * The repository's own record (`GET /repos/{owner}/{repo}`: its visibility, its last push), under
 * the caller's policy. Fails as readRepositoryFile does.
 */
async function readRepository(access, requests, policy) {
    const [owner, repo] = access.repository.split('/');
    const octokit = octokitFor(access, requests, policy, {});
    try {
        const response = await octokit.request('GET /repos/{owner}/{repo}', {
            owner: owner ?? '',
            repo: repo ?? ''
        });
        return response.data;
    }
    catch (error) {
        throw apiFailure(error);
    }
}
/**
 * Octokit, sending through the action's request helper. Its request prints a deprecation notice
 * quoting GitHub's headers raw (the runner would read a command in it) with `request.log`, else
 * console.warn; `log` is for Octokit's plugins. Both silent.
 */
function octokitFor(access, requests, policy, options) {
    const request = { fetch: policyFetch(requests, policy), log: SILENT, ...options };
    return (0,_actions_github__WEBPACK_IMPORTED_MODULE_0__/* .getOctokit */ .Q)(access.token, { baseUrl: access.apiUrl, log: SILENT, request });
}
/**
 * What a failed read of GitHub's API throws. A stop or the step's deadline, met inside Octokit's
 * fetch, comes back wrapped: the run's own end, thrown as it is. Otherwise an Error whose message
 * holds only the status and GitHub's words (Octokit's errors carry the request), with `network`
 * set when GitHub's API could not be reached at all: network advice, not repository advice; and
 * `redirect` when it answered with one, which no permission fixes.
 */
function apiFailure(error) {
    const cause = error.cause;
    if (cause instanceof _errors_js__WEBPACK_IMPORTED_MODULE_1__/* .ActionError */ .lZ)
        return cause;
    if (cause instanceof _http_transport_js__WEBPACK_IMPORTED_MODULE_2__/* .NetworkError */ .Dr)
        return Object.assign(new Error(cause.message), { network: true });
    if (cause?.redirect === true)
        return cause;
    const status = error.status;
    const raw = error instanceof Error ? (error.message.split(' - ')[0] ?? '') : String(error);
    const message = /^\s*</.test(raw) ? 'an HTML error page' : (0,_text_js__WEBPACK_IMPORTED_MODULE_4__/* .excerpt */ .Kb)(raw);
    return new Error(typeof status === 'number' && status !== 500 ? `${status}: ${message}` : message);
}
const quiet = () => { };
const SILENT = { debug: quiet, info: quiet, warn: quiet, error: quiet };
/** The address a `fetch` call names, in any of the forms it accepts. */
function urlOf(input) {
    if (typeof input === 'string')
        return input;
    if (input instanceof URL)
        return input.href;
    return input.url;
}
/** A `fetch` for Octokit's GETs (no body) that sends through the request helper. */
function policyFetch(requests, policy) {
    return async (input, init) => {
        const url = urlOf(input);
        const sent = Object.fromEntries(new Headers(init?.headers).entries());
        const answer = await requests.send({ method: 'GET', url, headers: sent }, policy);
        // Octokit takes any status below 400 for the file: a redirect's body would be read as it.
        if (answer.status >= 300 && answer.status < 400) {
            const redirect = new Error(`${answer.status}, a redirect, which is not followed`);
            throw Object.assign(redirect, { redirect: true });
        }
        if (answer.truncated)
            throw new Error(`the answer is larger than ${policy.maxBodyBytes - 1} bytes`);
        const headers = new Headers();
        for (const [name, value] of Object.entries(answer.headers)) {
            if (value !== undefined)
                headers.set(name, Array.isArray(value) ? value.join(', ') : value);
        }
        const empty = answer.status === 204;
        return new Response(empty ? null : (answer.bytes ?? answer.text), {
            status: answer.status,
            headers
        });
    };
}


/***/ })

};
