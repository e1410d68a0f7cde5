import { createRequire as __WEBPACK_EXTERNAL_createRequire } from "module";
/******/ var __webpack_modules__ = ({

/***/ 3916:
/***/ ((__unused_webpack_module, __webpack_exports__, __nccwpck_require__) => {

/* harmony export */ __nccwpck_require__.d(__webpack_exports__, {
/* harmony export */   Ko: () => (/* binding */ StoppedError),
/* harmony export */   dz: () => (/* binding */ InputError),
/* harmony export */   lZ: () => (/* binding */ ActionError)
/* harmony export */ });
/**
 * An expected failure: its message is written for the person reading the workflow log (what went
 * wrong and what to do), so the action prints it as one `::error::` line and never a stack trace.
 */
class ActionError extends Error {
    /**
     * Why the run failed, in a few words, for the summary's headline ("API key refused"); a caller
     * may add it.
     */
    headline;
    /** The bot the run was for, once its ID was read: the headline names it. */
    botId;
    constructor(message, options = {}) {
        super(message, options);
        this.name = 'ActionError';
        this.headline = options.headline;
    }
}
/** A refused input value: the message always names the input, the problem and the fix. */
class InputError extends ActionError {
    constructor(input, problem, fix) {
        super(`Input '${input}' ${problem}. ${fix}`, { headline: `bad input '${input}'` });
        this.name = 'InputError';
    }
}
/**
 * The step was stopped (SIGINT or SIGTERM: a cancelled workflow or a runner's time limit). The
 * abort reason of the run's one AbortSignal: every request and wait ends with it, and nothing new
 * is sent after it.
 */
class StoppedError extends ActionError {
    signal;
    inFlight;
    answeredStatus;
    constructor(signal, 
    /** The stop cut off a request already sent: the server may have received it. */
    inFlight = false, 
    /**
     * The status line of the answer the stop cut off, when it had arrived: the server did answer.
     */
    answeredStatus) {
        super(`The step was stopped by ${signal} (a cancelled workflow or a time limit).`, {
            headline: `stopped by ${signal}`
        });
        this.signal = signal;
        this.inFlight = inFlight;
        this.answeredStatus = answeredStatus;
        this.name = 'StoppedError';
    }
}


/***/ }),

/***/ 3329:
/***/ ((__unused_webpack_module, __webpack_exports__, __nccwpck_require__) => {

/* harmony export */ __nccwpck_require__.d(__webpack_exports__, {
/* harmony export */   Qx: () => (/* binding */ SERVER_ERRORS),
/* harmony export */   dQ: () => (/* binding */ realClock),
/* harmony export */   iD: () => (/* binding */ MIN_ATTEMPT_MS),
/* harmony export */   j3: () => (/* binding */ DeadlineError),
/* harmony export */   lv: () => (/* binding */ Requests),
/* harmony export */   qW: () => (/* binding */ READ_DEFAULTS)
/* harmony export */ });
/* harmony import */ var _errors_js__WEBPACK_IMPORTED_MODULE_0__ = __nccwpck_require__(3916);
/* harmony import */ var _transport_js__WEBPACK_IMPORTED_MODULE_1__ = __nccwpck_require__(1517);


/**
 * The least time the stats update is sent with. Each attempt gets `request-timeout`, cut to what is
 * left of the step's `timeout`, so a short `timeout` (at or below `request-timeout`) still sends
 * the update with whatever the record read left of it. Under a second, though, no real request (a
 * TCP and a TLS handshake, then the exchange, over the internet) can finish: one sent then would
 * almost surely be cut off after the service may have read it, an outcome no one can know, for an
 * update the service allows once per 6 hours. So below this it is not sent at all.
 */
const MIN_ATTEMPT_MS = 1_000;
/**
 * The defaults every policy builds on: reads retry any network failure, back off from half a second
 * doubling to five, honour a Retry-After of up to a minute, and keep 64 KB of an answer. Each
 * caller owns its policy, next to the request it sends: this client knows no caller by name.
 */
const READ_DEFAULTS = {
    retryNetwork: 'any',
    baseDelayMs: 500,
    maxDelayMs: 5_000,
    maxRetryAfterMs: 60_000,
    maxBodyBytes: 64 * 1024
};
/** The statuses a read retries: the service's and the APIs' passing failures. */
const SERVER_ERRORS = [500, 502, 503, 504];
const realClock = {
    now: Date.now,
    sleep: (ms, signal) => new Promise(resolve => {
        if (signal?.aborted)
            return resolve();
        // The timer is cleared on abort: a pending one would keep the step's process alive.
        const done = () => {
            clearTimeout(timer);
            signal?.removeEventListener('abort', done);
            resolve();
        };
        const timer = setTimeout(done, ms);
        signal?.addEventListener('abort', done, { once: true });
    }),
    random: Math.random
};
/** 429s one gated request takes before it gives up. */
const GATED_429_LIMIT = 10;
/** The step ran out of its time; an expected failure with the input to change. */
class DeadlineError extends _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .ActionError */ .lZ {
}
/**
 * Every request goes through here, under the step's deadline and the run's stop signal. Once the
 * signal fires (SIGINT/SIGTERM), the request in flight is cut off, a wait ends, and nothing new is
 * sent: each ends with its StoppedError.
 */
class Requests {
    limits;
    clock;
    signal;
    deadlineAt;
    constructor(limits, clock = realClock, signal = new AbortController().signal) {
        this.limits = limits;
        this.clock = clock;
        this.signal = signal;
        this.deadlineAt = clock.now() + limits.totalMs;
    }
    /**
     * Throws the stop once the run was stopped; `inFlight` when it cut off a request sent, with its
     * answer's status if it came.
     */
    throwIfStopped(inFlight = false, answeredStatus) {
        if (!this.signal.aborted)
            return;
        const reason = this.signal.reason;
        throw new _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .StoppedError */ .Ko(reason instanceof _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .StoppedError */ .Ko ? reason.signal : String(reason), inFlight, answeredStatus);
    }
    /**
     * Sends a request under its policy. Returns the last answer (maybe a failure for the caller to
     * explain), or throws the last NetworkError or the StoppedError. `refuse` ends the retries of an
     * answer; a `gate` admits each attempt and waits out 429s.
     */
    async send(request, policy, { refuse, gate } = {}) {
        let limited = 0;
        for (let failures = 0;;) {
            this.throwIfStopped();
            const ticket = await gate?.acquire();
            this.throwIfStopped();
            let answer;
            try {
                answer = await (0,_transport_js__WEBPACK_IMPORTED_MODULE_1__/* .send */ .tN)({
                    ...request,
                    timeoutMs: this.attemptTimeout(policy),
                    maxBodyBytes: policy.maxBodyBytes,
                    signal: this.signal
                });
            }
            catch (error) {
                gate?.release(ticket, undefined);
                // Cut off by a stop: in flight when it may have reached the server, answered when its
                // status line came.
                const network = error instanceof _transport_js__WEBPACK_IMPORTED_MODULE_1__/* .NetworkError */ .Dr ? error : undefined;
                this.throwIfStopped(network?.delivered ?? true, network?.answered?.status);
                if (network === undefined)
                    throw error;
                // A read may go again after any network failure; a request that must not arrive twice
                // (the stats update) only when it cannot have reached the server.
                const retry = policy.retryNetwork === 'any' || !network.delivered;
                if (!retry || ++failures >= policy.attempts)
                    throw error;
                await this.sleep(this.backoff(failures, policy), policy);
                continue;
            }
            gate?.release(ticket, answer);
            if (!policy.retryStatuses.includes(answer.status))
                return answer;
            const refused = refuse?.(answer);
            if (refused !== undefined)
                throw refused;
            // A gate waits out each 429 itself; a run of them still ends, with the answer.
            if (answer.status === 429 && gate && ++limited < GATED_429_LIMIT)
                continue;
            if (answer.status === 429 && gate)
                return answer;
            if (++failures >= policy.attempts)
                return answer;
            const asked = (0,_transport_js__WEBPACK_IMPORTED_MODULE_1__/* .retryAfterMs */ .Vs)(answer);
            if (asked !== undefined && asked > policy.maxRetryAfterMs)
                return answer;
            await this.sleep(asked ?? this.backoff(failures, policy), policy);
        }
    }
    /**
     * For the run's own work between requests: throws the stop, or the deadline's error once no time
     * is left for `what`.
     */
    throwIfOver(what) {
        this.throwIfStopped();
        if (this.remainingMs() <= 0)
            throw this.deadlineError(undefined, what);
    }
    /**
     * Waits, unless the wait would end past the step's deadline; the stop signal ends it with
     * StoppedError.
     */
    async sleep(ms, policy) {
        this.throwIfStopped();
        if (this.clock.now() + ms > this.deadlineAt)
            throw this.deadlineError(policy, `a wait of ${Math.ceil(ms / 1000)} s`);
        await this.clock.sleep(ms, this.signal);
        this.throwIfStopped();
    }
    /** Time left before the step's deadline. */
    remainingMs() {
        return this.deadlineAt - this.clock.now();
    }
    /**
     * One attempt's time: `request-timeout`, cut to what is left of `timeout`. It is refused when no
     * time is left, or less than the policy's least (MIN_ATTEMPT_MS for the stats update).
     */
    attemptTimeout(policy) {
        const left = this.remainingMs();
        const least = policy.minAttemptMs ?? 0;
        if (left <= 0 || left < least) {
            throw this.deadlineError(policy, least > 0 ? `an attempt of at least ${least / 1000} s` : 'another attempt');
        }
        return Math.min(this.limits.attemptTimeoutMs, left);
    }
    backoff(failures, policy) {
        const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (failures - 1));
        return Math.round(ceiling / 2 + (this.clock.random() * ceiling) / 2);
    }
    deadlineError(policy, what) {
        const during = policy === undefined ? '' : ` during ${policy.name}`;
        return new DeadlineError(`The step's time limit of ${Math.round(this.limits.totalMs / 1000)} s (input 'timeout') leaves no room for ${what}${during}. ` +
            'Raise timeout, or look at the network and the service.', { headline: 'out of time (timeout)' });
    }
}


/***/ }),

/***/ 1517:
/***/ ((__unused_webpack_module, __webpack_exports__, __nccwpck_require__) => {

/* harmony export */ __nccwpck_require__.d(__webpack_exports__, {
/* harmony export */   Dr: () => (/* binding */ NetworkError),
/* harmony export */   Vs: () => (/* binding */ retryAfterMs),
/* harmony export */   tN: () => (/* binding */ send)
/* harmony export */ });
/* harmony import */ var node_http__WEBPACK_IMPORTED_MODULE_0__ = __nccwpck_require__(7067);
/* harmony import */ var node_http__WEBPACK_IMPORTED_MODULE_0___default = /*#__PURE__*/__nccwpck_require__.n(node_http__WEBPACK_IMPORTED_MODULE_0__);

/**
 * The request failed without an answer. `delivered` tells whether the request may have reached the
 * server: it is false only when the connection itself could not be made, and that is what decides
 * whether a PATCH, which is not idempotent, may be sent again.
 */
class NetworkError extends Error {
    code;
    delivered;
    answered;
    constructor(message, code, delivered, 
    /**
     * The final status line (and its headers, when they could be parsed) that arrived before the
     * failure: the server received the request and answered, and only the rest was lost. An interim
     * 1xx answer is not one, because after it the server's decision is still unknown.
     */
    answered) {
        super(message);
        this.code = code;
        this.delivered = delivered;
        this.answered = answered;
        this.name = 'NetworkError';
    }
}
const DEFAULT_MAX_BODY = 64 * 1024;
/** Errors raised before any byte of the request could reach the server. */
const CONNECT_ERRORS = new Set([
    'ECONNREFUSED',
    'ENOTFOUND',
    'EAI_AGAIN',
    'CERT_HAS_EXPIRED',
    'DEPTH_ZERO_SELF_SIGNED_CERT',
    'SELF_SIGNED_CERT_IN_CHAIN',
    'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    'ERR_TLS_CERT_ALTNAME_INVALID'
]);
const directAgents = {};
/**
 * The module and agent for a URL, loaded on first use: node:https (with TLS, a fifth of a run's
 * start) only for https, and @actions/http-client only when a proxy variable is set. Direct agents
 * keep connections alive, which spares a TCP and a TLS handshake per request; an idle kept-alive
 * socket does not hold the process, because Node's agent unrefs it. Through HTTPS_PROXY or
 * HTTP_PROXY the client is made without keep-alive, so it makes a tunnel agent (the `tunnel`
 * package) for each request, and each request has its own tunnel. Hosts that NO_PROXY names and
 * loopback go direct, as self-hosted runners behind a proxy need.
 */
async function route(url) {
    const secure = url.protocol === 'https:';
    const transport = (secure ? process.getBuiltinModule('node:https') : node_http__WEBPACK_IMPORTED_MODULE_0__);
    const direct = () => (directAgents[url.protocol] ??= new transport.Agent({ keepAlive: true }));
    const proxyVariable = secure ? ['https_proxy', 'HTTPS_PROXY'] : ['http_proxy', 'HTTP_PROXY'];
    if (!proxyVariable.some(name => process.env[name]))
        return { transport, agent: direct(), tunnels: [] };
    const { getProxyUrl, HttpClient } = await Promise.all(/* import() */[__nccwpck_require__.e(119), __nccwpck_require__.e(942)]).then(__nccwpck_require__.bind(__nccwpck_require__, 4942));
    if (getProxyUrl(url.href) === '')
        return { transport, agent: direct(), tunnels: [] };
    const agent = new HttpClient().getAgent(url.href);
    return {
        transport,
        agent,
        tunnels: trackTunnels(agent)
    };
}
/**
 * The CONNECT requests a tunnel agent makes, kept so that a failed exchange can end them.
 *
 * The `tunnel` package's agent opens a tunnel with a CONNECT request of its own, made with the
 * `request` function it keeps on the agent (`TunnelingAgent.prototype.createSocket`), and gives the
 * client request no socket until the proxy has answered that CONNECT. So destroying the client
 * request does not end a CONNECT the proxy never answers: its socket stays open and keeps the
 * process alive past the step's deadline and past a stop signal, until the proxy closes it, minutes
 * or hours later. The agent's `request` is therefore wrapped to keep each CONNECT request it makes,
 * and the exchange destroys them all when it fails (an error, its deadline, a stop).
 *
 * Destroying a CONNECT whose tunnel did open is safe: Node marks a CONNECT request destroyed once
 * it hands its socket over, so the call does nothing, and the client request, which now holds that
 * socket, destroys it itself. The agent is this request's own (see route), so no other request's
 * tunnel is touched.
 */
function trackTunnels(agent) {
    const made = [];
    const request = agent.request;
    agent.request = function (...args) {
        const connect = request.apply(this, args);
        made.push(connect);
        return connect;
    };
    return made;
}
/** Sends one request and reads its answer, bounded in time and size. */
async function send(request) {
    const url = new URL(request.url);
    const { transport, agent, tunnels } = await route(url);
    const body = request.body === undefined ? undefined : Buffer.from(request.body, 'utf8');
    const headers = { ...request.headers };
    if (body !== undefined)
        headers['Content-Length'] = body.length;
    const maxBody = request.maxBodyBytes ?? DEFAULT_MAX_BODY;
    return new Promise((resolve, reject) => {
        let connected = false;
        let settled = false;
        let answered;
        /** Ends the exchange once: false when it had ended already. */
        const settle = () => {
            if (settled)
                return false;
            settled = true;
            clearTimeout(timer);
            request.signal?.removeEventListener('abort', abort);
            return true;
        };
        const fail = (error) => {
            if (!settle())
                return;
            // A tunnel still being opened ends with the exchange (see trackTunnels).
            for (const connect of tunnels)
                connect.destroy();
            const failure = toNetworkError(error, url.host, connected, request.timeoutMs);
            reject(answered === undefined
                ? failure
                : new NetworkError(failure.message, failure.code, true, answered));
        };
        const req = transport.request(url, { method: request.method, headers, agent }, res => {
            answered = { status: res.statusCode ?? 0, headers: res.headers };
            const chunks = [];
            let kept = 0;
            let truncated = false;
            const finish = () => {
                if (!settle())
                    return;
                const bytes = Buffer.concat(chunks);
                const text = bytes.toString('utf8');
                resolve({
                    status: res.statusCode ?? 0,
                    headers: res.headers,
                    text,
                    bytes,
                    truncated,
                    json: parseJson(text, truncated)
                });
            };
            res.on('data', (chunk) => {
                chunks.push(chunk.subarray(0, maxBody - kept));
                kept += chunk.length;
                if (kept <= maxBody)
                    return;
                truncated = true;
                finish();
                res.destroy();
            });
            res.on('end', finish);
            res.on('error', fail);
            res.on('aborted', () => fail(Object.assign(new Error('connection closed mid-answer'), { code: 'ECONNRESET' })));
        });
        const cut = (code) => {
            fail(Object.assign(new Error(code), { code }));
            req.destroy();
        };
        const timer = setTimeout(() => cut('ETIMEDOUT'), request.timeoutMs);
        const abort = () => cut('ABORT_ERR');
        if (request.signal?.aborted)
            abort();
        else
            request.signal?.addEventListener('abort', abort);
        // Connected: from then on the request may reach the server, so a failure no longer proves that
        // it was not sent. This is the rule that decides whether a PATCH may go again: one that failed
        // unconnected may be resent; one that failed connected only when a fresh read of the public
        // record shows that it did not arrive (stats/delivery.ts).
        req.on('socket', socket => {
            // A reused connection counts from the start: the server may close it while the request is
            // under way, and the failure that follows may come after the server read the request.
            if (req.reusedSocket)
                connected = true;
            // A fresh https connection counts only once its TLS handshake is done, whatever its TCP
            // state: through a proxy, the tunnel agent hands over a TLS socket wrapped around the
            // tunnel's socket, which is not `connecting` although its handshake has not begun.
            else if (url.protocol === 'https:')
                socket.once('secureConnect', () => (connected = true));
            // A fresh http connection counts once it connects.
            else if (socket.connecting)
                socket.once('connect', () => (connected = true));
            // One that is not connecting is a proxy's open tunnel, through which the request goes at
            // once. (Through a proxy the request gets no socket until the tunnel is open, so a CONNECT
            // that never completes leaves the request unconnected: nothing was sent.)
            else
                connected = true;
            // The final status line, read from the bytes as they arrive: when the headers after it
            // overflow Node's parser, the request fails without a response object, yet the server did
            // answer, and the failure must say so (a PATCH that was answered is never sent again).
            const sniff = statusSniffer(status => {
                socket.off('data', sniff);
                answered ??= { status, headers: {} };
            });
            // First in line: the client's own parser fails the request on the same chunk.
            socket.prependListener('data', sniff);
            req.once('close', () => socket.off('data', sniff));
        });
        req.on('error', fail);
        req.end(body);
    });
}
/** Enough of a line to read `HTTP/1.1 200`. */
const STATUS_LINE_START = 16;
/**
 * Reads the status lines of an answer from its bytes as they arrive, and calls `final` with the
 * first final one (200 and up). An interim answer (`100 Continue`, `103 Early Hints`) is not the
 * answer: the request may still fail before the final one, and then the server's decision is
 * unknown. Interim answers, their headers and the final status line may come in one chunk or be cut
 * anywhere across several, so the start of every line is read, whatever the chunks.
 */
function statusSniffer(final) {
    /** The start of the current line, up to STATUS_LINE_START characters, carried across chunks. */
    let line = '';
    return chunk => {
        // Each piece but the last ends a line; the last continues into the next chunk.
        const pieces = chunk.toString('latin1').split('\n');
        for (const [i, piece] of pieces.entries()) {
            line = (line + piece).slice(0, STATUS_LINE_START);
            const ended = i < pieces.length - 1;
            // A line is read once it has ended or is long enough to hold a status; a shorter start may
            // still be completed by the next chunk.
            const status = ended || line.length === STATUS_LINE_START
                ? Number(/^HTTP\/\d(?:\.\d)? (\d{3})/.exec(line)?.[1])
                : NaN;
            if (status >= 200)
                return final(status);
            if (ended)
                line = '';
        }
    };
}
function parseJson(text, truncated) {
    if (truncated || !/^\s*[[{]/.test(text))
        return undefined;
    try {
        return JSON.parse(text);
    }
    catch {
        return undefined;
    }
}
/**
 * A short message of our own for a failed exchange. Library errors are not passed on as they are:
 * some quote the request's options, and an option may hold a secret.
 */
function toNetworkError(error, where, connected, timeoutMs) {
    const given = error?.code;
    const code = given === undefined ? undefined : String(given);
    // The proxy agent's own words when the proxy refuses the tunnel (its CONNECT answer was not 200):
    // the request never reached the service. Only the status is taken from them.
    const refused = /tunneling socket could not be established, statusCode=(\d{3})/.exec(error instanceof Error ? error.message : '');
    if (refused) {
        const advice = refused[1] === '407'
            ? 'it asks for proxy authentication (407 Proxy Authentication Required): check the user name and password in HTTPS_PROXY or HTTP_PROXY (http://user:password@host:port)'
            : `it answered ${refused[1]}: check the proxy's rules for ${where}, or set NO_PROXY for it`;
        return new NetworkError(`the proxy did not open a connection to ${where}; ${advice}`, code, false);
    }
    if (code === 'ETIMEDOUT') {
        // An attempt cut to the step's time left has an odd length (2994 ms): said to a tenth of a
        // second.
        return new NetworkError(`no complete answer from ${where} within ${Math.round(timeoutMs / 100) / 10} s`, code, connected);
    }
    if (CONNECT_ERRORS.has(code)) {
        return new NetworkError(`could not connect to ${where}: ${connectFailure(code)}`, code, false);
    }
    if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH')
        return new NetworkError(`could not reach ${where} (${code})`, code, connected);
    return new NetworkError(`the connection to ${where} failed (${code ?? 'unknown error'})`, code, connected);
}
/** Why a connection could not be made, from one of CONNECT_ERRORS. */
function connectFailure(code) {
    if (code === 'ECONNREFUSED')
        return 'the connection was refused';
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
        return 'the host name could not be resolved';
    return `its TLS certificate was not accepted (${code})`;
}
/**
 * The wait an answer asks for: `retry_after` in the body, else `Retry-After`, else (unless
 * `limiterReset: false`) `RateLimit-Reset` when the limiter is spent (a 429, or
 * `RateLimit-Remaining: 0`). On any other answer `RateLimit-Reset` only describes the limiter's
 * window, not a wait: a 5xx carrying it is retried after a backoff, not held back for the window.
 */
function retryAfterMs(answer, options = {}) {
    const body = answer.json;
    const spent = options.limiterReset !== false &&
        (answer.status === 429 || String(answer.headers['ratelimit-remaining'] ?? '').trim() === '0');
    const seconds = [
        body?.retry_after,
        answer.headers['retry-after'],
        spent ? answer.headers['ratelimit-reset'] : undefined
    ]
        .map(value => typeof value === 'string' && /^\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : value)
        .find((value) => typeof value === 'number' && Number.isFinite(value) && value >= 0);
    // A day at most: past that the figure is broken, and no wait of the action's is that long.
    return seconds === undefined ? undefined : Math.min(Math.ceil(seconds * 1000), 86_400_000);
}


/***/ }),

/***/ 9407:
/***/ ((module, __unused_webpack___webpack_exports__, __nccwpck_require__) => {

__nccwpck_require__.a(module, async (__webpack_handle_async_dependencies__, __webpack_async_result__) => { try {
/* harmony import */ var _main_js__WEBPACK_IMPORTED_MODULE_0__ = __nccwpck_require__(7645);

await (0,_main_js__WEBPACK_IMPORTED_MODULE_0__/* .run */ .e)();
// The run is over once run() resolves (outputs written synchronously, the summary awaited). Ending
// the process then is a backstop: a socket a library left open (a proxy that never answers) must
// not hold the step until its time limit. Only stdout and stderr are waited for: to a pipe, Node
// writes asynchronously on POSIX. process.exit() keeps process.exitCode.
await Promise.all([process.stdout, process.stderr].map(stream => new Promise(resolve => stream.write('', resolve))));
process.exit();

__webpack_async_result__();
} catch(e) { __webpack_async_result__(e); } }, 1);

/***/ }),

/***/ 7847:
/***/ ((__unused_webpack_module, __webpack_exports__, __nccwpck_require__) => {

/* harmony export */ __nccwpck_require__.d(__webpack_exports__, {
/* harmony export */   $K: () => (/* binding */ keyAnswerOf),
/* harmony export */   KM: () => (/* binding */ KEY_ANSWERS),
/* harmony export */   Ku: () => (/* binding */ keyHeadline),
/* harmony export */   YH: () => (/* binding */ keyAdvice),
/* harmony export */   yR: () => (/* binding */ checkKey)
/* harmony export */ });
/* unused harmony export KEY_CHECK_POLICY */
/* harmony import */ var _errors_js__WEBPACK_IMPORTED_MODULE_0__ = __nccwpck_require__(3916);
/* harmony import */ var _http_client_js__WEBPACK_IMPORTED_MODULE_1__ = __nccwpck_require__(3329);
/* harmony import */ var _http_transport_js__WEBPACK_IMPORTED_MODULE_2__ = __nccwpck_require__(1517);
/* harmony import */ var _service_js__WEBPACK_IMPORTED_MODULE_3__ = __nccwpck_require__(448);




/**
 * The key and the bot, in both modes: what an answer about them means, and the key check that
 * spends no update.
 */
/**
 * The live service's text at the fifth strike: `Your API key has been revoked due to spamming the
 * stats API. ...`
 */
const FIFTH_STRIKE = /revoked due to spamming/i;
/**
 * Whether a 410's text is the service's answer to the fifth strike: the update that revoked the
 * key.
 */
const isFifthStrike = (serviceText) => serviceText !== undefined && FIFTH_STRIKE.test(serviceText);
const revoked = (when, botId) => `${when} Generate a new key on the bot's manage page on discord.place (if not done yet) and store it in the secret passed as api-key (DISCORD_PLACE_API_KEY in the quick start). ` +
    'Then keep updates 6 hours apart: keep cooldown-check: true, schedule runs every 8 hours, and put every stats job ' +
    `for this bot in one concurrency group (discord-place-stats-${botId}).`;
/**
 * The answers about the key or the bot, in both modes: the headline's words and what to do.
 *
 * The service's route code revokes a key only at the fifth update refused as early within 6
 * hours: it answers that update "Your API key has been revoked due to spamming…", and every
 * later use of the key, on this run or a later one, "This API key has been revoked.", even once
 * the owner has generated a new key the secret does not hold yet. So a 410 always means
 * strikes, whatever its text. A key the owner regenerated or deleted on the manage page is not
 * revoked: it is answered 401, like a mistyped key or another bot's key.
 */
const KEY_ANSWERS = {
    401: {
        headline: 'API key refused',
        advice: () => "The API key was refused: the secret passed as api-key (DISCORD_PLACE_API_KEY in the quick start) does not hold this bot's current key. It may be mistyped, regenerated or " +
            "deleted on the bot's manage page since (the old key then stops working), or another bot's key (each bot has its own). " +
            "Copy the current key from this bot's manage page on discord.place into the secret."
    },
    404: {
        headline: 'bot not listed on discord.place',
        advice: (f) => `The service lists no bot with ID ${f.botId}. Check bot-id, and that the bot is listed on discord.place.`
    },
    '410-fifth': {
        headline: 'API key revoked (strikes)',
        advice: (f) => revoked('This update was the fifth refused as early within 6 hours (strikes), so the service revoked the key.', f.botId)
    },
    410: {
        headline: 'API key revoked (strikes)',
        advice: (f) => revoked('The service revoked the key after five updates were refused as early within 6 hours (strikes), on this run or an ' +
            'earlier one; a revoked key stays revoked.', f.botId)
    }
};
/** Which answer about the key or the bot a status is (401, 404, 410), else undefined. */
function keyAnswerOf(status, serviceText) {
    if (status === 410 && isFifthStrike(serviceText))
        return '410-fifth';
    return status === 401 || status === 404 || status === 410 ? status : undefined;
}
/** What to do after an answer about the key or the bot, or undefined for any other status. */
function keyAdvice(status, serviceText, botId) {
    const answer = keyAnswerOf(status, serviceText);
    return answer === undefined ? undefined : KEY_ANSWERS[answer].advice({ botId });
}
/**
 * The headline's few words for an answer about the key or the bot (401, 404, 410), else undefined.
 */
function keyHeadline(status) {
    const answer = keyAnswerOf(status, undefined);
    return answer === undefined ? undefined : KEY_ANSWERS[answer].headline;
}
/**
 * The key check of a run that sends nothing: a second try after a 5xx or a lost connection,
 * never a wait for the vote limiter (its Retry-After runs to 300 s): the run then goes on
 * with the key unchecked.
 */
const KEY_CHECK_POLICY = {
    ..._http_client_js__WEBPACK_IMPORTED_MODULE_1__/* .READ_DEFAULTS */ .qW,
    name: 'the API key check',
    attempts: 2,
    retryStatuses: _http_client_js__WEBPACK_IMPORTED_MODULE_1__/* .SERVER_ERRORS */ .Qx,
    maxRetryAfterMs: 5_000
};
/**
 * Checks the API key with a request that spends no update: the authenticated vote route, asked
 * about the bot itself (`GET /bots/{id}/voters/{id}`), answers its JSON (or 204) for a good key
 * and 401 or 410 for a bad one, and no strike is ever at stake. Runs that send nothing (a skip,
 * a dry run) use it, so a wrong, replaced or revoked key fails the step now, not at the next
 * update hours later. Only the service's own answer passes the key: any other 200 (a captive
 * portal's or a proxy's page) leaves it unchecked, as does an answer that says nothing about the
 * key (the vote limiter, a 5xx, no connection); that is no reason to fail a run that had nothing
 * to send, and the caller warns that the key was not checked.
 */
async function checkKey(plan, deps) {
    deps.log(`Checking the API key (GET ${plan.baseUrl}/bots/${plan.botId}/voters/${plan.botId}, which spends no update).`);
    let answer;
    try {
        answer = await deps.requests.send({
            method: 'GET',
            url: `${plan.baseUrl}/bots/${plan.botId}/voters/${plan.botId}`,
            headers: (0,_service_js__WEBPACK_IMPORTED_MODULE_3__/* .keyedHeaders */ .hk)(plan.apiKey)
        }, KEY_CHECK_POLICY);
    }
    catch (error) {
        if (!(error instanceof _http_transport_js__WEBPACK_IMPORTED_MODULE_2__/* .NetworkError */ .Dr))
            throw error;
        return { state: 'unchecked', reason: error.message };
    }
    if (answer.status === 204 || (answer.status === 200 && (0,_service_js__WEBPACK_IMPORTED_MODULE_3__/* .isVoteAnswer */ .ZV)(answer.json)))
        return { state: 'valid' };
    if (answer.status === 200) {
        // A captive portal's or a proxy's page answers 200 too, and says nothing about the key.
        return {
            state: 'unchecked',
            reason: "a 200 that is not the service's answer (no JSON with a voted field: a portal or proxy page?)"
        };
    }
    const said = (0,_service_js__WEBPACK_IMPORTED_MODULE_3__/* .serviceError */ .cg)(answer);
    const advice = keyAdvice(answer.status, said, plan.botId);
    if (advice !== undefined) {
        throw new _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .ActionError */ .lZ(`The API key check was answered ${answer.status}${said === undefined ? '' : ` with "${said}"`}. ${advice}`, {
            headline: keyHeadline(answer.status)
        });
    }
    return { state: 'unchecked', reason: `the service answered ${answer.status}` };
}


/***/ }),

/***/ 351:
/***/ ((__unused_webpack_module, __webpack_exports__, __nccwpck_require__) => {

/* harmony export */ __nccwpck_require__.d(__webpack_exports__, {
/* harmony export */   T: () => (/* binding */ COMMAND_COUNT_MAX),
/* harmony export */   Z: () => (/* binding */ SERVER_COUNT_MAX)
/* harmony export */ });
/**
 * The service's documented maxima for the counts (its OpenAPI document), here so that settings
 * (inputs) and the stats mode (counts read from a manifest or Discord) both read them without an
 * import that runs back up.
 */
const COMMAND_COUNT_MAX = 1_000;
const SERVER_COUNT_MAX = 10_000_000;


/***/ }),

/***/ 7645:
/***/ ((__unused_webpack_module, __webpack_exports__, __nccwpck_require__) => {


// EXPORTS
__nccwpck_require__.d(__webpack_exports__, {
  e: () => (/* binding */ run)
});

// EXTERNAL MODULE: ./node_modules/@actions/core/lib/core.js + 5 modules
var core = __nccwpck_require__(5049);
// EXTERNAL MODULE: ./src/errors.ts
var errors = __nccwpck_require__(3916);
// EXTERNAL MODULE: ./src/http/client.ts
var client = __nccwpck_require__(3329);
// EXTERNAL MODULE: ./src/settings.ts
var src_settings = __nccwpck_require__(8750);
// EXTERNAL MODULE: ./src/summary.ts + 1 modules
var src_summary = __nccwpck_require__(1577);
// EXTERNAL MODULE: ./src/text.ts
var src_text = __nccwpck_require__(8992);
// EXTERNAL MODULE: ./src/keys.ts
var keys = __nccwpck_require__(7847);
;// CONCATENATED MODULE: ./src/stats/window.ts
/**
 * The service's 6-hour window and what a public record says of it: the arithmetic every stats
 * run needs (the next update's time), apart from reading the record (record.ts).
 */
const HOUR_MS = 60 * 60 * 1000;
/** The service accepts one stats update per bot per 6 hours. */
const COOLDOWN_MS = 6 * HOUR_MS;
/**
 * Added to every 6-hour comparison: the runner's clock and the service's may differ, and an
 * update the service sees as a second early is a strike. Covers the `Date` header's whole
 * seconds and the time an answer takes to arrive; a larger difference is measured (`lagMs`).
 */
const CLOCK_MARGIN_MS = 60_000;
/** The latest update time the record shows, if any. */
function lastUpdate(record) {
    const times = [record.commandsUpdatedAt, record.serversUpdatedAt].filter((d) => d !== undefined);
    return times.length === 0 ? undefined : new Date(Math.max(...times.map(d => d.getTime())));
}
/** When the 6-hour window that the latest update opened closes, by the service's clock. */
function cooldownEnds(record) {
    const last = lastUpdate(record);
    return last === undefined ? undefined : new Date(last.getTime() + COOLDOWN_MS);
}
/**
 * From when, by the runner's clock, an update is safe: the window's end, plus how far the
 * service's clock was seen behind ours, plus the margin.
 */
function acceptsFrom(read) {
    const end = cooldownEnds(read.record);
    return end === undefined
        ? undefined
        : new Date(end.getTime() + (read.lagMs ?? 0) + CLOCK_MARGIN_MS);
}

;// CONCATENATED MODULE: ./src/stats/outcome.ts



/** What a run's wording writes for a fact it does not know, where a sentence names one anyway. */
const UNKNOWN = 'unknown';
/** The facts of a run in its own words, times relative to when its outcome was decided (`at`). */
function runWording(at) {
    const wording = {
        time: date => (date === undefined ? UNKNOWN : (0,src_summary/* when */.z7)(date, at)),
        utc: date => (date === undefined ? UNKNOWN : (0,src_summary/* utc */.n$)(date, at)),
        age: last => last === undefined ? UNKNOWN : `${Math.floor((at.getTime() - last.getTime()) / HOUR_MS)} h`,
        staleAfter: hours => (hours === undefined ? UNKNOWN : String(hours)),
        status: status => (status === undefined ? UNKNOWN : String(status)),
        body: body => JSON.stringify(body),
        reason: facts => (facts.skip === undefined ? '' : REASONS[facts.skip](facts, wording)),
        day: date => (date === undefined ? UNKNOWN : date.toISOString().slice(0, 10))
    };
    return wording;
}
const group = (f) => `concurrency: group: discord-place-stats-${f.botId}, cancel-in-progress: false`;
const quoted = (f) => (f.said === undefined ? '' : `: "${f.said}"`);
const then = (f, say, lead) => f.next === undefined ? '' : `${lead}${say.time(f.next)}`;
const young = (f, say) => f.staleAfter === undefined || f.last === undefined
    ? ''
    : ` The listing was updated ${say.age(f.last)} ago, under stale-after: ${say.staleAfter(f.staleAfter)}, so the step succeeds.`;
/** `the service answered 500 with "…"`: an answer, with the service's words when it sent some. */
const answeredWith = (status, said) => `the service answered ${status}${said === undefined ? '' : ` with "${said}"`}`;
/** A failing answer to the update: the headline's words and what to do. */
function failingAnswer({ headline, advice }) {
    return {
        result: 'failed',
        mark: '❌',
        headline: () => headline,
        says: (f, say) => `Stats update failed: ${answeredWith(say.status(f.status), f.said)}. ${advice(f, say)}`
    };
}
function strike(cause, overlap = false) {
    return {
        result: 'cooldown',
        mark: '🛑',
        headline: () => `refused: strike counted${overlap ? ' (another run updated first)' : ''}`,
        says: (f, say) => `Stats update refused as too early (429${quoted(f)}): the service counted a strike against the API key, and 5 strikes ` +
            `within 6 hours revoke it. ${cause(f, say)}${f.workflow === undefined ? '' : ` ${f.workflow}`} ` +
            `${f.next === undefined ? 'When the next update is accepted is unknown.' : `The next update is accepted from ${say.time(f.next)}.`} ` +
            `The update was not retried.${f.stopped === undefined ? '' : ` ${f.stopped}`}`
    };
}
function skipped(mark, headline, reason) {
    return {
        result: 'skipped',
        mark,
        headline,
        says: (f, say) => `Stats not sent: ${reason(f, say)}`
    };
}
/**
 * Why nothing was sent: after "Stats not sent: " in a skip, after "A real run would not send: " in
 * a dry run.
 */
const REASONS = {
    recent: (f, say) => `the counts were updated less than 6 hours ago${f.last === undefined ? '' : ` (${say.time(f.last)})`}, and the service accepts one ` +
        `update per 6 hours. The next update is accepted from ${f.next === undefined ? 'a later run' : say.time(f.next)}.`,
    unverified: () => 'discord.place has not verified the bot yet, so its record is not public, and its submission counts as an update: an ' +
        'update within 6 hours of submitting it would be refused as a strike, and no read can tell. Updates start once ' +
        'discord.place verifies the bot (its page is not public until then). cooldown-check: false sends anyway, at the risk of a strike.',
    unchecked: () => "the bot's public record could not be checked (see the warning); the next run will try again.",
    nothing: () => 'no count was left to send (see the warning).'
};
const STATS_OUTCOMES = {
    updated: {
        result: 'updated',
        mark: '✅',
        headline: (f, say) => `updated${then(f, say, ', next update from ')}`,
        says: (f, say) => `Stats updated (${say.body(f.body)}). The next update is accepted from ${say.time(f.next)}.`
    },
    'too-soon': skipped('⏭️', (f, say) => `not sent: too soon${then(f, say, ', next update from ')}`, REASONS.recent),
    'not-verified': skipped('⏸️', () => 'not sent: the bot is not verified yet', REASONS.unverified),
    'record-unchecked': skipped('⚠️', () => "not sent: the bot's record could not be checked", REASONS.unchecked),
    'no-count': skipped('⚠️', () => 'not sent: no count to send', REASONS.nothing),
    'rate-limited': {
        result: 'rate-limited',
        mark: '⏸️',
        headline: (f, say) => `turned away by the rate limit, no strike${then(f, say, '; try again from ')}`,
        says: (f, say) => `The service's request limiter turned the update away (429${quoted(f)}) before looking at it: nothing was stored and no ` +
            `strike was counted. ${f.next === undefined ? 'Try again in 30 minutes.' : `Try again from ${say.time(f.next)}.`}${young(f, say)}`
    },
    deferred: {
        result: 'deferred',
        mark: '⏸️',
        headline: (f, say) => `deferred, the listing ${say.age(f.last)} old`,
        says: (f, say) => `Stats update deferred: ${f.failure}.${young(f, say)} It is not sent again; the next run will try.`
    },
    stale: {
        result: 'failed',
        mark: '❌',
        headline: (f, say) => `no update for ${say.age(f.last)}`,
        says: (f, say) => `discord.place has not taken an update for ${say.age(f.last)} (last at ${say.time(f.last)}), stale-after: ${say.staleAfter(f.staleAfter)}. ` +
            `This run's update failed too: ${f.failure}. It is not sent again; the next run will try.`
    },
    'dry-run': {
        result: 'dry-run',
        mark: '🧪',
        headline: () => 'dry run: nothing sent, a real run would send',
        says: (f, say) => `Dry run: nothing sent. A real run would send ${say.body(f.body)}.`
    },
    'dry-run-not-due': {
        result: 'dry-run',
        mark: '🧪',
        headline: () => 'dry run: nothing sent, a real run would not send',
        says: (f, say) => `Dry run: nothing sent. A real run would not send: ${say.reason(f)}`
    },
    'strike-overlap': strike((f, say) => `Likely cause: overlapping runs. Another run updated the counts at ${say.utc(f.overlap)}, after this run read the bot's record: ` +
        'runs that overlap (a deploy and the schedule at once) both pass the check. Put the stats job of every workflow for this ' +
        `bot in one concurrency group (${group(f)}) so that they run one at a time.`, true),
    'strike-unverified': strike(() => 'Likely cause: discord.place has not verified the bot yet, and its submission counts as an update, so any update within ' +
        '6 hours of submitting it is refused. Keep cooldown-check: true, which holds updates until the bot is verified.'),
    'strike-unchecked': strike(() => 'Likely cause: it was sent without reading the record first (cooldown-check: false), less than 6 hours after the last ' +
        'update (or after the bot was submitted, if it is not verified yet). Keep cooldown-check: true.'),
    'strike-unknown': strike(f => 'Likely cause: overlapping runs, or an update from elsewhere (the bot itself, another workflow) after this run read the ' +
        `record. Schedule runs every 8 hours, keep cooldown-check: true, and put every stats job for this bot in one concurrency group (${group(f)}).`),
    'server-count-refused': failingAnswer({
        headline: 'count refused by discord.place',
        advice: f => 'The service accepts a server count only within max(50, 10%) of the count Discord reports for the bot, and refuses the ' +
            `whole update: nothing was stored${f.body.command_count === undefined ? '' : ', the command count neither'}. Send the count your bot sees ` +
            '(its guild cache), or leave server-count out and set discord-token to read it from Discord.'
    }),
    'count-refused': failingAnswer({
        headline: 'count refused by discord.place',
        advice: () => 'Check command-count (0 to 1000) and server-count (0 to 10000000).'
    }),
    'key-401': failingAnswer(keys/* KEY_ANSWERS */.KM[401]),
    'key-404': failingAnswer(keys/* KEY_ANSWERS */.KM[404]),
    'key-410-fifth': failingAnswer(keys/* KEY_ANSWERS */.KM['410-fifth']),
    'key-410': failingAnswer(keys/* KEY_ANSWERS */.KM[410]),
    redirect: failingAnswer({
        headline: 'redirect not followed',
        advice: () => "A redirect is not followed: a request carrying the API key never goes to another address. Set base-url to the service's own address."
    }),
    'service-failed': failingAnswer({
        headline: 'discord.place failed on its side',
        advice: () => 'The service failed on its side; nothing in the workflow needs to change. The update was not repeated (a second update ' +
            'could count as an early one); the next run will try again.'
    }),
    unexpected: {
        ...failingAnswer({
            headline: '',
            advice: () => 'This answer was not expected; the update was not repeated. Check base-url and the service status.'
        }),
        headline: (f, say) => `unexpected answer (${say.status(f.status)})`
    },
    unreachable: {
        result: 'failed',
        mark: '❌',
        headline: () => 'discord.place unreachable',
        says: f => `Stats update failed: ${f.failure}. Nothing reached the service. Check base-url and the runner's network; the next run will try again.`
    },
    'no-answer': {
        result: 'failed',
        mark: '❌',
        headline: () => 'no answer to the update',
        says: f => `Stats update failed: ${f.failure}. The update may have reached the service, so it was not sent again: a second update ` +
            "within 6 hours would count as a strike against the key. Check the bot's page; the next run will update it if needed."
    },
    'no-answer-not-arrived': {
        result: 'failed',
        mark: '❌',
        headline: () => 'no answer to the update',
        says: f => `Stats update failed: ${f.failure}. A fresh read of the public record shows it has not arrived, but sending it again ` +
            'could still be early (the service may yet store this one, or an earlier update is within 6 hours), so it was not. ' +
            'The next run will try.'
    },
    'no-answer-twice': {
        result: 'failed',
        mark: '❌',
        headline: () => 'no answer to the update',
        says: f => `Stats update failed twice: ${f.failure}. It is not sent again; the next run will try.`
    }
};
/**
 * Which row of the table an outcome that succeeded (or a strike) is, for the report's line and
 * headline; a failure's words are its error's, written when the run decided it (update.ts).
 */
function outcomeOf(outcome) {
    switch (outcome.result) {
        case 'skipped':
            return {
                recent: 'too-soon',
                unverified: 'not-verified',
                unchecked: 'record-unchecked',
                nothing: 'no-count'
            }[outcome.skip];
        case 'dry-run':
            return outcome.skip === undefined ? 'dry-run' : 'dry-run-not-due';
        case 'cooldown':
            return `strike-${outcome.strikeCause ?? 'unknown'}`;
        case 'failed':
            return undefined;
        default:
            return outcome.result;
    }
}
/** A run's facts, for its outcome's words; the workflow finding and a stop only beside a strike. */
function factsOf(outcome, botId, strike = {}) {
    return {
        botId,
        body: outcome.body,
        next: outcome.nextUpdateAt,
        last: outcome.record?.ok ? lastUpdate(outcome.record.record) : undefined,
        status: outcome.status,
        said: outcome.answer,
        overlap: outcome.overlap,
        staleAfter: outcome.staleAfter,
        failure: outcome.failure,
        skip: outcome.skip,
        workflow: strike.workflow,
        stopped: strike.stopped
    };
}
const disables = (f, say) => `GitHub disables this workflow's schedule around ${say.day(f.disabledAround)}, 60 days after the last push to the repository ` +
    `(${say.day(f.lastPush)}): a public repository's schedules stop after 60 days without activity. A push (a commit to main) ` +
    'keeps it running.';
const SCHEDULE_WORDS = {
    soon: {
        when: '45 days or more since the last push',
        kind: 'warning',
        title: 'Schedule disabled soon',
        says: disables
    },
    failing: {
        when: '55 days or more, with stale-after set',
        kind: 'error',
        title: '',
        headline: (f, say) => `GitHub disables the schedule around ${say.day(f.disabledAround)}`,
        says: (f, say) => `${disables(f, say)} ${f.stats}`
    },
    past: {
        when: 'the date has passed, and the schedule still runs',
        kind: 'warning',
        title: 'Schedule past 60 days without a push',
        says: (f, say) => `The last push to the repository was on ${say.day(f.lastPush)}, and a public repository's schedules stop after 60 days ` +
            `without activity (around ${say.day(f.disabledAround)}); this run still came, so the schedule was enabled again or there ` +
            'was activity the action cannot see. A push (a commit to main) keeps it running.'
    },
    unread: {
        when: 'no pushed_at in the event, and the read of the repository failed',
        kind: 'notice',
        title: 'Schedule not checked',
        says: f => `The repository's last push could not be read (${f.reason}), so this run cannot tell when GitHub disables the ` +
            "workflow's schedule: a public repository's schedules stop after 60 days without activity."
    }
};
/** A scheduled run's facts: the check's dates or why it has none, and how the stats run went. */
function scheduleFactsOf(outcome, botId) {
    const check = outcome.schedule;
    const dated = check !== undefined && check.stage !== 'unread' ? check : undefined;
    return {
        disabledAround: dated?.disabledAround,
        lastPush: dated?.lastPush,
        stats: statsWords(outcome, botId),
        reason: check?.stage === 'unread' ? check.reason : undefined
    };
}
/**
 * How the stats run itself went: its error, an update in the contract's words, or its outcome's.
 */
function statsWords(outcome, botId) {
    if (outcome.error !== undefined)
        return outcome.error.message;
    // The contract's words for an update, shorter than the outcome's own line.
    if (outcome.result === 'updated')
        return 'The counts were updated.';
    const id = outcomeOf(outcome);
    return id === undefined
        ? ''
        : STATS_OUTCOMES[id].says(factsOf(outcome, botId), runWording(outcome.at));
}

;// CONCATENATED MODULE: ./src/stats/report.ts





/**
 * The stats mode's report: its outputs (the only writer of them), its log lines and
 * annotations, and its job summary section. The safe skip and the strike never share a word:
 * a skip is "not sent: too soon", the 6-hour refusal is "refused: strike counted".
 */
/** GitHub shows the first 10 annotations of each kind per step. */
const SHOWN_ANNOTATIONS = 10;
/**
 * The longest warning, and the longest text from outside (an answer, a reason), quoted in the
 * summary; the log has each warning whole. Escaped (up to six times longer), twenty warnings
 * and the rest stay under the section's cap, so the cap never cuts the section short.
 */
const SUMMARY_WARNING_CHARS = 1_000;
const QUOTE_CHARS = 1_000;
/** The bot's name from its listing, in the headline. */
const NAME_CHARS = 100;
const info = (line) => core/* info */.pq((0,src_text/* logText */.kc)(line));
const warning = (text, title) => core/* warning */.$e((0,src_text/* annotationText */.xr)(text), title === undefined ? undefined : { title });
const notice = (text, title) => core/* notice */.lm((0,src_text/* annotationText */.xr)(text), { title });
/**
 * Writes the outputs, the log lines and annotations, and the summary section; returns the failure,
 * if any.
 */
async function reportStats(settings, outcome) {
    const outputsFailure = (0,src_summary/* writeOutputsSafely */.mu)(() => writeOutputs(outcome));
    announce(outcome, settings.botId);
    if (outputsFailure !== undefined && outcome.error !== undefined)
        core/* warning */.$e((0,src_text/* annotationText */.xr)(outputsFailure));
    await (0,src_summary/* writeSection */.Zn)(summary => summary.addRaw(renderSummary(settings, outcome, outputsFailure), true));
    return outcome.error?.message ?? outputsFailure;
}
/**
 * Every output that is known, a failed run's included (`status` after a refusal), for a later step
 * with `if: always()`. The last update known: this run's, another run's that a strike found
 * (overlap), else the record's.
 */
function writeOutputs(outcome) {
    core/* setOutput */.uH('result', outcome.result);
    if (outcome.body.command_count !== undefined)
        core/* setOutput */.uH('command-count', outcome.body.command_count);
    if (outcome.body.server_count !== undefined)
        core/* setOutput */.uH('server-count', outcome.body.server_count);
    if (outcome.status !== undefined)
        core/* setOutput */.uH('status', outcome.status);
    if (outcome.nextUpdateAt !== undefined)
        core/* setOutput */.uH('next-update-at', outcome.nextUpdateAt.toISOString());
    const last = outcome.result === 'updated'
        ? outcome.at
        : (outcome.overlap ?? (outcome.record?.ok ? lastUpdate(outcome.record.record) : undefined));
    if (last !== undefined)
        core/* setOutput */.uH('last-updated-at', last.toISOString());
    const schedule = outcome.schedule;
    if (schedule !== undefined && schedule.stage !== 'unread')
        core/* setOutput */.uH('schedule-disabled-around', schedule.disabledAround.toISOString().slice(0, 10));
}
/**
 * The annotation that explains the outcome, first among its kind, then the other warnings:
 * those beyond what GitHub shows are folded into one.
 */
function announce(outcome, botId) {
    const line = outcomeLine(outcome, botId);
    if (line.kind === 'info')
        info(line.text);
    else if (line.kind === 'notice')
        notice(line.text, line.title);
    else
        warning(line.text, line.title);
    const note = scheduleNote(outcome, botId);
    if (note?.kind === 'notice')
        notice(note.text, note.title);
    if (note?.kind === 'warning')
        warning(note.text, note.title);
    const warnings = [...outcome.warnings, ...(outcome.counts?.warnings ?? [])];
    const room = SHOWN_ANNOTATIONS - (line.kind === 'warning' ? 1 : 0) - (note?.kind === 'warning' ? 1 : 0);
    const shown = warnings.length > room ? warnings.slice(0, room - 1) : warnings;
    for (const text of shown)
        warning(text);
    if (shown.length < warnings.length) {
        const rest = warnings.slice(shown.length);
        warning(`${rest.length} more warnings: ${rest.map(text => (0,src_text/* bounded */.Mm)(text, 300)).join(' | ')}`);
    }
}
/**
 * The one line (log line or annotation) that says how the run ended; a failure says so in its
 * error.
 */
function outcomeLine(outcome, botId) {
    const id = outcomeOf(outcome);
    const text = id === undefined ? '' : STATS_OUTCOMES[id].says(factsOf(outcome, botId), runWording(outcome.at));
    switch (outcome.result) {
        case 'skipped':
            return { kind: 'notice', title: 'Stats not sent', text };
        case 'rate-limited':
            return { kind: 'warning', title: 'Update turned away by the rate limit (no strike)', text };
        case 'deferred':
            return { kind: 'warning', title: 'Stats update deferred', text };
        case 'cooldown':
            // The step fails: its one ::error:: (the outcome's error) names the strike, the cause and the
            // fix.
            return {
                kind: 'info',
                title: '',
                text: 'The service refused the update as too early: a strike was counted.'
            };
        case 'failed': {
            const what = outcome.delivery === 'not-sent'
                ? 'The run failed before any stats update was sent'
                : 'The stats update failed';
            return { kind: 'info', title: '', text: `${what}; the error says why.` };
        }
        default:
            return { kind: 'info', title: '', text };
    }
}
/**
 * What a scheduled run says about GitHub disabling its schedule, beside its outcome: a warning,
 * or the notice that it could not tell. A failure says it in its error instead.
 */
function scheduleNote(outcome, botId) {
    const stage = outcome.schedule?.stage;
    if (stage === undefined || stage === 'failing')
        return undefined;
    const { kind, title, says } = SCHEDULE_WORDS[stage];
    return { kind, title, text: says(scheduleFactsOf(outcome, botId), runWording(outcome.at)) };
}
/**
 * The headline's mark and words. A step the schedule fails keeps the stats run's words, marked as
 * failed, and names the date.
 */
function headline(outcome, botId) {
    const [mark, words] = statsHeadline(outcome, botId);
    if (outcome.schedule?.stage !== 'failing')
        return [mark, words];
    return [
        '❌',
        `${words}; ${SCHEDULE_WORDS.failing.headline(scheduleFactsOf(outcome, botId), runWording(outcome.at))}`
    ];
}
function statsHeadline(outcome, botId) {
    const id = outcomeOf(outcome);
    if (id === undefined)
        return [
            '❌',
            outcome.error?.headline === undefined ? 'failed' : `failed: ${outcome.error.headline}`
        ];
    const { mark, headline: words } = STATS_OUTCOMES[id];
    return [mark, words(factsOf(outcome, botId), runWording(outcome.at))];
}
/** The heading of the counts' last column: what became of the counts this run sent, or would. */
function sentColumn(outcome, dryRun) {
    if (outcome.result === 'updated')
        return 'Now';
    if (outcome.delivery === 'no-answer')
        return 'Sent, no answer';
    if (outcome.delivery !== 'not-sent')
        return 'Sent, not stored';
    if (outcome.result === 'failed' && !dryRun)
        return 'Was to be sent';
    return 'Would be sent';
}
/** The summary section, as HTML: headline, counts, warnings and error, then the details folded. */
function renderSummary(settings, outcome, outputsFailure) {
    const record = outcome.record?.ok ? outcome.record.record : undefined;
    const [mark, words] = (0,src_summary/* headlineWith */.LB)(outputsFailure, headline(outcome, settings.botId));
    const name = record?.username === undefined ? undefined : (0,src_text/* bounded */.Mm)(record.username, NAME_CHARS);
    const parts = [
        `<h3>${mark} ${(0,src_summary/* botTitle */.Oi)(settings.botId, name, settings.baseUrl)}: ${(0,src_text/* html */.qy)(words)}</h3>\n`
    ];
    const counts = outcome.counts;
    if (counts?.command !== undefined || counts?.server !== undefined || record !== undefined) {
        const applied = outcome.result === 'updated';
        // A count not resolved: Discord is asked only when an update is due, so a run skipped at the
        // record check did not read it; after that (a dry run, a failure), it was asked or no source
        // gave the count.
        const beforeDiscord = outcome.skip === 'recent' || outcome.skip === 'unverified' || outcome.skip === 'unchecked';
        const unread = settings.discordToken !== undefined && beforeDiscord
            ? 'not read from Discord (only for an update that is due)'
            : '—';
        const withSource = counts?.command !== undefined || counts?.server !== undefined;
        const rows = [
            countRow('Commands', counts?.command, record?.commands, applied, unread, withSource),
            countRow('Servers', counts?.server, record?.servers, applied, unread, withSource)
        ].filter(row => row !== undefined);
        const column = sentColumn(outcome, settings.dryRun);
        parts.push(`<table>\n<tr><th>Count</th><th>Listed before</th><th>${column}</th>${withSource ? '<th>Source</th>' : ''}</tr>\n${rows.join('\n')}\n</table>\n`);
    }
    // The error before the warnings: it says why the step failed, and no number of warnings hides it.
    if (outcome.error !== undefined)
        parts.push((0,src_summary/* markedParagraph */.V4)('❌', 'Error:', outcome.error.message));
    if (outputsFailure !== undefined)
        parts.push((0,src_summary/* markedParagraph */.V4)('❌', 'Error:', outputsFailure));
    if (outcome.error === undefined && outcome.result !== 'updated') {
        parts.push(`<p>${(0,src_text/* html */.qy)((0,src_text/* bounded */.Mm)(outcomeLine(outcome, settings.botId).text, src_text/* MAX_MESSAGE_CHARS */.hP))}</p>\n`);
    }
    const note = scheduleNote(outcome, settings.botId);
    if (note?.kind === 'warning')
        parts.push((0,src_summary/* markedParagraph */.V4)('⚠️', 'Warning:', note.text));
    const warnings = [...outcome.warnings, ...(counts?.warnings ?? [])];
    for (const text of warnings.slice(0, 20))
        parts.push((0,src_summary/* markedParagraph */.V4)('⚠️', 'Warning:', (0,src_text/* bounded */.Mm)(text, SUMMARY_WARNING_CHARS)));
    if (warnings.length > 20)
        parts.push(`<p>⚠️ ${warnings.length - 20} more warnings are in the step's log.</p>\n`);
    parts.push(details(settings, outcome));
    return parts.join('');
}
/** One count's row; none when neither the listing nor this run knows the count. */
function countRow(label, count, before, applied, unread, withSource) {
    const listed = before === undefined ? '—' : (0,src_summary/* number */.ai)(before);
    if (count === undefined) {
        if (before === undefined && unread === '—')
            return undefined;
        return `<tr><td>${label}</td><td>${listed}</td><td>${unread}</td>${withSource ? '<td>—</td>' : ''}</tr>`;
    }
    const change = applied && before !== undefined && before !== count.value
        ? ` (${signed(count.value - before)})`
        : '';
    return `<tr><td>${label}</td><td>${listed}</td><td>${(0,src_summary/* number */.ai)(count.value)}${change}</td><td>${(0,src_text/* html */.qy)((0,src_text/* bounded */.Mm)(count.source, 300))}</td></tr>`;
}
/** The request, the answer, the record read and the service's address, folded. */
function details(settings, outcome) {
    const path = `PATCH /bots/${settings.botId}/stats ${JSON.stringify(outcome.body)}`;
    const rows = [
        ['Service', (0,src_text/* htmlLink */.Ar)(settings.baseUrl, settings.baseUrl)],
        ['Record read', recordLine(settings, outcome)]
    ];
    if (outcome.keyCheck !== undefined) {
        rows.push([
            'Key check',
            outcome.keyCheck.state === 'valid'
                ? 'the key is valid'
                : `not checked: ${(0,src_text/* html */.qy)((0,src_text/* bounded */.Mm)(outcome.keyCheck.reason, QUOTE_CHARS))}`
        ]);
    }
    const sent = outcome.delivery !== 'not-sent';
    rows.push(['Request', sent ? `<code>${(0,src_text/* html */.qy)(path)}</code>` : notSentLine(outcome, path)]);
    if (sent)
        rows.push(['Answer', answerLine(outcome)]);
    const table = rows.map(([key, value]) => `<tr><td>${key}</td><td>${value}</td></tr>`).join('\n');
    return `<details><summary>Request and answer</summary>\n<table>\n${table}\n</table>\n</details>\n`;
}
/** The update not sent: what a run with counts would send, never a request without any. */
function notSentLine(outcome, path) {
    const empty = outcome.body.command_count === undefined && outcome.body.server_count === undefined;
    if (empty)
        return outcome.skip === 'nothing' ? 'not sent: no count was left to send' : 'not sent';
    if (outcome.result === 'failed')
        return 'not sent';
    // A run that found the update not due (a skip, or a dry run a real run would skip) says so.
    const would = outcome.skip === undefined ? 'a real run would send' : 'once an update is due, it would be';
    return `not sent (${would} <code>${(0,src_text/* html */.qy)(path)}</code>)`;
}
/**
 * What became of the record read, in the words of each case: off, not reached, not public,
 * unreadable, read. `record` is the read before the update; with cooldown-check off, a strike
 * still reads it after the refusal, and the outcome carries what that read showed.
 */
function recordLine(settings, outcome) {
    const read = outcome.record;
    if (read === undefined && !settings.cooldownCheck) {
        if (outcome.delivery === 'not-sent')
            return 'not read (cooldown-check: false)';
        return `not read before the update (cooldown-check: false)${outcome.result === 'cooldown' ? `; ${readAfterStrike(outcome)}` : ''}`;
    }
    if (read === undefined)
        return 'not read: the run ended before it';
    if (!read.ok) {
        if (read.problem === 'unverified')
            return 'not public: the bot is not verified yet (403)';
        if (read.problem === 'absent')
            return 'no such bot (404)';
        return `could not be read: ${(0,src_text/* html */.qy)((0,src_text/* bounded */.Mm)(read.reason, QUOTE_CHARS))}`;
    }
    const last = lastUpdate(read.record);
    return `read; last update ${last === undefined ? 'unknown' : (0,src_text/* html */.qy)((0,src_summary/* when */.z7)(last, outcome.at))}${read.cached ? ' (from a cache)' : ''}`;
}
/**
 * The read after a strike with no read before it: the outcome's next update time and cause come
 * from it alone.
 */
function readAfterStrike(outcome) {
    if (outcome.strikeCause === 'unverified')
        return 'read after the refusal: not public, the bot is not verified yet (403)';
    if (outcome.nextUpdateAt === undefined)
        return 'a read after the refusal did not show when the next update is accepted';
    return `read after the refusal: the next update is accepted from ${(0,src_text/* html */.qy)((0,src_summary/* when */.z7)(outcome.nextUpdateAt, outcome.at))}`;
}
function answerLine(outcome) {
    if (outcome.status === undefined) {
        return outcome.delivery === 'arrived'
            ? 'none (the connection failed), but the public record shows the update'
            : 'none (no answer came back)';
    }
    return `${outcome.status}${outcome.answer === undefined ? '' : `: ${(0,src_text/* html */.qy)((0,src_text/* bounded */.Mm)(outcome.answer, QUOTE_CHARS))}`}`;
}
function signed(delta) {
    return delta > 0 ? `+${(0,src_summary/* number */.ai)(delta)}` : `−${(0,src_summary/* number */.ai)(-delta)}`;
}

// EXTERNAL MODULE: ./src/http/transport.ts
var transport = __nccwpck_require__(1517);
// EXTERNAL MODULE: ./src/service.ts
var service = __nccwpck_require__(448);
// EXTERNAL MODULE: ./src/version.ts + 1 modules
var version = __nccwpck_require__(1013);
;// CONCATENATED MODULE: ./src/stats/record.ts







/**
 * Reading the bot's public record (`GET /bots/{id}`, no key), for the cooldown check before an
 * update, the re-read after a strike and the delivery check after a failure; what a record
 * says of the 6-hour window is window.ts.
 */
/**
 * The record keeps the key safe, so it is read patiently: 5xx and network failures are retried
 * here, and the read limiter's 429 is waited out by readPublicRecord, which knows how much of
 * the step's time the update still needs. A record is kept up to a megabyte.
 */
const RECORD_POLICY = {
    ...client/* READ_DEFAULTS */.qW,
    name: "the bot's public record",
    attempts: 3,
    retryStatuses: client/* SERVER_ERRORS */.Qx,
    maxBodyBytes: 1024 * 1024
};
/** Read-limiter waits one read may sit out (the live limiter asks for 60 s each). */
const MAX_LIMITER_WAITS = 3;
/**
 * How far an update time may lie ahead of the runner's clock: clocks differ, by seconds, not hours.
 */
const FUTURE_TOLERANCE_MS = 60 * 60 * 1000;
/**
 * Reads the record. A read the read limiter turns away (429, `Retry-After: 60` on the live
 * service, whose limit of 10 a minute is shared by every job on the runner's address) is
 * waited out and read again, as long as the step's timeout leaves room for the read and the
 * update after it; a 5xx or network failure is retried by the record policy. What is still
 * unreadable then comes back `unreadable`: the caller sends nothing rather than an update
 * that would be a strike whenever the last one was recent. Only the step's own deadline
 * passing throws (DeadlineError).
 */
async function readPublicRecord(plan, deps) {
    const url = `${plan.baseUrl}/bots/${plan.botId}`;
    deps.log(`Reading the bot's public record: GET ${url}`);
    for (let waits = 0;; waits++) {
        let answer;
        try {
            // No key: the record is public. no-cache: a cached copy could hide a recent update.
            answer = await deps.requests.send({
                method: 'GET',
                url,
                headers: {
                    Accept: 'application/json',
                    'Cache-Control': 'no-cache',
                    'User-Agent': version/* USER_AGENT */._O
                }
            }, RECORD_POLICY);
        }
        catch (error) {
            if (!(error instanceof transport/* NetworkError */.Dr))
                throw error;
            return unreadable(deps, {
                ok: false,
                status: undefined,
                reason: error.message,
                problem: error.delivered ? 'unreadable' : 'unreachable'
            });
        }
        const receivedAt = deps.requests.clock.now();
        const read = interpretRecord(answer, receivedAt);
        if (read.ok)
            return {
                ...read,
                cached: Number(answer.headers['age']) > 0,
                lagMs: lagMs(answer, receivedAt)
            };
        if (answer.status !== 429)
            return read.problem === 'unreadable' ? unreadable(deps, read) : read;
        // The read limiter: wait as long as it asks (at least a second), if the step has room.
        const wait = Math.max(1_000, (0,transport/* retryAfterMs */.Vs)(answer) ?? 60_000);
        const room = deps.requests.remainingMs() - 2 * deps.requests.limits.attemptTimeoutMs;
        if (waits >= MAX_LIMITER_WAITS || wait > room) {
            const why = `the service's read limit asks for a wait of ${Math.ceil(wait / 1000)} s, more than the step's timeout leaves`;
            return unreadable(deps, {
                ...read,
                reason: waits >= MAX_LIMITER_WAITS ? `${read.reason}, ${waits + 1} times` : why
            });
        }
        deps.log(`The service's read limit answered 429; reading the record again in ${Math.ceil(wait / 1000)} s.`);
        await deps.requests.sleep(wait, RECORD_POLICY);
    }
}
/**
 * What a record read means for an update about to be sent: undefined when it may be sent, or
 * why it is held back (with a warning when the check itself could not be made). A record that
 * shows no update could get through either (the service unreachable, the bot not listed)
 * fails the run; a dry run fails where a real run would, so it promises nothing a real run
 * would not do.
 */
function holdBack(read, botId, now) {
    if (!read.ok) {
        switch (read.problem) {
            // The first day: the record stays private until the bot is verified, and the bot's
            // submission stamped its update times, so no read can tell whether an update would be a
            // strike. Nothing is sent until the bot is verified (cooldown-check: false sends anyway).
            case 'unverified':
                return { skip: 'unverified' };
            case 'unreadable':
                return {
                    skip: 'unchecked',
                    warning: `Stats not sent: the bot's public record could not be checked (${read.reason}). An update sent without that check ` +
                        'is a strike whenever the last one was less than 6 hours ago, so nothing was sent; the next run will try again.'
                };
            case 'unreachable':
                throw new errors/* ActionError */.lZ(`Could not read the bot's public record: ${read.reason}. Nothing was sent. Check base-url and the runner's network; the next run will try again.`, { headline: 'discord.place unreachable' });
            case 'absent':
                // The stats route answers 404 for the same bot: fail before spending a request on it.
                throw new errors/* ActionError */.lZ(`The service lists no bot with ID ${botId} (its public record answered 404), so nothing was sent. ` +
                    "Check bot-id: it is the bot's Discord application ID, and the bot must be listed on discord.place.", { headline: 'bot not listed on discord.place' });
        }
    }
    const from = acceptsFrom(read);
    if (from !== undefined && from > now)
        return { skip: 'recent', nextUpdateAt: from };
    // A copy from a cache (Age > 0) may predate the last update: it can hold an update back,
    // never clear one.
    if (read.cached === true) {
        return {
            skip: 'unchecked',
            warning: "Stats not sent: the bot's public record came from a cache (Age header above 0), so it may not show the latest " +
                'update, and an update within 6 hours of it would be a strike. The next run will try again. (cooldown-check: false sends without the check.)'
        };
    }
    return undefined;
}
function unreadable(deps, read) {
    deps.log(`Could not read the public record (${read.reason}).`);
    return read;
}
/**
 * How far the service's clock is behind ours when it answered, from its `Date` header. The
 * header is in whole seconds, so a second is allowed for; a clock ahead of ours only makes
 * the check stricter, so it is not corrected for. A missing or broken header counts as 0
 * (the margin still applies).
 */
function lagMs(answer, receivedAt) {
    const date = Date.parse(String(answer.headers['date'] ?? ''));
    if (Number.isNaN(date))
        return 0;
    // A day at most: past that the header is broken, not a clock.
    return Math.min(Math.max(0, receivedAt - date - 1_000), 86_400_000);
}
/** Turns the answer to `GET /bots/{id}` into a record, or says why it is not one. */
function interpretRecord(answer, now = Date.now()) {
    const { status } = answer;
    // Only the service's own words mean "not verified" (routes/bots/[id]/index.js:51): any other 403,
    // a firewall's page or a gateway's JSON in the service's shape, says nothing about the bot, and
    // taking it for the first day would hold updates and advise sending without the check.
    const said = (0,service/* serviceError */.cg)(answer);
    if (status === 403 && isServiceAnswer(answer) && NOT_VERIFIED.test(said ?? '')) {
        return {
            ok: false,
            status,
            problem: 'unverified',
            reason: 'the bot is not verified yet, so its record is not public (403)'
        };
    }
    if (status === 403) {
        return {
            ok: false,
            status,
            problem: 'unreadable',
            reason: `a 403 ("${said ?? (0,src_text/* excerpt */.Kb)(answer.text, 120)}") that is not the service's own "not verified" answer: a gateway or firewall in the way?`
        };
    }
    if (status === 404)
        return {
            ok: false,
            status,
            problem: 'absent',
            reason: 'the service has no record for this bot (404)'
        };
    if (status === 429)
        return {
            ok: false,
            status,
            problem: 'unreadable',
            reason: 'the service is limiting reads (429)'
        };
    if (status !== 200)
        return { ok: false, status, problem: 'unreadable', reason: `the service answered ${status}` };
    const json = answer.json;
    if (typeof json !== 'object' || json === null || Array.isArray(json)) {
        return { ok: false, status, problem: 'unreadable', reason: 'the answer was not a JSON object' };
    }
    const fields = json;
    const record = {
        username: typeof fields['username'] === 'string' && fields['username'].trim() !== ''
            ? fields['username'].trim()
            : undefined,
        commands: asCount(fields['commands']),
        servers: asCount(fields['servers']),
        commandsUpdatedAt: asDate(fields['commands_updated_at']),
        serversUpdatedAt: asDate(fields['servers_updated_at'])
    };
    if (record.commandsUpdatedAt === undefined && record.serversUpdatedAt === undefined) {
        return { ok: false, status, problem: 'unreadable', reason: 'the record has no update times' };
    }
    // The service stamps an update with its own clock, so a time well past ours is a broken (or
    // hostile) record, not a clock: trusting it would skip every update until that date.
    const future = [record.commandsUpdatedAt, record.serversUpdatedAt].find(d => d !== undefined && d.getTime() > now + FUTURE_TOLERANCE_MS);
    if (future !== undefined) {
        return {
            ok: false,
            status,
            problem: 'unreadable',
            reason: `its update time ${future.toISOString()} is later than the runner's clock (${new Date(now).toISOString()}), so it cannot be trusted`
        };
    }
    return { ok: true, status, record };
}
/** The service's words for a bot it has not verified yet. */
const NOT_VERIFIED = /^This bot is not verified yet\.?$/i;
/** The service's own error shape: JSON (by its content type) with `success: false`. */
function isServiceAnswer(answer) {
    const json = answer.json;
    const type = String(answer.headers['content-type'] ?? '');
    return /^application\/json\b/i.test(type) && json?.success === false;
}
function asCount(value) {
    return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}
function asDate(value) {
    if (typeof value !== 'string' && typeof value !== 'number')
        return undefined;
    const date = new Date(value);
    // Invalid, or out of the range a Date can print (a hostile or broken answer).
    return Number.isNaN(date.getTime()) ? undefined : date;
}

;// CONCATENATED MODULE: ./src/stats/answers.ts




/** What the stats route's answers mean, and what the person reading the log should do. */
/**
 * Which of the service's two 429s an answer is. The request limiter (2 counted requests per
 * 30 minutes per bot) answers before looking at anything: `Retry-After`, `retry_after` and
 * "Too many requests"; nothing was stored and no strike counted. The 6-hour rule answers
 * without `Retry-After` or `retry_after`, and that refusal is a strike.
 */
function kindOf429(answer) {
    const body = answer.json;
    if (answer.headers['retry-after'] !== undefined || body?.retry_after !== undefined)
        return 'limiter';
    return typeof body?.error === 'string' && /too many requests/i.test(body.error)
        ? 'limiter'
        : 'six-hours';
}
/**
 * A failure after the status line and headers arrived (the body cut off, or too slow) is an
 * answer: the service received the update and decided. Its status decides the outcome; the
 * body is not there to read.
 */
function answerFromStatusLine(error) {
    if (error.answered === undefined)
        return undefined;
    return {
        status: error.answered.status,
        headers: error.answered.headers,
        text: '',
        truncated: true,
        json: undefined
    };
}
/**
 * After the 6-hour refusal (a strike): reads the record again, for when the next update is
 * accepted (the refusal's headers describe only the request limiter) and for why it came.
 * When the first read allowed the update and the fresh one shows a later update, another run
 * updated the counts between this run's read and its update: overlapping runs, which one
 * concurrency group per bot prevents. A fresh read answered "not verified" names the first day.
 * A read that fails, runs out of time or is stopped only leaves these unknown: the strike is
 * reported either way (a stop says so beside it).
 */
async function afterRefusal(settings, deps, first) {
    let fresh;
    let stopped;
    try {
        fresh = await readPublicRecord(settings, deps);
    }
    catch (error) {
        if (error instanceof errors/* StoppedError */.Ko)
            stopped = `${error.message} It came while the bot's record was read after the refusal.`;
        else if (!(error instanceof client/* DeadlineError */.j3))
            throw error;
    }
    const future = (read) => {
        const from = read?.ok ? acceptsFrom(read) : undefined;
        return from !== undefined && from.getTime() > deps.requests.clock.now() ? from : undefined;
    };
    const before = first?.ok ? lastUpdate(first.record) : undefined;
    const after = fresh?.ok ? lastUpdate(fresh.record) : undefined;
    const overlap = first?.ok && after !== undefined && (before === undefined || after > before) ? after : undefined;
    const strikeCause = causeOfStrike(overlap, first, fresh);
    return { found: { nextUpdateAt: future(fresh) ?? future(first), overlap, strikeCause }, stopped };
}
/**
 * Why the update came early, most telling first: another run's update, a record the service does
 * not show yet, a run that did not read the record first, or nothing this run can tell.
 */
function causeOfStrike(overlap, first, fresh) {
    if (overlap !== undefined)
        return 'overlap';
    if (fresh?.ok === false && fresh.problem === 'unverified')
        return 'unverified';
    if (first === undefined)
        return 'unchecked';
    return 'unknown';
}
/**
 * For a stopped run: exactly what reached the service. A stop that cut off the answer after its
 * status line: a 429 whose body never came may have been the 6-hour refusal (a strike) or the
 * request limiter (none); the message says which it may be.
 */
function whatWasSent(delivery, status, dryRun) {
    const maybeStrike = status === 429
        ? ' Its answer was cut off after the status line: if that 429 was the 6-hour refusal rather than the request limiter, ' +
            'the service counted a strike against the key (5 within 6 hours revoke it).'
        : '';
    switch (delivery) {
        case 'not-sent':
            return dryRun ? 'Nothing was sent (dry run).' : 'The stats update was not sent.';
        case 'answered':
            return `The stats update was sent and answered${status === undefined ? '' : ` (${status})`}.${maybeStrike}`;
        case 'arrived':
            return 'The stats update was sent and answered.';
        case 'no-answer':
            return ('The stats update was sent, and no answer came back: the service may have stored it. ' +
                'With cooldown-check: true the next run reads the public record first and does not send it twice.');
    }
}

;// CONCATENATED MODULE: ./src/stats/counts.ts

/**
 * The counts known before any request to the service: the inputs, then the command manifest (read
 * first, so a bad one fails before anything is sent; its module is loaded only when a run uses it).
 */
async function localCounts(inputs, deps) {
    const fromInput = (value, input) => value === undefined ? undefined : { value, source: `input ${input}`, read: false };
    const command = fromInput(inputs.commandCount, 'command-count');
    const server = fromInput(inputs.serverCount, 'server-count');
    const file = inputs.commandsFile;
    if (command !== undefined || file === undefined)
        return { command, server, warnings: [] };
    const { manifestCount } = await __nccwpck_require__.e(/* import() */ 106).then(__nccwpck_require__.bind(__nccwpck_require__, 3106));
    const manifest = await manifestCount(file, inputs, deps).catch((error) => {
        if (error instanceof errors/* ActionError */.lZ)
            error.headline ??= 'commands-file rejected';
        throw error;
    });
    const source = `commands-file ${file.given}${manifest.readFrom === 'repository' ? ' (from the repository)' : ''}`;
    return {
        command: { value: manifest.count, source, read: true },
        server,
        warnings: manifest.warnings
    };
}
/** Whether Discord has a count to fill in: a count is missing, and a token is given to read it. */
function needsDiscord(inputs, counts) {
    return (inputs.discordToken !== undefined &&
        (counts.command === undefined || counts.server === undefined));
}
/**
 * Fills in from Discord what needsDiscord found missing: only for an update that will be sent, so a
 * skip never depends on Discord.
 */
async function withDiscordCounts(inputs, counts, deps) {
    const { fillFromDiscord } = await __nccwpck_require__.e(/* import() */ 943).then(__nccwpck_require__.bind(__nccwpck_require__, 5943));
    return fillFromDiscord(inputs, inputs.discordToken, counts, deps);
}
/**
 * Leaves out a command count of 0 that a source read while the listing shows commands (or is
 * unknown): a bot with per-server commands has no global ones, a manifest listing none is a failed
 * build step, and either would erase the listing's count. A `command-count: 0` input is the user's
 * own word and is kept.
 */
function withoutErasure(counts, listing) {
    const { command } = counts;
    const listed = listing?.commands;
    if (command === undefined || !command.read || command.value !== 0 || listed === 0)
        return counts;
    const shown = listed === undefined
        ? "the listing's count could not be read to compare"
        : `the listing shows ${listed}`;
    const fix = command.source.startsWith('Discord')
        ? 'A bot that registers its commands per server has no global commands: set commands-file to the manifest your ' +
            'deploy script sends, to count those.'
        : 'A manifest that lists none usually means the wrong file or a build step that did not run: check the path and the build.';
    const warning = `The command count was left out: ${command.source} found no commands, and ${shown}; sending 0 would erase the ` +
        `count on the listing. ${fix} (command-count: 0 sends zero on purpose.)`;
    return { command: undefined, server: counts.server, warnings: [...counts.warnings, warning] };
}

;// CONCATENATED MODULE: ./src/stats/delivery.ts



/** How long a dropped update gets to land before the record is read again. */
const SETTLE_MS = 2_000;
/** A minute of leeway for the runner's clock against the service's update times. */
const ARRIVAL_LEEWAY_MS = 60_000;
/**
 * After a failure that may have delivered the update (no status line came back), reads the
 * public record again:
 * - `arrived`: a count sent was updated since just before the PATCH went out;
 * - `resend`: no update within 6 hours (margin included), so it did not arrive and a resend
 *   cannot be early;
 * - `not-arrived`: it did not arrive, but a resend is not safe: after a timeout (the service may
 *   still be working on it), or after an earlier update within the window;
 * - `unknown`: the record is unreadable, or a cached one (`Age` > 0), which cannot prove that
 *   something did not arrive.
 */
async function confirmDelivery(plan, deps, error, sentAt) {
    deps.log(`The stats update failed after it was sent (${error.message}); reading the public record to see whether it arrived.`);
    // After a timeout the service may still be working on the update (checking the server
    // count with Discord, say): a record read now could show the old time and a resend would
    // be early. So a timeout never leads to a resend; after a dropped connection, the read
    // waits a moment for whatever the service was doing to land.
    const timedOut = error.code === 'ETIMEDOUT';
    let fresh;
    try {
        if (!timedOut)
            await deps.requests.sleep(SETTLE_MS);
        fresh = await readPublicRecord(plan, deps);
    }
    catch (failure) {
        if (failure instanceof client/* DeadlineError */.j3)
            return 'unknown';
        throw failure;
    }
    if (!fresh.ok)
        return 'unknown';
    const times = [
        plan.body.command_count !== undefined && fresh.record.commandsUpdatedAt,
        plan.body.server_count !== undefined && fresh.record.serversUpdatedAt
    ];
    if (times.some(time => time instanceof Date && time.getTime() >= sentAt - ARRIVAL_LEEWAY_MS))
        return 'arrived';
    if (fresh.cached) {
        deps.log('The record came from a cache (Age > 0), so it cannot show that the update did not arrive.');
        return 'unknown';
    }
    const from = acceptsFrom(fresh);
    const resendable = from !== undefined && from.getTime() <= deps.requests.clock.now();
    return resendable && !timedOut ? 'resend' : 'not-arrived';
}

// EXTERNAL MODULE: external "node:fs"
var external_node_fs_ = __nccwpck_require__(3024);
;// CONCATENATED MODULE: ./src/stats/schedule.ts




/**
 * A schedule that never goes quiet (interface.md, 2026-11-29). In a public repository, GitHub
 * disables a workflow's schedule after 60 days without activity; no run then means no
 * stale-after and no error, and the listing's counts freeze. A run started by the schedule is
 * the one thing that can say so in time, so it does: loaded only on such a run, after the stats
 * run's own requests. It never writes to the repository: keeping a schedule alive artificially
 * is against GitHub's terms.
 */
const DAY_MS = 24 * 60 * 60 * 1000;
/** GitHub's rule: a public repository's schedules stop after 60 days without activity. */
const DISABLED_AFTER_DAYS = 60;
/** From then on a run warns: 15 days before the date, time for a push even on a weekly schedule. */
const WARN_FROM_DAYS = 45;
/** From then on, with stale-after set, the step fails: GitHub's failure e-mail comes in time. */
const FAIL_FROM_DAYS = 55;
/** The largest event payload read; a schedule's is a few kilobytes. */
const MAX_EVENT_BYTES = 1024 * 1024;
/**
 * The repository read, when the event names no last push: one try, since the next scheduled run
 * reads again days before the date matters, and a warning is not worth more of the step's time.
 */
const LAST_PUSH_POLICY = {
    ...client/* READ_DEFAULTS */.qW,
    name: "GitHub's API (the repository's last push)",
    attempts: 1,
    retryStatuses: []
};
/**
 * The stats run's outcome with what the schedule shows. From 55 days with stale-after set, the
 * step fails with the warning's sentence and how the stats run went as its one error; `result`
 * and the other outputs stay the stats run's.
 */
async function withScheduleCheck(settings, deps, outcome) {
    const schedule = await checkSchedule(settings, deps, outcome.at);
    if (schedule === undefined)
        return outcome;
    if (schedule.stage !== 'failing')
        return { ...outcome, schedule };
    const says = SCHEDULE_WORDS.failing.says(scheduleFactsOf({ ...outcome, schedule }, settings.botId), runWording(outcome.at));
    // A run that failed on its own keeps its headline; one that did not is headed by the schedule.
    return {
        ...outcome,
        schedule,
        error: new errors/* ActionError */.lZ(says, { headline: outcome.error?.headline })
    };
}
/**
 * What the repository's last push says about the schedule, or undefined when there is nothing to
 * say (a private repository, a push under 45 days ago, a run that was stopped).
 */
async function checkSchedule(settings, deps, now) {
    const event = eventRepository(settings.github.eventPath);
    // Only a public repository's schedules stop; the event says which it is.
    if (event.private === true)
        return undefined;
    const fromEvent = pushDate(event.pushed_at);
    if (fromEvent !== undefined)
        return event.private === false ? stageOf(fromEvent, now, settings.staleAfter) : undefined;
    const read = await readLastPush(settings, deps);
    if (read === undefined || 'reason' in read)
        return read;
    if ((event.private ?? read.private) !== false)
        return undefined;
    return stageOf(read.lastPush, now, settings.staleAfter);
}
/** The stage the last push puts the schedule at `now`; undefined under 45 days. */
function stageOf(lastPush, now, staleAfter) {
    const disabledAround = new Date(lastPush.getTime() + DISABLED_AFTER_DAYS * DAY_MS);
    const days = (now.getTime() - lastPush.getTime()) / DAY_MS;
    if (now >= disabledAround)
        return { stage: 'past', disabledAround, lastPush };
    // stale-after is the owner's word that a listing which stops updating should be loud.
    if (days >= FAIL_FROM_DAYS && staleAfter !== undefined)
        return { stage: 'failing', disabledAround, lastPush };
    if (days >= WARN_FROM_DAYS)
        return { stage: 'soon', disabledAround, lastPush };
    return undefined;
}
/**
 * `repository.pushed_at` as GitHub writes it: ISO text in a schedule's payload and the REST API,
 * seconds since 1970 in a push's. Undefined for anything else.
 */
function pushDate(value) {
    let ms = NaN;
    if (typeof value === 'number')
        ms = value * 1000;
    if (typeof value === 'string')
        ms = Date.parse(value);
    return Number.isFinite(ms) ? new Date(ms) : undefined;
}
/**
 * The event payload's `repository`: empty when the runner gave no payload, or one that is not a
 * regular file of JSON within its size. Read synchronously, as the runner's own small file: the
 * promise API would load eight more of Node's modules and start its thread pool, on every
 * scheduled run, for one read.
 */
function eventRepository(path) {
    if (path === undefined)
        return {};
    try {
        const found = (0,external_node_fs_.statSync)(path);
        if (!found.isFile() || found.size > MAX_EVENT_BYTES)
            return {};
        const event = JSON.parse((0,external_node_fs_.readFileSync)(path, 'utf8'));
        const repository = isObject(event) ? event['repository'] : undefined;
        return isObject(repository) ? repository : {};
    }
    catch {
        return {};
    }
}
/**
 * The one read of the repository (`GET /repos/{owner}/{repo}` with github-token), for an event
 * that names no last push. Refused, failed or cut off by the step's deadline: the reason, for
 * one notice. Stopped: undefined, and nothing is said.
 */
async function readLastPush(settings, deps) {
    const { token, repository, apiUrl } = settings.github;
    const unread = (reason) => ({ stage: 'unread', reason });
    if (token === undefined)
        return unread('no github-token');
    if (repository === undefined)
        return unread('GITHUB_REPOSITORY is not set');
    const { readRepository } = await Promise.all(/* import() */[__nccwpck_require__.e(119), __nccwpck_require__.e(413), __nccwpck_require__.e(584)]).then(__nccwpck_require__.bind(__nccwpck_require__, 4584));
    try {
        const found = await readRepository({ token, repository, apiUrl }, deps.requests, LAST_PUSH_POLICY);
        const lastPush = pushDate(found.pushed_at);
        if (lastPush === undefined)
            return unread("GitHub's answer names no last push");
        return { lastPush, private: found.private };
    }
    catch (error) {
        if (error instanceof errors/* StoppedError */.Ko)
            return undefined;
        if (error instanceof client/* DeadlineError */.j3)
            return unread("the step's timeout left no time for it");
        return unread(error instanceof Error ? error.message : String(error));
    }
}
function isObject(value) {
    return typeof value === 'object' && value !== null && !Array.isArray(value);
}

;// CONCATENATED MODULE: ./src/stats/update.ts












/**
 * How the update is sent. Not like a read: the service allows one update per 6 hours, an update
 * it refuses as early is a strike, and 5 strikes revoke the key. So the PATCH is sent again only
 * when the connection failed before the request could reach the service (refused, DNS, TLS
 * handshake), never after any answer; after a failure that may have delivered it (a reset or a
 * timeout once the request was out), only when a fresh read of the public record shows it did
 * not arrive (delivery.ts). It is sent with at least MIN_ATTEMPT_MS of the step's time left.
 */
const STATS_POLICY = {
    ...client/* READ_DEFAULTS */.qW,
    name: 'the stats update',
    attempts: 2,
    retryStatuses: [],
    retryNetwork: 'undelivered',
    minAttemptMs: client/* MIN_ATTEMPT_MS */.iD
};
/**
 * The stats mode: reads the counts given and the manifest, then the public record (the
 * cooldown check), and only when the update is due asks Discord and sends it. The record
 * check skips an update the service would refuse as early; when the record cannot be read for
 * a reason that may pass, nothing is sent (a blind update is a strike whenever the last one was
 * recent). A run that sends nothing still checks the key, with a request that spends no update.
 * The PATCH is never repeated after an answer (a received status line is one): see STATS_POLICY.
 * Returns an outcome for every expected end, a stop included; throws only for a bug.
 */
async function runStats(settings, deps) {
    const outcome = await statsRun(settings, deps);
    // A run started by the schedule warns before GitHub disables the schedule (interface.md, "A
    // schedule that never goes quiet"): after the run's own requests, never in front of the update.
    // A static import, unlike the other optional parts: most runs are scheduled, and loading it as a
    // chunk made such a run 2 % slower (paired bench, BENCH_EVENT=schedule: 0.817x against 0.799x
    // the fetch script), while a run of another event pays about 1 % for having it in the bundle.
    if (settings.github.eventName !== 'schedule')
        return outcome;
    return withScheduleCheck(settings, deps, outcome);
}
/** The stats run itself: an outcome for every expected end. */
async function statsRun(settings, deps) {
    const progress = {
        counts: undefined,
        record: undefined,
        body: {},
        delivery: 'not-sent',
        status: undefined,
        warnings: []
    };
    try {
        return await decide(settings, deps, progress);
    }
    catch (error) {
        if (error instanceof errors/* StoppedError */.Ko) {
            const message = `${error.message} ${whatWasSent(progress.delivery, progress.status, settings.dryRun)}`;
            return failed(deps, progress, new errors/* ActionError */.lZ(message, { headline: error.headline }));
        }
        if (error instanceof errors/* ActionError */.lZ)
            return failed(deps, progress, error);
        throw error;
    }
}
async function decide(settings, deps, progress) {
    progress.counts = await localCounts(settings, deps);
    logCounts(progress.counts, deps);
    progress.body = bodyOf(progress.counts);
    if (settings.cooldownCheck) {
        progress.record = await readPublicRecord(settings, deps);
        const held = holdBack(progress.record, settings.botId, now(deps));
        if (held !== undefined) {
            if (held.warning !== undefined)
                progress.warnings.push(held.warning);
            return notSent(settings, deps, progress, held.skip, held.nextUpdateAt);
        }
    }
    // The update is due: now, and only now, Discord is asked for what it fills in.
    const { record } = progress;
    if (needsDiscord(settings, progress.counts)) {
        progress.counts = await withDiscordCounts(settings, progress.counts, deps);
        logCounts(progress.counts, deps, 'Discord');
    }
    progress.counts = withoutErasure(progress.counts, record?.ok ? record.record : undefined);
    progress.body = bodyOf(progress.counts);
    if (progress.body.command_count === undefined && progress.body.server_count === undefined) {
        return notSent(settings, deps, progress, 'nothing', undefined);
    }
    // A dry run of a due update still says from when the record accepts one (already passed).
    if (settings.dryRun)
        return notSent(settings, deps, progress, undefined, record?.ok ? acceptsFrom(record) : undefined);
    return sendUpdate(settings, deps, progress);
}
/**
 * A run that sends no update: skipped (or a dry run). The key is still checked when there is
 * one, so that a wrong or replaced key fails the step now rather than at the next update.
 */
async function notSent(settings, deps, progress, skip, nextUpdateAt) {
    const keyCheck = settings.apiKey === undefined
        ? undefined
        : await (0,keys/* checkKey */.yR)({ ...settings, apiKey: settings.apiKey }, deps);
    if (keyCheck?.state === 'unchecked') {
        progress.warnings.push(`The API key could not be checked (${keyCheck.reason}); the next run will check it.`);
    }
    if (settings.dryRun) {
        // The set-up check: what in the workflow would cost a strike later. Cut off by the deadline
        // or a stop, the dry run fails as a real run would, naming what it did not check.
        const read = await workflowDiagnosis(settings, deps, 'dry-run');
        if (read.cut !== undefined)
            throw new errors/* ActionError */.lZ(`${read.cut} Nothing was sent (dry run).`, { headline: read.headline });
        if (read.shown !== undefined)
            progress.warnings.push(read.shown);
    }
    return {
        ...base(deps, progress),
        result: settings.dryRun ? 'dry-run' : 'skipped',
        skip,
        nextUpdateAt,
        keyCheck
    };
}
/**
 * Sends the update and ends the run by how it went: the service's answer, by its status, or a
 * connection that failed.
 */
async function sendUpdate(settings, deps, progress) {
    const sent = await deliver(settings, deps, progress);
    const ending = 'id' in sent ? sent : await judgeAnswer(settings, deps, progress, sent);
    return ended(settings, deps, progress, ending);
}
/**
 * The run's outcome from how the update ended. stale-after judges a passing failure of the service
 * here (`judgedByAge`); then a failure or a strike, which fail the step, carries its row's words
 * as its error.
 */
function ended(settings, deps, progress, { id: decided, workflow, stopped, ...fields }) {
    const decidedOutcome = { ...base(deps, progress), ...fields };
    const { id, staleAfter } = judgedByAge(settings, decidedOutcome, decided);
    const outcome = { ...decidedOutcome, staleAfter };
    const row = STATS_OUTCOMES[id];
    if (row.result !== 'failed' && row.result !== 'cooldown')
        return { ...outcome, result: row.result };
    const facts = factsOf(outcome, settings.botId, { workflow, stopped });
    const say = runWording(outcome.at);
    const error = new errors/* ActionError */.lZ(row.says(facts, say), { headline: row.headline(facts, say) });
    return { ...outcome, result: row.result, error };
}
/**
 * Sends the PATCH, and once more only when a fresh read of the record proves the first did not
 * arrive: the service's answer, or how the update ended without one.
 */
async function deliver(settings, deps, progress) {
    for (let resent = false;; resent = true) {
        const sentAt = deps.requests.clock.now();
        try {
            return await patch(settings, deps, progress.body);
        }
        catch (error) {
            // A stop that cut the PATCH off once it was out: it may have reached the service, and
            // when the answer's status line had come, the service did answer.
            if (error instanceof errors/* StoppedError */.Ko && error.inFlight) {
                progress.delivery = error.answeredStatus === undefined ? 'no-answer' : 'answered';
                progress.status = error.answeredStatus;
            }
            if (!(error instanceof transport/* NetworkError */.Dr))
                throw error;
            const cut = answerFromStatusLine(error);
            if (cut !== undefined) {
                deps.log(`The answer stopped after its status line (${error.message}); the service answered, so the update is not sent again.`);
                return cut;
            }
            // Nothing reached the service (on the first try, or on the resend that the record allowed).
            if (!error.delivered)
                return { id: 'unreachable', failure: error.message };
            progress.delivery = 'no-answer';
            if (resent)
                return { id: 'no-answer-twice', failure: error.message };
            const delivery = await confirmDelivery({ ...settings, body: progress.body }, deps, error, sentAt);
            if (delivery === 'arrived') {
                deps.log('The connection failed after the update was sent, but the public record shows it arrived.');
                progress.delivery = 'arrived';
                return { id: 'updated', nextUpdateAt: sixHoursFromNow(deps) };
            }
            // Not arrived, by the record, yet not safe to send again (the request timed out and the
            // service may still be working on it, or an earlier update is within 6 hours): a passing
            // failure, which stale-after judges by the listing's age like a 5xx.
            if (delivery === 'not-arrived')
                return { id: 'no-answer-not-arrived', failure: error.message };
            if (delivery === 'unknown')
                return { id: 'no-answer', failure: error.message };
            deps.log('The public record shows the update did not arrive and none is due before it; sending it once more.');
        }
    }
}
function patch(settings, deps, body) {
    if (settings.apiKey === undefined)
        throw new Error('an update needs the API key; settings guarantee it outside dry runs');
    deps.log(`Sending PATCH ${settings.baseUrl}/bots/${settings.botId}/stats with ${JSON.stringify(body)}`);
    return deps.requests.send({
        method: 'PATCH',
        url: `${settings.baseUrl}/bots/${settings.botId}/stats`,
        headers: (0,service/* keyedHeaders */.hk)(settings.apiKey),
        body: JSON.stringify(body)
    }, STATS_POLICY);
}
/**
 * What the service's answer to the PATCH means, by its status: the row of the outcomes' table that
 * words it.
 */
async function judgeAnswer(settings, deps, progress, answer) {
    progress.delivery = 'answered';
    progress.status = answer.status;
    const { status } = answer;
    const said = (0,service/* serviceMessage */.XK)(answer);
    deps.log(`The service answered ${status}${said === undefined ? '' : `: ${said}`}`);
    const answered = { status, answer: said };
    if (status >= 200 && status < 300)
        return { id: 'updated', ...answered, nextUpdateAt: sixHoursFromNow(deps) };
    if (status === 429 && kindOf429(answer) === 'limiter') {
        const nextUpdateAt = afterLimiter(deps, progress.record, answer);
        return { id: 'rate-limited', ...answered, nextUpdateAt, failure: answeredWith(status, said) };
    }
    if (status === 429)
        return { ...answered, ...(await strikeFound(settings, deps, progress)) };
    if (status === 400) {
        // The service names the command count when it refuses that; else the server count it checks
        // against Discord's, when one was sent.
        const serverCount = progress.body.server_count !== undefined && !/command/i.test(said ?? '');
        return { id: serverCount ? 'server-count-refused' : 'count-refused', ...answered };
    }
    // 401, 404 and 410 are about the key or the bot, read as the vote check and key check read them.
    const key = (0,keys/* keyAnswerOf */.$K)(status, said);
    if (key !== undefined)
        return { id: `key-${key}`, ...answered };
    if (status >= 300 && status < 400)
        return { id: 'redirect', ...answered };
    if (status >= 500)
        return { id: 'service-failed', ...answered, failure: answeredWith(status, said) };
    return { id: 'unexpected', ...answered };
}
/**
 * After the request limiter's 429 (turned away before the service looked at the update): try again
 * once the limiter's window has passed, or later if the record says the 6-hour window ends later.
 * Only the wait it named: RateLimit-Reset ends the limiter's window, which says nothing about
 * when an update is accepted (interface.md: never next-update-at's source).
 */
function afterLimiter(deps, record, answer) {
    const wait = (0,transport/* retryAfterMs */.Vs)(answer, { limiterReset: false });
    const fromLimiter = wait === undefined ? undefined : new Date(deps.requests.clock.now() + wait);
    const fromRecord = record?.ok ? acceptsFrom(record) : undefined;
    const next = [fromLimiter, fromRecord].filter((d) => d !== undefined && d > now(deps));
    return next.length === 0 ? undefined : new Date(Math.max(...next.map(d => d.getTime())));
}
/**
 * After the 6-hour refusal (a strike): what the fresh record read and the workflow around the step
 * show of its cause, unless the first day does or a stop came.
 */
async function strikeFound(settings, deps, progress) {
    const refusal = await afterRefusal(settings, deps, progress.record);
    const { strikeCause } = refusal.found;
    const read = refusal.stopped === undefined && strikeCause !== 'unverified'
        ? await workflowDiagnosis(settings, deps, strikeCause === 'unchecked' ? 'unchecked' : 'allowed')
        : {};
    return {
        id: `strike-${strikeCause}`,
        ...refusal.found,
        workflow: read.shown,
        stopped: refusal.stopped ?? read.cut
    };
}
/**
 * The service's passing failures (interface.md, "Scheduled runs"): a 5xx, its request limiter, no
 * connection after the record was read, no answer where a re-read shows the update did not arrive
 * (and none to the resend such a re-read allowed). The owner's failures (bad input, 400, 401, 404,
 * 410, a strike) are not among them: they fail at once, whatever stale-after says.
 */
const PASSING_FAILURES = new Set([
    'service-failed',
    'rate-limited',
    'unreachable',
    'no-answer-not-arrived',
    'no-answer-twice'
]);
/**
 * stale-after's judgement, the one place it judges: a passing failure of the service on a listing
 * younger than stale-after hours leaves the step green with its warning (`deferred`, or
 * `rate-limited` for the limiter's); on an older one the step fails, saying how long the listing
 * has gone without an update (`stale`). Off, the listing's age unknown, or another outcome: the
 * row stays as decided, and the run ends as it would without.
 */
function judgedByAge(settings, outcome, decided) {
    const last = outcome.record?.ok ? lastUpdate(outcome.record.record) : undefined;
    const { staleAfter } = settings;
    if (!PASSING_FAILURES.has(decided) || staleAfter === undefined || last === undefined)
        return { id: decided };
    if (outcome.at.getTime() - last.getTime() >= staleAfter * HOUR_MS)
        return { id: 'stale', staleAfter };
    return { id: decided === 'rate-limited' ? decided : 'deferred', staleAfter };
}
/**
 * What the workflow that ran the step shows, with its reader loaded only now; `cut` says why it
 * was not checked when a stop or the deadline came first. A bug is still a bug.
 */
async function workflowDiagnosis(settings, deps, evidence) {
    const { diagnoseWorkflow } = await __nccwpck_require__.e(/* import() */ 798).then(__nccwpck_require__.bind(__nccwpck_require__, 4798));
    try {
        return { shown: await diagnoseWorkflow(settings, deps, evidence) };
    }
    catch (error) {
        if (!(error instanceof errors/* StoppedError */.Ko || error instanceof client/* DeadlineError */.j3))
            throw error;
        return {
            cut: `${error.message} The workflow that ran this step was not checked.`,
            headline: error.headline
        };
    }
}
/** One log line per count, with its source; `only` logs just the counts read from that source. */
function logCounts(counts, deps, only) {
    for (const [label, count] of [
        ['Command count', counts.command],
        ['Server count', counts.server]
    ]) {
        if (count !== undefined && (only === undefined || count.source.startsWith(only)))
            deps.log(`${label}: ${count.value} (${count.source})`);
    }
}
function bodyOf(counts) {
    return { command_count: counts.command?.value, server_count: counts.server?.value };
}
function base(deps, progress) {
    return {
        counts: progress.counts,
        body: progress.body,
        delivery: progress.delivery,
        record: progress.record,
        status: progress.status,
        answer: undefined,
        nextUpdateAt: undefined,
        skip: undefined,
        overlap: undefined,
        strikeCause: undefined,
        keyCheck: undefined,
        failure: undefined,
        staleAfter: undefined,
        warnings: progress.warnings,
        error: undefined,
        at: now(deps)
    };
}
function failed(deps, progress, error) {
    return { ...base(deps, progress), result: 'failed', error };
}
function now(deps) {
    return new Date(deps.requests.clock.now());
}
/** After an update: 6 hours, and the clock margin, from now. */
function sixHoursFromNow(deps) {
    return new Date(deps.requests.clock.now() + COOLDOWN_MS + CLOCK_MARGIN_MS);
}

// EXTERNAL MODULE: ./src/secrets.ts
var secrets = __nccwpck_require__(7194);
;// CONCATENATED MODULE: ./src/main.ts









/**
 * A log line of the run's own, with text from outside in it: redacted, on one line, of bounded
 * length.
 */
const log = (line) => core/* info */.pq((0,src_text/* logText */.kc)(line));
/**
 * The action: settings, then the mode (stats or vote-check), then the mode's report (outputs,
 * annotations, job summary). The one place that decides whether the step fails. A cancelled
 * workflow or a runner's time limit ends the step with SIGINT, then SIGTERM: it fires the run's one
 * AbortSignal, and the mode reports exactly what it had sent and what was answered.
 */
async function run() {
    const stop = new AbortController();
    const onSignal = (signal) => stop.abort(new errors/* StoppedError */.Ko(signal));
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
    try {
        const settings = (0,src_settings/* readSettings */.sb)();
        for (const note of settings.notes)
            log(note);
        const requests = new client/* Requests */.lv({ attemptTimeoutMs: settings.requestTimeoutMs, totalMs: settings.timeoutMs }, client/* realClock */.dQ, stop.signal);
        const deps = { requests, log };
        // Vote-check mode is loaded only when it runs: a stats run loads nothing of it.
        let failure;
        if (settings.mode === 'stats') {
            failure = await reportStats(settings, await runStats(settings, deps));
        }
        else {
            const [{ runVotes }, { reportVotes }] = await Promise.all([
                __nccwpck_require__.e(/* import() */ 985).then(__nccwpck_require__.bind(__nccwpck_require__, 8985)),
                __nccwpck_require__.e(/* import() */ 83).then(__nccwpck_require__.bind(__nccwpck_require__, 4083))
            ]);
            failure = await reportVotes(settings, await runVotes(settings, deps));
        }
        if (failure !== undefined)
            core/* setFailed */.C1((0,src_text/* annotationText */.xr)(failure));
    }
    catch (error) {
        // Bad input, or a bug: nothing of a mode's own to report.
        const message = (0,src_text/* annotationText */.xr)(failureMessage(error));
        core/* setOutput */.uH('result', 'failed');
        core/* setFailed */.C1(message);
        const known = error instanceof errors/* ActionError */.lZ ? error : undefined;
        await (0,src_summary/* writeSection */.Zn)(summary => (0,src_summary/* failureSection */.mo)(summary, message, known?.botId, known === undefined ? 'internal error' : known.headline));
    }
    finally {
        process.off('SIGTERM', onSignal);
        process.off('SIGINT', onSignal);
    }
}
/** Expected failures carry a message for the user; anything else is a bug, reported as one. */
function failureMessage(error) {
    if (error instanceof errors/* ActionError */.lZ)
        return (0,secrets/* redact */.E$)(error.message);
    if (error instanceof Error && error.stack !== undefined)
        core/* debug */.Yz((0,src_text/* annotationText */.xr)(error.stack));
    const detail = error instanceof Error ? error.message : String(error);
    return (0,secrets/* redact */.E$)(`Unexpected internal error: ${detail}. Please report it with this log.`);
}


/***/ }),

/***/ 7194:
/***/ ((__unused_webpack_module, __webpack_exports__, __nccwpck_require__) => {

/* harmony export */ __nccwpck_require__.d(__webpack_exports__, {
/* harmony export */   E$: () => (/* binding */ redact),
/* harmony export */   FF: () => (/* binding */ proxyCredentials),
/* harmony export */   cl: () => (/* binding */ registerSecret),
/* harmony export */   wk: () => (/* binding */ unwrapSecret)
/* harmony export */ });
/* unused harmony exports FRAGMENT, addSecret, clearSecrets, maskSecret */
/**
 * The one owner of secrets: `registerSecret` masks a secret for the runner and remembers every
 * form of it; `redact` removes them from any text that came from outside before that text is
 * cut, escaped or printed (text.ts).
 *
 * The runner masks only the exact values registered, and not an escaped copy in the job summary.
 * So every form a program produces of each secret is replaced here, and so is any run of at least
 * FRAGMENT characters copied from one: a service that quotes half a key has leaked half a key. A
 * form deliberately disguised (other invisible characters, fullwidth letters) is out of scope:
 * only a party that already holds the secret could write it (SECURITY.md).
 *
 * Two passes, both linear in the text (it may be a megabyte): the text as it is, against the
 * forms as they are; and the text as `read` reads it (escapes decoded, case folded, cuts left
 * out), against the same forms read alike, plus the byte encodings (hex, base64 at each alignment).
 */
/** The shortest piece of a secret that counts as a leak on its own. */
const FRAGMENT = 10;
/**
 * A form shorter than FRAGMENT is replaced only whole, and only from this length: shorter ones are
 * too common.
 */
const MIN_WHOLE = 4;
/**
 * Forms shorter than FRAGMENT (matched whole) and every FRAGMENT-character window of the others, as
 * they are and as `read` reads them.
 */
const asIs = { whole: new Set(), pieces: new Set() };
const asRead = { whole: new Set(), pieces: new Set() };
function remember(forms, form) {
    if (form.length >= MIN_WHOLE && form.length < FRAGMENT)
        forms.whole.add(form);
    for (let i = 0; i + FRAGMENT <= form.length; i++)
        forms.pieces.add(form.slice(i, i + FRAGMENT));
}
/**
 * Remembers every form of a secret for `redact`. Returns the forms a log line could carry (as it
 * is, URL- or JSON-encoded) for the runner's masks, which are set for the whole secret only.
 */
function addSecret(secret) {
    if (secret.length === 0)
        return [];
    const bytes = Buffer.from(secret, 'utf8');
    const logged = [secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)];
    const escaped = [
        secret
            .replace(/&/g, '&amp;')
            .replace(/</g, '&lt;')
            .replace(/>/g, '&gt;')
            .replace(/"/g, '&quot;'),
        secret.replace(/([\\`*_[\]|~#!():@<>&"])/g, '\\$1'),
        bytes.toString('base64').replace(/=+$/, '')
    ];
    // Read, the URL-encoded form is the secret's UTF-8 bytes, one character each: a copy
    // percent-encoded or in `\x` escapes, byte by byte, reads the same.
    for (const form of [...logged, ...escaped]) {
        remember(asIs, form);
        remember(asRead, read(form).text);
    }
    for (const form of [bytes.toString('hex'), ...base64Interiors(bytes)])
        remember(asRead, read(form).text);
    return [...new Set(logged)];
}
/**
 * The base64 characters that depend on the secret's bytes alone (not a neighbour's bits), with 0,
 * 1 or 2 bytes of other text before it, in the standard and the URL-safe alphabet.
 */
function base64Interiors(bytes) {
    const interiors = [];
    for (let before = 0; before < 3; before++) {
        const encoded = Buffer.concat([Buffer.alloc(before), bytes]).toString('base64');
        const interior = encoded.slice(Math.ceil((before * 8) / 6), Math.floor(((before + bytes.length) * 8) / 6));
        interiors.push(interior, interior.replace(/\+/g, '-').replace(/\//g, '_'));
    }
    return interiors;
}
/** Forgets every secret (tests only). */
function clearSecrets() {
    for (const set of [asIs.whole, asIs.pieces, asRead.whole, asRead.pieces])
        set.clear();
}
/**
 * `text` with every secret form, and every run of FRAGMENT or more characters copied from one,
 * replaced by `***`.
 */
function redact(text) {
    if ([asIs, asRead].every(forms => forms.whole.size + forms.pieces.size === 0))
        return text;
    // +1 where a span to replace starts, -1 where it ends: marking stays linear however the spans
    // overlap.
    const marks = new Int32Array(text.length + 1);
    const mark = (from, to) => {
        marks[from] += 1;
        marks[to] -= 1;
    };
    find(asIs, text, mark);
    const reading = read(text);
    // A span found in the text as read is mapped back to the original: it starts where its first
    // character was read from and ends where its last one was read from (`to` is past the span, so
    // its last character is `to - 1`). An escape, or a lower case of two characters, is thus
    // replaced whole however little of it the span takes, and cuts inside the span go with it.
    find(asRead, reading.text, (from, to) => mark(reading.start[from], reading.end[to - 1]));
    // Where the running sum of the marks turns positive a replaced stretch starts, and where it falls
    // back to zero the stretch ends: overlapping spans make one `***`.
    let out = '';
    let depth = 0;
    let from = 0;
    for (let i = 0; i < text.length; i++) {
        const before = depth;
        depth += marks[i];
        if (before === 0 && depth > 0)
            out += text.slice(from, i) + '***';
        else if (before > 0 && depth === 0)
            from = i;
    }
    return depth > 0 ? out : out + text.slice(from);
}
/** Calls `mark` with the span of each copy of a form, or of a window of one, in `text`. */
function find(forms, text, mark) {
    for (const form of forms.whole) {
        for (let at = text.indexOf(form); at !== -1; at = text.indexOf(form, at + 1))
            mark(at, at + form.length);
    }
    for (let i = 0; i + FRAGMENT <= text.length; i++)
        if (forms.pieces.has(text.slice(i, i + FRAGMENT)))
            mark(i, i + FRAGMENT);
}
/**
 * What cuts a secret where it is wrapped or hyphenated: white space, line breaks, zero-width
 * spaces, soft hyphens.
 */
const CUT = /[\s\u200b\u00ad]/;
/**
 * A cut, or one escape of a character as programs write them: `%6B`; `&#107;`, `&#x6b;` (the
 * `;` may be left out, leading zeros allowed); `\u006B`, `\u{6b}`, `\x6b`, with the backslash
 * doubled as in a JSON string (`\\u006b`). A run of backslashes is matched whole, escape or not,
 * so that no run is read twice.
 */
const TOKEN = new RegExp(String.raw `${CUT.source}|%([0-9a-f]{2})|&#(?:x0*([0-9a-f]{1,6})|0*(\d{1,7}));?|\\+(?:u\{0*([0-9a-f]{1,6})\}|u([0-9a-f]{4})|x([0-9a-f]{2}))?`, 'gi');
/**
 * `text` as the second pass reads it: escapes decoded (the two `\u` escapes of a surrogate pair
 * read as one character), case folded, cuts left out. `start` and `end` give, for each character
 * read, the span of `text` it was read from.
 */
function read(text) {
    // No character reads as more than one, but `İ`, whose lower case is two (`i` and a dot above).
    const size = text.length + text.split('\u0130').length - 1;
    const start = new Int32Array(size);
    const end = new Int32Array(size);
    let out = '';
    const add = (char, from, to) => {
        if (CUT.test(char))
            return;
        const lower = char.toLowerCase();
        start.fill(from, out.length, out.length + lower.length);
        end.fill(to, out.length, out.length + lower.length);
        out += lower;
    };
    const plain = (chars, from) => {
        const lower = chars.toLowerCase();
        if (lower.length !== chars.length) {
            for (const char of chars)
                add(char, from, (from += char.length));
            return;
        }
        for (let k = 0; k < chars.length; k++) {
            start[out.length + k] = from + k;
            end[out.length + k] = from + k + 1;
        }
        out += lower;
    };
    let next = 0;
    for (const match of text.matchAll(TOKEN)) {
        const [token, percent, hexReference, decimalReference, braced, u, x] = match;
        plain(text.slice(next, match.index), next);
        next = match.index + token.length;
        const point = codePoint(percent ?? hexReference ?? braced ?? u ?? x, decimalReference);
        if (point >= 0 && point <= 0x10ffff)
            add(String.fromCodePoint(point), match.index, next);
        // Not a cut, and no escape (a run of backslashes alone, a reference past U+10FFFF): as it is.
        else if (!CUT.test(token))
            plain(token, match.index);
    }
    plain(text.slice(next), next);
    return { text: out, start, end };
}
/** The code point an escape names, in hex or in decimal; -1 for a token that is no escape. */
function codePoint(hex, decimal) {
    if (hex !== undefined)
        return parseInt(hex, 16);
    if (decimal !== undefined)
        return Number(decimal);
    return -1;
}
/**
 * A secret as people paste it, taken apart: `NAME=` in front (a `.env` line), quotes around it, a
 * scheme word (`Bot …`, `Bearer …`). `extra` says in words what was around it and what is left
 * inside it that a key or token never holds (quotes, `=`, white space).
 */
function unwrapSecret(text) {
    const extra = [];
    let value = text;
    const take = (pattern, what) => {
        const match = pattern.exec(value);
        if (match === null)
            return;
        extra.push(what(match));
        value = match.at(-1);
    };
    take(/^(?:export\s+)?[A-Za-z_]\w*\s*=\s*(\S[\s\S]*)$/, () => 'a variable name and "=" in front');
    take(/^(["'`])([\s\S]*)\1$/, () => 'quotes around it');
    take(/^(Bot|Bearer)\s+([\s\S]*)$/i, match => `the word "${match[1]}" in front`);
    const inside = [
        /["'`]/.test(value) && 'quotes',
        value.includes('=') && '"="',
        /\s/.test(value) && 'white space'
    ].filter(Boolean);
    if (inside.length > 0)
        extra.push(`${inside.join(', ')} inside it`);
    return { value, extra };
}
/** Shorter lines of a secret are not masked on their own: they could be common words. */
const MIN_MASKED_PART = 8;
/**
 * Masks a secret whole (never a word in it), without what was pasted around it, and each long line:
 * the runner masks by line.
 */
function maskSecret(secret, mask) {
    if (secret === '')
        return;
    const parts = new Set([secret]);
    const { value } = unwrapSecret(secret);
    if (value.length >= MIN_MASKED_PART)
        parts.add(value);
    for (const line of secret.split(/\r?\n/))
        if (line.trim().length >= MIN_MASKED_PART)
            parts.add(line.trim());
    for (const part of parts)
        mask(part);
}
/**
 * A proxy's credentials (`https_proxy=http://user:password@host`): the password and user:password,
 * as written and decoded.
 */
function proxyCredentials(env) {
    const found = new Set();
    for (const name of ['https_proxy', 'HTTPS_PROXY', 'http_proxy', 'HTTP_PROXY']) {
        const value = env[name];
        if (!value || !URL.canParse(value))
            continue;
        const url = new URL(value);
        if (url.password === '')
            continue;
        for (const text of [url.password, `${url.username}:${url.password}`]) {
            found.add(text);
            try {
                found.add(decodeURIComponent(text));
            }
            catch {
                // Not valid percent-encoding: only the form as written can appear.
            }
        }
    }
    return [...found];
}
/**
 * The one call that makes a secret safe: masks it for the runner (`core.setSecret`) and remembers
 * every form of it for `redact`. A refused value is still a secret: called before any validation.
 */
function registerSecret(secret, setSecret) {
    maskSecret(secret, part => {
        for (const form of addSecret(part))
            setSecret(form);
    });
}


/***/ }),

/***/ 448:
/***/ ((__unused_webpack_module, __webpack_exports__, __nccwpck_require__) => {

/* harmony export */ __nccwpck_require__.d(__webpack_exports__, {
/* harmony export */   XK: () => (/* binding */ serviceMessage),
/* harmony export */   ZV: () => (/* binding */ isVoteAnswer),
/* harmony export */   cg: () => (/* binding */ serviceError),
/* harmony export */   hk: () => (/* binding */ keyedHeaders)
/* harmony export */ });
/* harmony import */ var _text_js__WEBPACK_IMPORTED_MODULE_0__ = __nccwpck_require__(8992);
/* harmony import */ var _version_js__WEBPACK_IMPORTED_MODULE_1__ = __nccwpck_require__(1013);


/**
 * What both modes know of the service: a keyed request's headers, its own words in an answer (the
 * key check: keys.ts).
 */
/** Headers of a request that carries the key: the bare key, no scheme word (the service's rule). */
function keyedHeaders(apiKey) {
    return {
        Authorization: apiKey,
        'Content-Type': 'application/json',
        Accept: 'application/json',
        'User-Agent': _version_js__WEBPACK_IMPORTED_MODULE_1__/* .USER_AGENT */ ._O
    };
}
/** The service's `error` text when it sent one (redacted, on one line, cut short). */
function serviceError(answer) {
    const json = answer.json;
    return typeof json?.error === 'string' && json.error.trim() !== ''
        ? (0,_text_js__WEBPACK_IMPORTED_MODULE_0__/* .excerpt */ .Kb)(json.error, 300)
        : undefined;
}
/**
 * The service's `error` text, else a short description of an answer that is not the service's JSON.
 */
function serviceMessage(answer) {
    const said = serviceError(answer);
    if (said !== undefined || answer.text.trim() === '' || answer.json !== undefined)
        return said;
    const type = String(answer.headers['content-type'] ?? 'unknown type').split(';')[0];
    const size = answer.truncated ? 'a large body' : `${Buffer.byteLength(answer.text)} bytes`;
    return `a non-JSON answer (${type}, ${size})`;
}
/** The vote route's own answer: a JSON object with a boolean `voted` (the live service's shape). */
function isVoteAnswer(json) {
    return (typeof json === 'object' &&
        json !== null &&
        typeof json.voted === 'boolean');
}


/***/ }),

/***/ 8750:
/***/ ((__unused_webpack_module, __webpack_exports__, __nccwpck_require__) => {

/* harmony export */ __nccwpck_require__.d(__webpack_exports__, {
/* harmony export */   Ql: () => (/* binding */ DEFAULT_BASE_URL),
/* harmony export */   sb: () => (/* binding */ readSettings)
/* harmony export */ });
/* unused harmony exports REUSABLE_WORKFLOW_MARK, parseSettings, tokenBotId */
/* harmony import */ var node_path__WEBPACK_IMPORTED_MODULE_0__ = __nccwpck_require__(6760);
/* harmony import */ var node_path__WEBPACK_IMPORTED_MODULE_0___default = /*#__PURE__*/__nccwpck_require__.n(node_path__WEBPACK_IMPORTED_MODULE_0__);
/* harmony import */ var _actions_core__WEBPACK_IMPORTED_MODULE_4__ = __nccwpck_require__(5049);
/* harmony import */ var _errors_js__WEBPACK_IMPORTED_MODULE_1__ = __nccwpck_require__(3916);
/* harmony import */ var _secrets_js__WEBPACK_IMPORTED_MODULE_2__ = __nccwpck_require__(7194);
/* harmony import */ var _text_js__WEBPACK_IMPORTED_MODULE_3__ = __nccwpck_require__(8992);
/* harmony import */ var _limits_js__WEBPACK_IMPORTED_MODULE_5__ = __nccwpck_require__(351);






const DEFAULT_BASE_URL = 'https://api.discord.place';
/**
 * Set by the reusable workflow (stats.yml) on its step: inside it, GITHUB_WORKFLOW_REF names the
 * caller's workflow.
 */
const REUSABLE_WORKFLOW_MARK = 'DISCORD_PLACE_STATS_REUSABLE_WORKFLOW';
/**
 * Reads and validates every input, masking the secrets first: the only caller of `core.getInput`.
 */
function readSettings() {
    return parseSettings(_actions_core__WEBPACK_IMPORTED_MODULE_4__/* .getInput */ .V4, secret => (0,_secrets_js__WEBPACK_IMPORTED_MODULE_2__/* .registerSecret */ .cl)(secret, _actions_core__WEBPACK_IMPORTED_MODULE_4__/* .setSecret */ .Pq), process.env);
}
/**
 * Builds Settings from raw inputs. Secrets are handed to `mask` before any validation, so that
 * no later message can print them. Throws an InputError for the first bad input.
 */
function parseSettings(raw, mask, env = {}) {
    try {
        return parseAll(raw, mask, env);
    }
    catch (error) {
        // The failed run's headline names the bot when its ID is valid (it is read first).
        if (error instanceof _errors_js__WEBPACK_IMPORTED_MODULE_1__/* .ActionError */ .lZ && SNOWFLAKE.test(raw('bot-id')))
            error.botId ??= raw('bot-id');
        throw error;
    }
}
/**
 * An empty key's fix fits the caller. A caller of the reusable workflow most often gave
 * `secrets: inherit`, which passes nothing to a workflow of another owner (a personal account's
 * repository calling this one), so its fix is to pass the secret by name.
 */
function emptyApiKey(inReusableWorkflow) {
    const fix = inReusableWorkflow
        ? 'The calling workflow passes it by name: secrets: DISCORD_PLACE_API_KEY: ${{ secrets.DISCORD_PLACE_API_KEY }} ' +
            '(secrets: inherit passes nothing to a workflow of another owner).'
        : "Pass the bot's API key from a repository secret, for example api-key: ${{ secrets.DISCORD_PLACE_API_KEY }} " +
            "(create the key on the bot's manage page on discord.place).";
    return new _errors_js__WEBPACK_IMPORTED_MODULE_1__/* .InputError */ .dz('api-key', 'is empty', `${fix} Secrets are not given to workflows run from forks.`);
}
function parseAll(raw, mask, env) {
    const apiKey = raw('api-key');
    const discordToken = raw('discord-token');
    const githubToken = parseGitHubToken(raw('github-token'));
    for (const secret of [apiKey, discordToken, githubToken, ...(0,_secrets_js__WEBPACK_IMPORTED_MODULE_2__/* .proxyCredentials */ .FF)(env)])
        if (secret !== '')
            mask(secret);
    // Every other input is echoed in messages: none may carry a line break (`::` after one is a
    // workflow command).
    const get = oneLineInputs(raw);
    const botId = parseSnowflake('bot-id', get('bot-id'));
    const mode = parseMode(get('mode'));
    const dryRun = parseBoolean('dry-run', get('dry-run'));
    const cooldownCheck = parseBoolean('cooldown-check', get('cooldown-check'));
    const baseUrl = parseServiceUrl('base-url', get('base-url'), DEFAULT_BASE_URL);
    if (apiKey === '' && !dryRun)
        throw emptyApiKey(env[REUSABLE_WORKFLOW_MARK] === 'true');
    refuseMisplacedSecrets(apiKey, discordToken, githubToken, botId);
    const key = headerSafe('api-key', apiKey, "Copy the key again from the bot's manage page on discord.place and store it in the secret as a single line.");
    const timeoutMs = seconds('timeout', get('timeout'), 900, MAX_TIMEOUT_SECONDS);
    const requestTimeoutMs = seconds('request-timeout', get('request-timeout'), 30, MAX_TIMEOUT_SECONDS);
    // request-timeout has a default (30 s): a workflow that sets only a short timeout is not refused
    // for it, the request time is cut to the step's, and the log says so.
    const notes = [];
    if (requestTimeoutMs > timeoutMs) {
        notes.push(`request-timeout (${requestTimeoutMs / 1000} s) is longer than timeout (${timeoutMs / 1000} s), ` +
            `so each request may take at most ${timeoutMs / 1000} s, the time the whole step may take.`);
    }
    const common = {
        botId,
        apiKey: key,
        baseUrl,
        dryRun,
        requestTimeoutMs: Math.min(requestTimeoutMs, timeoutMs),
        timeoutMs,
        notes: Object.freeze(notes)
    };
    if (mode === 'stats') {
        refuseOtherMode(get, VOTE_INPUTS, 'vote-check');
        return Object.freeze({
            ...common,
            mode,
            cooldownCheck,
            ...parseStatsInputs(get, env, githubToken)
        });
    }
    refuseOtherMode(get, STATS_INPUTS, 'stats');
    const failIfNotVoted = parseBoolean('fail-if-not-voted', get('fail-if-not-voted'));
    const userIds = parseUserIds(get('user-id'));
    const wait = parseCount('rate-limit-wait', get('rate-limit-wait'), MAX_RATE_LIMIT_WAIT_SECONDS, "the action's");
    return Object.freeze({
        ...common,
        mode,
        userIds,
        failIfNotVoted,
        rateLimitWaitMs: (wait ?? 600) * 1000
    });
}
const STATS_INPUTS = [
    'command-count',
    'server-count',
    'commands-file',
    'discord-token',
    'count-subcommands',
    'stale-after'
];
const VOTE_INPUTS = ['user-id', 'fail-if-not-voted'];
/**
 * An input of the other mode is most likely a mistake (a copied step), so it is refused, not
 * ignored; a false boolean is unset.
 */
function refuseOtherMode(get, inputs, mode) {
    for (const input of inputs) {
        const value = get(input);
        if (value === '' || FALSE.includes(value))
            continue;
        throw new _errors_js__WEBPACK_IMPORTED_MODULE_1__/* .InputError */ .dz(input, `is set, but it belongs to mode: ${mode}`, `Remove it, or set mode: ${mode}.`);
    }
}
function parseStatsInputs(get, env, githubToken) {
    const staleAfter = get('stale-after');
    if (staleAfter !== '' &&
        !(/^\d+$/.test(staleAfter) && Number(staleAfter) >= 7 && Number(staleAfter) <= 720)) {
        throw new _errors_js__WEBPACK_IMPORTED_MODULE_1__/* .InputError */ .dz('stale-after', `must be a whole number of hours from 7 to 720, got ${show(staleAfter)}`, 'Write it like 48, a few schedule periods long, or leave it empty.');
    }
    const countSubcommands = parseBoolean('count-subcommands', get('count-subcommands'));
    const commandCount = parseCount('command-count', get('command-count'), _limits_js__WEBPACK_IMPORTED_MODULE_5__/* .COMMAND_COUNT_MAX */ .T);
    const serverCount = parseCount('server-count', get('server-count'), _limits_js__WEBPACK_IMPORTED_MODULE_5__/* .SERVER_COUNT_MAX */ .Z);
    const commandsFile = get('commands-file');
    if (commandsFile !== '' && commandCount !== undefined) {
        throw new _errors_js__WEBPACK_IMPORTED_MODULE_1__/* .InputError */ .dz('commands-file', "cannot be combined with 'command-count': both give the command count", 'Keep one of them: commands-file to count the manifest, or command-count to send a fixed number.');
    }
    // A bot token goes into a header: printable ASCII only (what it may hold is checked with the
    // other secrets).
    const token = headerSafe('discord-token', get('discord-token'), 'Copy the token again from the Bot page of the Discord Developer Portal and store it in the secret as a single line.');
    const discordApiUrl = token === undefined
        ? ''
        : parseServiceUrl('discord-api-url', get('discord-api-url'), 'https://discord.com/api/v10');
    if (countSubcommands && commandsFile === '' && token === undefined) {
        throw new _errors_js__WEBPACK_IMPORTED_MODULE_1__/* .InputError */ .dz('count-subcommands', 'is true, but it only applies to counts read from commands-file or discord-token', 'Set commands-file or discord-token, or remove count-subcommands.');
    }
    if (commandCount === undefined &&
        serverCount === undefined &&
        commandsFile === '' &&
        token === undefined) {
        throw new _errors_js__WEBPACK_IMPORTED_MODULE_1__/* .ActionError */ .lZ("Inputs 'command-count', 'server-count', 'commands-file' and 'discord-token' are all empty, so there is no " +
            'count to send. Set at least one of them, for example command-count: 42.', { headline: 'no count to send' });
    }
    const workspace = env['GITHUB_WORKSPACE'] || process.cwd();
    const gitHubToken = headerSafe('github-token', githubToken, 'Pass a GitHub token, for example the default ${{ github.token }}.');
    return {
        staleAfter: staleAfter === '' ? undefined : Number(staleAfter),
        commandCount,
        serverCount,
        commandsFile: commandsFile === ''
            ? undefined
            : { given: commandsFile, path: (0,node_path__WEBPACK_IMPORTED_MODULE_0__.resolve)(workspace, commandsFile) },
        countSubcommands,
        discordToken: token,
        discordApiUrl,
        github: Object.freeze({
            token: gitHubToken,
            workspace,
            repository: env['GITHUB_REPOSITORY'] || undefined,
            sha: env['GITHUB_SHA'] || undefined,
            apiUrl: parseGitHubApiUrl(env['GITHUB_API_URL'], gitHubToken),
            inReusableWorkflow: env[REUSABLE_WORKFLOW_MARK] === 'true',
            workflowRef: env['GITHUB_WORKFLOW_REF'] || undefined,
            workflowSha: env['GITHUB_WORKFLOW_SHA'] || undefined,
            job: env['GITHUB_JOB'] || undefined,
            eventName: env['GITHUB_EVENT_NAME'] || undefined,
            eventPath: env['GITHUB_EVENT_PATH'] || undefined
        })
    };
}
const MAX_TIMEOUT_SECONDS = 6 * 3_600;
/** A duration input in whole seconds, at least 1; the default when unset. */
function seconds(input, raw, fallback, max) {
    if (raw === '')
        return fallback * 1000;
    if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > max) {
        throw new _errors_js__WEBPACK_IMPORTED_MODULE_1__/* .InputError */ .dz(input, `must be a whole number of seconds from 1 to ${max}, got ${show(raw)}`, `Write it like ${fallback}.`);
    }
    return Number(raw) * 1000;
}
/**
 * The most users one run checks; at the live service's 100 checks per 5 minutes, already 50
 * minutes.
 */
const MAX_USERS = 1_000;
const MAX_RATE_LIMIT_WAIT_SECONDS = 3_600;
/** One or more user IDs separated by commas, spaces or newlines; duplicates dropped, order kept. */
function parseUserIds(raw) {
    const ids = raw.split(/[\s,]+/).filter(id => id !== '');
    if (ids.length === 0) {
        throw new _errors_js__WEBPACK_IMPORTED_MODULE_1__/* .InputError */ .dz('user-id', 'is empty, and mode: vote-check needs at least one user', 'Set user-id to one or more Discord user IDs, separated by commas, spaces or newlines.');
    }
    const bad = ids.findIndex(id => !SNOWFLAKE.test(id));
    if (bad >= 0) {
        throw new _errors_js__WEBPACK_IMPORTED_MODULE_1__/* .InputError */ .dz('user-id', `has ${show(ids[bad])} (entry ${bad + 1}), which is not a Discord user ID of 17 to 20 digits`, 'Give user IDs (Developer Mode in Discord, then Copy User ID), separated by commas, spaces or newlines.');
    }
    const unique = [...new Set(ids)];
    if (unique.length > MAX_USERS) {
        throw new _errors_js__WEBPACK_IMPORTED_MODULE_1__/* .InputError */ .dz('user-id', `lists ${unique.length} users, more than the ${MAX_USERS} one run checks`, 'Split the users over several steps or runs.');
    }
    return Object.freeze(unique);
}
/** User IDs may be separated by newlines; secrets are checked by headerSafe. */
const MULTILINE_INPUTS = new Set(['user-id', 'api-key', 'discord-token', 'github-token']);
function oneLineInputs(get) {
    return name => {
        const value = get(name);
        const bad = MULTILINE_INPUTS.has(name) ? -1 : value.search(_text_js__WEBPACK_IMPORTED_MODULE_3__/* .CONTROL_CHARACTER */ .gW);
        if (bad >= 0) {
            throw new _errors_js__WEBPACK_IMPORTED_MODULE_1__/* .InputError */ .dz(name, `contains a line break or another control character (at character ${bad + 1})`, 'Give the value on one line, without control characters; in YAML, quote it or use a plain scalar.');
        }
        return value;
    };
}
/**
 * Local runners (`@github/local-action`, act) pass the default `${{ github.token }}` unexpanded:
 * that is no token.
 */
function parseGitHubToken(raw) {
    return /^\$\{\{[^}]*\}\}$/.test(raw) ? '' : raw;
}
function parseMode(raw) {
    if (raw === 'stats' || raw === 'vote-check')
        return raw;
    throw new _errors_js__WEBPACK_IMPORTED_MODULE_1__/* .InputError */ .dz('mode', `must be "stats" or "vote-check", got ${show(raw)}`, 'Use mode: stats to update the counts, or mode: vote-check to check votes.');
}
const FALSE = ['false', 'False', 'FALSE'];
/** YAML 1.2 core-schema booleans, as `core.getBooleanInput` takes them, with a one-line error. */
function parseBoolean(input, raw) {
    if (['true', 'True', 'TRUE'].includes(raw))
        return true;
    if (FALSE.includes(raw))
        return false;
    throw new _errors_js__WEBPACK_IMPORTED_MODULE_1__/* .InputError */ .dz(input, `must be true or false, got ${show(raw)}`, `Write ${input}: true or ${input}: false.`);
}
/** A Discord ID: 17 to 20 decimal digits (the OpenAPI document's DiscordSnowflake). */
const SNOWFLAKE = /^\d{17,20}$/;
function parseSnowflake(input, raw) {
    if (raw === '') {
        throw new _errors_js__WEBPACK_IMPORTED_MODULE_1__/* .InputError */ .dz(input, 'is empty', "Set it to the bot's Discord ID, 17 to 20 digits (Developer Portal, Application ID).");
    }
    // An unquoted ID in YAML is a number, and a number that large arrives rounded, as
    // 1.2345678901234568e+17.
    if (/^\d+(?:\.\d+)?(?:e\+?\d+)?$/i.test(raw) && !/^\d+$/.test(raw)) {
        throw new _errors_js__WEBPACK_IMPORTED_MODULE_1__/* .InputError */ .dz(input, `looks like a number that YAML rounded (${show(raw)})`, `YAML read this as a number: put the ID in quotes, for example ${input}: '123456789012345678'.`);
    }
    if (!SNOWFLAKE.test(raw)) {
        throw new _errors_js__WEBPACK_IMPORTED_MODULE_1__/* .InputError */ .dz(input, `must be a Discord ID of 17 to 20 digits, got ${show(raw)}`, "Copy the bot's Application ID from the Discord Developer Portal or from its page on discord.place.");
    }
    return raw;
}
/**
 * A count in plain decimal digits within range: `12.5`, `1e3`, `0x10` and `-1` are refused, not
 * rounded.
 */
function parseCount(input, raw, max, whose = "the service's") {
    if (raw === '')
        return undefined;
    const range = `a whole number from 0 to ${max}`;
    if (!/^\d+$/.test(raw)) {
        throw new _errors_js__WEBPACK_IMPORTED_MODULE_1__/* .InputError */ .dz(input, `must be ${range} written in plain digits, got ${show(raw)}`, 'Write it like 42: no sign, decimal point, exponent, hex prefix or thousands separator.');
    }
    const value = Number(raw);
    if (value > max)
        throw new _errors_js__WEBPACK_IMPORTED_MODULE_1__/* .InputError */ .dz(input, `is ${show(raw)}, above ${whose} maximum of ${max}`, `Send ${range}.`);
    return value;
}
/**
 * A discord.place key (64 hexadecimal digits) anywhere in a value, not touching more of them:
 * `KEY,`, `<KEY>`, `NAME:KEY`. A Discord token never holds one, its parts being shorter.
 */
const PLACE_KEY = /(?<![0-9a-f])[0-9a-f]{64}(?![0-9a-f])/i;
/**
 * The bot ID a Discord bot token names (three base64url parts, the first an ID), or undefined for
 * another shape.
 */
function tokenBotId(text) {
    const parts = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/.exec(text);
    if (parts === null)
        return undefined;
    const id = Buffer.from(parts[1], 'base64url').toString('latin1');
    return SNOWFLAKE.test(id) ? id : undefined;
}
/**
 * A Discord bot token anywhere in a value (`TOKEN,`, `x.TOKEN`, `<TOKEN>`, `NAME:TOKEN`): any
 * three dot-separated parts in a row whose first names a bot ID. No discord.place key holds one
 * by chance, so such a value is the token, pasted with something around it.
 */
function holdsToken(text) {
    for (const [run] of text.matchAll(/[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+){2,}/g)) {
        const parts = run.split('.');
        for (let i = 0; i + 3 <= parts.length; i++)
            if (tokenBotId(parts.slice(i, i + 3).join('.')) !== undefined)
                return true;
    }
    return false;
}
/** What each secret's refusal asks the person to store, in the order they are checked. */
const STORE_ALONE = {
    'api-key': "Store only the key in the secret, as the bot's manage page on discord.place shows it; the action sends it as it is.",
    'discord-token': 'Store only the token in the secret, as the Bot page of the Discord Developer Portal shows it; the action adds the "Bot " prefix.',
    'github-token': 'Pass only the token, for example the default ${{ github.token }}.'
};
/** What each secret input takes, for a refusal that finds one secret in two of them. */
const TAKES = {
    'api-key': "api-key takes the bot's API key from its manage page on discord.place, for example ${{ secrets.DISCORD_PLACE_API_KEY }}",
    'discord-token': "discord-token takes the bot's token from the Discord Developer Portal",
    'github-token': "github-token takes GitHub's token for the job, by default ${{ github.token }}"
};
/** A GitHub token: a classic one's prefix (`ghp_`, `ghs_` and the others) or a fine-grained one. */
const GITHUB_TOKEN = /(?:^|[^A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_\w{22,})/;
/**
 * The shapes that tell whose a secret is, wherever it was pasted and in whatever wrapper, plain or
 * in base64: each belongs in one input, and in any other it would go to the wrong party. Checked
 * after the refusals that name a swap more precisely.
 */
const OWNERS = [
    { input: 'discord-token', what: 'a Discord bot token', holds: inPlainOrBase64(holdsToken) },
    {
        input: 'api-key',
        what: 'a discord.place API key (64 hexadecimal digits)',
        holds: inPlainOrBase64(value => PLACE_KEY.test(value))
    },
    {
        input: 'github-token',
        what: 'a GitHub token',
        holds: inPlainOrBase64(value => GITHUB_TOKEN.test(value))
    }
];
/**
 * A shape test that also looks inside the value read as base64 (`NAME:secret`, encoded for a Basic
 * header, is a common paste). Text that is not base64 decodes to noise, which none of the shapes
 * can match by chance.
 */
function inPlainOrBase64(test) {
    return value => test(value) || test(Buffer.from(value, 'base64').toString('latin1'));
}
/** Every pair of secret inputs, each compared both ways. */
const SECRET_PAIRS = [
    ['api-key', 'discord-token'],
    ['api-key', 'github-token'],
    ['discord-token', 'github-token']
];
/**
 * The shortest secret looked for inside another input. Every real one is far longer (a
 * discord.place key has 64 characters, a Discord bot token about 70, a GitHub token at least 40),
 * and a run of 16 characters from one cannot appear in another by chance; a shorter value (a test's
 * placeholder) is never taken for a secret inside another. Two inputs holding the same value are
 * one secret in two places whatever its length, but an empty one (no github-token) is no secret.
 */
const MIN_SECRET_INSIDE = 16;
/**
 * Whether one secret input holds another's value (each as pasted forms are taken off it): `same`,
 * `inside` the first, or `reversed` (the first inside the second); undefined for neither.
 */
function oneSecretInTwo(first, second) {
    if (first === '' || second === '')
        return undefined;
    if (first === second)
        return 'same';
    if (second.length >= MIN_SECRET_INSIDE && first.includes(second))
        return 'inside';
    return first.length >= MIN_SECRET_INSIDE && second.includes(first) ? 'reversed' : undefined;
}
/**
 * A secret that belongs elsewhere (swapped, one secret in two inputs or inside another, another
 * bot's token) is never sent. The checks read the value as people paste it (quotes, `NAME=`, a
 * scheme word around it), so a quoted Discord token is named as one; then anything around a secret
 * is refused.
 */
function refuseMisplacedSecrets(apiKey, discordToken, githubToken, botId) {
    const api = (0,_secrets_js__WEBPACK_IMPORTED_MODULE_2__/* .unwrapSecret */ .wk)(apiKey);
    const discord = (0,_secrets_js__WEBPACK_IMPORTED_MODULE_2__/* .unwrapSecret */ .wk)(discordToken);
    const github = (0,_secrets_js__WEBPACK_IMPORTED_MODULE_2__/* .unwrapSecret */ .wk)(githubToken);
    const also = (found) => found.extra.length === 0
        ? ''
        : ` The secret also holds ${found.extra.join(' and ')}, which does not belong in it.`;
    const fix = "Pass the bot's API key from its manage page on discord.place, for example api-key: ${{ secrets.DISCORD_PLACE_API_KEY }}.";
    if (holdsToken(api.value)) {
        throw new _errors_js__WEBPACK_IMPORTED_MODULE_1__/* .InputError */ .dz('api-key', 'looks like a Discord bot token (three dot-separated parts, the first naming a bot ID), not a discord.place API key, so nothing was sent', `The secrets are probably swapped, or the wrong secret is named. ${fix} The Discord token goes in discord-token.${also(api)}`);
    }
    const unwrapped = { 'api-key': api, 'discord-token': discord, 'github-token': github };
    for (const [holder, other] of SECRET_PAIRS) {
        const found = oneSecretInTwo(unwrapped[holder].value, unwrapped[other].value);
        if (found === undefined)
            continue;
        // Named by the input that holds the other's value.
        const [input, given] = found === 'reversed' ? [other, holder] : [holder, other];
        const problem = found === 'same' ? `is the same secret as ${given}` : `holds the secret given as ${given}`;
        throw new _errors_js__WEBPACK_IMPORTED_MODULE_1__/* .InputError */ .dz(input, `${problem}, so nothing was sent`, `One of the two names the wrong secret: ${TAKES[input]}, and ${TAKES[given]}.${also(unwrapped[input])}`);
    }
    if (PLACE_KEY.test(discord.value)) {
        throw new _errors_js__WEBPACK_IMPORTED_MODULE_1__/* .InputError */ .dz('discord-token', 'looks like a discord.place API key (64 hexadecimal digits), not a Discord bot token, so it was not sent to Discord', 'The secrets are probably swapped: pass the discord.place key as api-key, and the bot token from the Discord ' +
            `Developer Portal (Bot page) as discord-token.${also(discord)}`);
    }
    const named = tokenBotId(discord.value);
    if (named !== undefined && named !== botId) {
        throw new _errors_js__WEBPACK_IMPORTED_MODULE_1__/* .InputError */ .dz('discord-token', "is the token of another bot: its first part names a bot ID other than bot-id, so the counts Discord gives for it are not this bot's", `Pass this bot's own token (Developer Portal, the bot's application, Bot page), or check bot-id.${also(discord)}`);
    }
    const pasted = { 'api-key': apiKey, 'discord-token': discordToken, 'github-token': githubToken };
    for (const input of Object.keys(TAKES)) {
        // As pasted too: base64's `=` padding reads as a variable's `=` once unwrapped.
        const holds = (kind) => kind.holds(unwrapped[input].value) || kind.holds(pasted[input]);
        const owner = OWNERS.find(kind => kind.input !== input && holds(kind));
        if (owner !== undefined)
            throw new _errors_js__WEBPACK_IMPORTED_MODULE_1__/* .InputError */ .dz(input, `holds ${owner.what}, which belongs in ${owner.input}, so nothing was sent`, `${TAKES[input]}.${also(unwrapped[input])}`);
    }
    for (const [input, fix] of Object.entries(STORE_ALONE)) {
        const { extra } = unwrapped[input];
        if (extra.length > 0)
            throw new _errors_js__WEBPACK_IMPORTED_MODULE_1__/* .InputError */ .dz(input, `holds more than the secret (${extra.join(' and ')}), so nothing was sent`, fix);
    }
}
/**
 * A secret goes into an HTTP header as it is: anything but printable ASCII would be refused, or
 * split the header.
 */
function headerSafe(input, secret, fix) {
    if (secret === '')
        return undefined;
    const bad = [...secret].findIndex(ch => !/^[\x21-\x7e]$/.test(ch));
    if (bad >= 0) {
        throw new _errors_js__WEBPACK_IMPORTED_MODULE_1__/* .InputError */ .dz(input, `contains whitespace, a control character or a non-ASCII character (at character ${bad + 1})`, fix);
    }
    return secret;
}
/**
 * An API base address a secret is sent to: absolute, https unless the host is loopback, no
 * credentials, query or fragment. `refuse` makes the error (an input's, unless told).
 */
function parseServiceUrl(input, raw, standard, refuse = (problem, fix) => new _errors_js__WEBPACK_IMPORTED_MODULE_1__/* .InputError */ .dz(input, problem, fix)) {
    const fix = `Use ${standard} (the default) or the https address of a compatible service.`;
    if (raw === '')
        throw refuse('is empty', fix);
    if (!URL.canParse(raw))
        throw refuse(`is not an absolute URL: ${show(raw)}`, fix);
    const url = new URL(raw);
    if (url.username !== '' || url.password !== '')
        throw refuse('contains a user name or password', `Remove them; the secret is sent in a header. ${fix}`);
    if (url.protocol !== 'https:' && url.protocol !== 'http:')
        throw refuse(`uses ${show(url.protocol)}, not https`, fix);
    if (url.protocol === 'http:' && !isLoopback(url.hostname)) {
        throw refuse(`uses plain http to ${url.host}, which would send a secret unencrypted`, 'Use https, or a loopback host (127.0.0.1, localhost or [::1]) for a local test server.');
    }
    if (url.search !== '' || url.hash !== '')
        throw refuse('has a query or fragment', 'Give only the scheme, host and optional path prefix.');
    return url.origin + url.pathname.replace(/\/+$/, '');
}
/**
 * GitHub's API, where github-token goes: the runner's GITHUB_API_URL (GitHub Enterprise Server sets
 * its own), held to the rule of the inputs' addresses. Not an input, so its error says who set it;
 * without a token nothing is sent there, and it is not read.
 */
function parseGitHubApiUrl(raw, token) {
    const standard = 'https://api.github.com';
    if (!raw)
        return standard;
    if (token === undefined)
        return raw;
    return parseServiceUrl('GITHUB_API_URL', raw, standard, (problem, fix) => new _errors_js__WEBPACK_IMPORTED_MODULE_1__/* .ActionError */ .lZ(`GITHUB_API_URL (GitHub's API, where github-token goes; the runner sets it) ${problem}. ${fix} ` +
        "Or pass no github-token (github-token: '') and check out the repository, so that nothing is sent there.", { headline: 'bad GITHUB_API_URL' }));
}
function isLoopback(hostname) {
    return (hostname === 'localhost' ||
        hostname === '[::1]' ||
        /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname));
}
/**
 * A value quoted for an error message: JSON-escaped (no control characters reach the log) and cut
 * short.
 */
function show(raw) {
    return JSON.stringify(raw.length > 40 ? `${raw.slice(0, 40)}…` : raw);
}


/***/ }),

/***/ 1577:
/***/ ((__unused_webpack_module, __webpack_exports__, __nccwpck_require__) => {


// EXPORTS
__nccwpck_require__.d(__webpack_exports__, {
  Oi: () => (/* binding */ botTitle),
  mo: () => (/* binding */ failureSection),
  LB: () => (/* binding */ headlineWith),
  V4: () => (/* binding */ markedParagraph),
  ai: () => (/* binding */ number),
  n$: () => (/* binding */ utc),
  z7: () => (/* binding */ when),
  mu: () => (/* binding */ writeOutputsSafely),
  Zn: () => (/* binding */ writeSection)
});

// UNUSED EXPORTS: MAX_SECTION_CHARS, relative

// EXTERNAL MODULE: ./node_modules/@actions/core/lib/core.js + 5 modules
var core = __nccwpck_require__(5049);
// EXTERNAL MODULE: external "os"
var external_os_ = __nccwpck_require__(857);
// EXTERNAL MODULE: external "fs"
var external_fs_ = __nccwpck_require__(9896);
;// CONCATENATED MODULE: ./node_modules/@actions/core/lib/summary.js
var __awaiter = (undefined && undefined.__awaiter) || function (thisArg, _arguments, P, generator) {
    function adopt(value) { return value instanceof P ? value : new P(function (resolve) { resolve(value); }); }
    return new (P || (P = Promise))(function (resolve, reject) {
        function fulfilled(value) { try { step(generator.next(value)); } catch (e) { reject(e); } }
        function rejected(value) { try { step(generator["throw"](value)); } catch (e) { reject(e); } }
        function step(result) { result.done ? resolve(result.value) : adopt(result.value).then(fulfilled, rejected); }
        step((generator = generator.apply(thisArg, _arguments || [])).next());
    });
};


const SUMMARY_ENV_VAR = 'GITHUB_STEP_SUMMARY';
const SUMMARY_DOCS_URL = 'https://docs.github.com/actions/using-workflows/workflow-commands-for-github-actions#adding-a-job-summary';
class Summary {
    constructor() {
        this._buffer = '';
    }
    /**
     * Finds the summary file path from the environment, rejects if env var is not found or file does not exist
     * Also checks r/w permissions.
     *
     * @returns step summary file path
     */
    filePath() {
        return __awaiter(this, void 0, void 0, function* () {
            if (this._filePath) {
                return this._filePath;
            }
            const pathFromEnv = process.env[SUMMARY_ENV_VAR];
            if (!pathFromEnv) {
                throw new Error(`Unable to find environment variable for $${SUMMARY_ENV_VAR}. Check if your runtime environment supports job summaries.`);
            }
            try {
                (0,external_fs_.accessSync)(pathFromEnv, external_fs_.constants.R_OK | external_fs_.constants.W_OK);
            }
            catch (_a) {
                throw new Error(`Unable to access summary file: '${pathFromEnv}'. Check if the file has correct read/write permissions.`);
            }
            this._filePath = pathFromEnv;
            return this._filePath;
        });
    }
    /**
     * Wraps content in an HTML tag, adding any HTML attributes
     *
     * @param {string} tag HTML tag to wrap
     * @param {string | null} content content within the tag
     * @param {[attribute: string]: string} attrs key-value list of HTML attributes to add
     *
     * @returns {string} content wrapped in HTML element
     */
    wrap(tag, content, attrs = {}) {
        const htmlAttrs = Object.entries(attrs)
            .map(([key, value]) => ` ${key}="${value}"`)
            .join('');
        if (!content) {
            return `<${tag}${htmlAttrs}>`;
        }
        return `<${tag}${htmlAttrs}>${content}</${tag}>`;
    }
    /**
     * Writes text in the buffer to the summary buffer file and empties buffer. Will append by default.
     *
     * @param {SummaryWriteOptions} [options] (optional) options for write operation
     *
     * @returns {Promise<Summary>} summary instance
     */
    write(options) {
        return __awaiter(this, void 0, void 0, function* () {
            const overwrite = !!(options === null || options === void 0 ? void 0 : options.overwrite);
            const filePath = yield this.filePath();
            const writeFunc = overwrite ? external_fs_.writeFileSync : external_fs_.appendFileSync;
            writeFunc(filePath, this._buffer, { encoding: 'utf8' });
            return this.emptyBuffer();
        });
    }
    /**
     * Clears the summary buffer and wipes the summary file
     *
     * @returns {Summary} summary instance
     */
    clear() {
        return __awaiter(this, void 0, void 0, function* () {
            return this.emptyBuffer().write({ overwrite: true });
        });
    }
    /**
     * Returns the current summary buffer as a string
     *
     * @returns {string} string of summary buffer
     */
    stringify() {
        return this._buffer;
    }
    /**
     * If the summary buffer is empty
     *
     * @returns {boolen} true if the buffer is empty
     */
    isEmptyBuffer() {
        return this._buffer.length === 0;
    }
    /**
     * Resets the summary buffer without writing to summary file
     *
     * @returns {Summary} summary instance
     */
    emptyBuffer() {
        this._buffer = '';
        return this;
    }
    /**
     * Adds raw text to the summary buffer
     *
     * @param {string} text content to add
     * @param {boolean} [addEOL=false] (optional) append an EOL to the raw text (default: false)
     *
     * @returns {Summary} summary instance
     */
    addRaw(text, addEOL = false) {
        this._buffer += text;
        return addEOL ? this.addEOL() : this;
    }
    /**
     * Adds the operating system-specific end-of-line marker to the buffer
     *
     * @returns {Summary} summary instance
     */
    addEOL() {
        return this.addRaw(external_os_.EOL);
    }
    /**
     * Adds an HTML codeblock to the summary buffer
     *
     * @param {string} code content to render within fenced code block
     * @param {string} lang (optional) language to syntax highlight code
     *
     * @returns {Summary} summary instance
     */
    addCodeBlock(code, lang) {
        const attrs = Object.assign({}, (lang && { lang }));
        const element = this.wrap('pre', this.wrap('code', code), attrs);
        return this.addRaw(element).addEOL();
    }
    /**
     * Adds an HTML list to the summary buffer
     *
     * @param {string[]} items list of items to render
     * @param {boolean} [ordered=false] (optional) if the rendered list should be ordered or not (default: false)
     *
     * @returns {Summary} summary instance
     */
    addList(items, ordered = false) {
        const tag = ordered ? 'ol' : 'ul';
        const listItems = items.map(item => this.wrap('li', item)).join('');
        const element = this.wrap(tag, listItems);
        return this.addRaw(element).addEOL();
    }
    /**
     * Adds an HTML table to the summary buffer
     *
     * @param {SummaryTableCell[]} rows table rows
     *
     * @returns {Summary} summary instance
     */
    addTable(rows) {
        const tableBody = rows
            .map(row => {
            const cells = row
                .map(cell => {
                if (typeof cell === 'string') {
                    return this.wrap('td', cell);
                }
                const { header, data, colspan, rowspan } = cell;
                const tag = header ? 'th' : 'td';
                const attrs = Object.assign(Object.assign({}, (colspan && { colspan })), (rowspan && { rowspan }));
                return this.wrap(tag, data, attrs);
            })
                .join('');
            return this.wrap('tr', cells);
        })
            .join('');
        const element = this.wrap('table', tableBody);
        return this.addRaw(element).addEOL();
    }
    /**
     * Adds a collapsable HTML details element to the summary buffer
     *
     * @param {string} label text for the closed state
     * @param {string} content collapsable content
     *
     * @returns {Summary} summary instance
     */
    addDetails(label, content) {
        const element = this.wrap('details', this.wrap('summary', label) + content);
        return this.addRaw(element).addEOL();
    }
    /**
     * Adds an HTML image tag to the summary buffer
     *
     * @param {string} src path to the image you to embed
     * @param {string} alt text description of the image
     * @param {SummaryImageOptions} options (optional) addition image attributes
     *
     * @returns {Summary} summary instance
     */
    addImage(src, alt, options) {
        const { width, height } = options || {};
        const attrs = Object.assign(Object.assign({}, (width && { width })), (height && { height }));
        const element = this.wrap('img', null, Object.assign({ src, alt }, attrs));
        return this.addRaw(element).addEOL();
    }
    /**
     * Adds an HTML section heading element
     *
     * @param {string} text heading text
     * @param {number | string} [level=1] (optional) the heading level, default: 1
     *
     * @returns {Summary} summary instance
     */
    addHeading(text, level) {
        const tag = `h${level}`;
        const allowedTag = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].includes(tag)
            ? tag
            : 'h1';
        const element = this.wrap(allowedTag, text);
        return this.addRaw(element).addEOL();
    }
    /**
     * Adds an HTML thematic break (<hr>) to the summary buffer
     *
     * @returns {Summary} summary instance
     */
    addSeparator() {
        const element = this.wrap('hr', null);
        return this.addRaw(element).addEOL();
    }
    /**
     * Adds an HTML line break (<br>) to the summary buffer
     *
     * @returns {Summary} summary instance
     */
    addBreak() {
        const element = this.wrap('br', null);
        return this.addRaw(element).addEOL();
    }
    /**
     * Adds an HTML blockquote to the summary buffer
     *
     * @param {string} text quote text
     * @param {string} cite (optional) citation url
     *
     * @returns {Summary} summary instance
     */
    addQuote(text, cite) {
        const attrs = Object.assign({}, (cite && { cite }));
        const element = this.wrap('blockquote', text, attrs);
        return this.addRaw(element).addEOL();
    }
    /**
     * Adds an HTML anchor tag to the summary buffer
     *
     * @param {string} text link text/content
     * @param {string} href hyperlink
     *
     * @returns {Summary} summary instance
     */
    addLink(text, href) {
        const element = this.wrap('a', text, { href });
        return this.addRaw(element).addEOL();
    }
}
const _summary = new Summary();
/**
 * @deprecated use `core.summary`
 */
const markdownSummary = (/* unused pure expression or super */ null && (_summary));
const summary = _summary;
//# sourceMappingURL=summary.js.map
// EXTERNAL MODULE: ./src/settings.ts
var settings = __nccwpck_require__(8750);
// EXTERNAL MODULE: ./src/secrets.ts
var secrets = __nccwpck_require__(7194);
// EXTERNAL MODULE: ./src/text.ts
var src_text = __nccwpck_require__(8992);
;// CONCATENATED MODULE: ./src/summary.ts




/**
 * The job summary's plumbing, shared by both modes' reports: each writes one section of HTML
 * (GitHub renders it as it is), under a size the runner keeps. Over 1 MiB the runner drops the
 * whole summary: every quoted text is cut, and the section capped.
 */
/** The largest section written; far under the runner's 1 MiB for the job's summaries together. */
const MAX_SECTION_CHARS = 256 * 1024;
/** The discord.place address of a bot's page, and how the summary names the bot. */
function botTitle(botId, name, baseUrl) {
    const label = name ?? `Bot ${botId}`;
    return baseUrl === settings/* DEFAULT_BASE_URL */.Ql
        ? (0,src_text/* htmlLink */.Ar)(label, `https://discord.place/bots/${botId}`)
        : (0,src_text/* html */.qy)(label);
}
/** A paragraph with a mark, for a warning or an error: visible, with its `code` spans rendered. */
function markedParagraph(mark, label, message) {
    return `<p>${mark} <strong>${label}</strong> ${(0,src_text/* htmlMessage */.JR)((0,src_text/* bounded */.Mm)(message, src_text/* MAX_MESSAGE_CHARS */.hP))}</p>\n`;
}
/**
 * Writes the section to the job summary: no summary file (a local run) is no error, and a failed
 * write one warning, never a crash.
 */
async function writeSection(build) {
    if (!process.env['GITHUB_STEP_SUMMARY']) {
        core/* debug */.Yz('No job summary written: GITHUB_STEP_SUMMARY is not set.');
        return;
    }
    try {
        summary.emptyBuffer();
        build(summary);
        const text = summary.stringify();
        if (text.length > MAX_SECTION_CHARS) {
            // Cut at a line's end: each element of a section is on lines of its own.
            summary
                .emptyBuffer()
                .addRaw(text.slice(0, text.lastIndexOf('\n', MAX_SECTION_CHARS - 200) + 1), false);
            summary.addRaw('\n<p>(The rest of this section was cut: it would have been too large for the job summary.)</p>\n', false);
        }
        await summary.write();
    }
    catch (error) {
        core/* warning */.$e((0,src_text/* annotationText */.xr)(`The job summary could not be written: ${error instanceof Error ? error.message : String(error)}`));
    }
}
/**
 * The section of a run that failed before its mode began (bad input), under a headline naming the
 * bot once its ID was read.
 */
function failureSection(summary, message, botId, headline) {
    const who = botId === undefined ? 'discord.place' : (0,src_text/* html */.qy)(`Bot ${botId}`);
    summary.addRaw(`<h3>❌ ${who}: failed${headline === undefined ? '' : `: ${(0,src_text/* html */.qy)(headline)}`}</h3>\n`, false);
    summary.addRaw(markedParagraph('❌', 'Error:', message), false);
}
/**
 * A headline whose step failed only because its outputs could not be written: the outcome stays as
 * it was (an update that went through did go through), the mark and the words say the step failed.
 */
function headlineWith(outputsFailure, [mark, words]) {
    return outputsFailure === undefined || mark === '❌'
        ? [mark, words]
        : ['❌', `${words}; the step failed: its outputs could not be written`];
}
/**
 * Runs a report's output writes. Outputs that cannot be written must not turn a finished run into a
 * crash: the step fails with one clear error (returned), and the summary is still written.
 */
function writeOutputsSafely(write) {
    try {
        write();
        return undefined;
    }
    catch (error) {
        return (0,secrets/* redact */.E$)(`The step's outputs could not be written to GITHUB_OUTPUT (${error instanceof Error ? error.message : String(error)}); ` +
            'later steps will not see them. Check that the runner can write its temporary files (disk space, permissions).');
    }
}
// The figures and times a person reads in the summary and the log.
/**
 * `1,260`, as a bot page shows it. Not toLocaleString, whose first call loads ICU data: about 15 ms
 * and 7 MB on every run.
 */
function number(value) {
    const digits = String(Math.abs(Math.trunc(value)));
    return `${value < 0 ? '-' : ''}${digits.replace(/\B(?=(\d{3})+$)/g, ',')}`;
}
/** `21:05 UTC` on the run's day (`now`), else with its date: `2026-11-25 03:05 UTC`. */
function utc(date, now) {
    const iso = date.toISOString();
    const sameDay = iso.slice(0, 10) === now.toISOString().slice(0, 10);
    return `${sameDay ? iso.slice(11, 16) : `${iso.slice(0, 10)} ${iso.slice(11, 16)}`} UTC`;
}
/** A span under two days: `42 min`, `5 h`, `5 h 3 min`. */
function hoursAndMinutes(minutes) {
    const hours = Math.floor(minutes / 60);
    if (hours === 0)
        return `${minutes} min`;
    if (minutes % 60 === 0)
        return `${hours} h`;
    return `${hours} h ${minutes % 60} min`;
}
/**
 * `5 h 3 min after this run`, `under a minute before this run`: relative to the run (`now`), not to
 * the reader, because a summary is read later: "in 6 h" read the next morning would be untrue.
 */
function relative(date, now) {
    const ms = date.getTime() - now.getTime();
    const minutes = Math.round(Math.abs(ms) / 60_000);
    if (minutes === 0)
        return ms >= 0 ? 'under a minute after this run' : 'under a minute before this run';
    const hours = Math.floor(minutes / 60);
    const days = Math.round(hours / 24);
    // Past two days, hours and minutes are noise: "30 days", not "720 h".
    const span = hours >= 48 ? `${days} days` : hoursAndMinutes(minutes);
    return `${span} ${ms >= 0 ? 'after' : 'before'} this run`;
}
/**
 * `21:05 UTC, 5 h 3 min after this run`: a time as the log and the summary print it (no
 * parentheses, so it nests in some).
 */
function when(date, now) {
    return `${utc(date, now)}, ${relative(date, now)}`;
}


/***/ }),

/***/ 8992:
/***/ ((__unused_webpack_module, __webpack_exports__, __nccwpck_require__) => {

/* harmony export */ __nccwpck_require__.d(__webpack_exports__, {
/* harmony export */   Ar: () => (/* binding */ htmlLink),
/* harmony export */   JR: () => (/* binding */ htmlMessage),
/* harmony export */   Kb: () => (/* binding */ excerpt),
/* harmony export */   Mm: () => (/* binding */ bounded),
/* harmony export */   gW: () => (/* binding */ CONTROL_CHARACTER),
/* harmony export */   hP: () => (/* binding */ MAX_MESSAGE_CHARS),
/* harmony export */   kc: () => (/* binding */ logText),
/* harmony export */   qy: () => (/* binding */ html),
/* harmony export */   xr: () => (/* binding */ annotationText)
/* harmony export */ });
/* unused harmony exports logLine, safeText, visibleControls */
/* harmony import */ var _secrets_js__WEBPACK_IMPORTED_MODULE_0__ = __nccwpck_require__(7194);

/**
 * Every way text is made safe to print: a log line (one line, inert to the runner), an
 * annotation, an excerpt of an answer, the job summary's HTML. Secrets are redacted first, always
 * (secrets.ts), before anything is cut or escaped: a cut must not leave a piece of a secret that
 * redaction no longer recognises, and the runner does not mask an escaped copy.
 */
/** C0 and C1 control characters (line breaks, tabs, escapes) and the Unicode line separators. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
const CONTROL_RUNS = new RegExp(`${CONTROL_CHARACTER.source}+`, 'g');
/** C0 and C1 control characters other than the tab and the line ends: never printed raw. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const RAW_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;
/** The longest message or warning printed, or quoted in the summary. */
const MAX_MESSAGE_CHARS = 4_000;
/**
 * Text for one log line: no line break or other control character, so that no part of it can
 * begin a line of its own, where the runner would read `::…` as a workflow command; nor `##[`.
 */
function logLine(text) {
    const line = neutraliseCommands((0,_secrets_js__WEBPACK_IMPORTED_MODULE_0__/* .redact */ .E$)(text).replace(CONTROL_RUNS, ' '));
    // The runner reads a line that begins with `::` (after spaces) as a command.
    return /^\s*::/.test(line) ? line.replace('::', ': :') : line;
}
/** A log line of bounded length. */
function logText(text) {
    return bounded(logLine(text), MAX_MESSAGE_CHARS);
}
/** An annotation or the failure message (`::error::` and the like), of bounded length. */
function annotationText(text) {
    return bounded(safeText(text), MAX_MESSAGE_CHARS);
}
/**
 * Text for an annotation: line breaks are kept, since the toolkit escapes them inside the command.
 */
function safeText(text) {
    return neutraliseCommands(visibleControls((0,_secrets_js__WEBPACK_IMPORTED_MODULE_0__/* .redact */ .E$)(text)));
}
/**
 * Control characters shown as escapes (`\x1b`): an escape sequence would recolour or rewrite
 * the log as a terminal shows it. The tab and the line ends stay where a line allows them.
 */
function visibleControls(text) {
    return text.replace(RAW_CONTROL, char => `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`);
}
/**
 * The runner also reads its legacy syntax, `##[command]value`, wherever `##[` appears in a line
 * (actions/runner, ActionCommand.TryParse). Replaced left to right, the result holds no `##[`.
 */
function neutraliseCommands(text) {
    return text.replace(/##\[/g, '# #[');
}
/** Text from outside, for a message: on one line, cut to `max` characters. */
function excerpt(text, max = 200) {
    const oneLine = visibleControls((0,_secrets_js__WEBPACK_IMPORTED_MODULE_0__/* .redact */ .E$)(text).replace(/\s+/g, ' ').trim());
    return oneLine.length > max ? `${oneLine.slice(0, max)}…` : oneLine;
}
/**
 * Text cut to `max` characters, saying how much was left out (the runner drops a summary over 1 MiB
 * whole).
 */
function bounded(text, max) {
    const clean = (0,_secrets_js__WEBPACK_IMPORTED_MODULE_0__/* .redact */ .E$)(text);
    if (clean.length <= max)
        return clean;
    return `${clean.slice(0, max)}… (${clean.length - max} more characters not shown)`;
}
/**
 * HTML-escaped text on one line, for the job summary: a blank line would end the summary's HTML
 * block, and what follows would be read as Markdown.
 */
function html(text) {
    return visibleControls((0,_secrets_js__WEBPACK_IMPORTED_MODULE_0__/* .redact */ .E$)(text).replace(/[\r\n]+/g, ' ')).replace(/[&<>"']/g, char => HTML_ESCAPES[char]);
}
const HTML_ESCAPES = {
    '&': '&amp;',
    '<': '&lt;',
    '>': '&gt;',
    '"': '&quot;',
    "'": '&#39;'
};
/**
 * A message of the action's own for the summary, its `code` spans (inputs, values) shown as code.
 */
function htmlMessage(text) {
    return html(text.replace(/\s+/g, ' ').trim()).replace(/`([^`]+)`/g, '<code>$1</code>');
}
/** A link for the summary; only http(s) addresses, escaped, else the text alone. */
function htmlLink(text, url) {
    return /^https?:\/\//i.test(url) ? `<a href="${html(url)}">${html(text)}</a>` : html(text);
}


/***/ }),

/***/ 1013:
/***/ ((__unused_webpack_module, __webpack_exports__, __nccwpck_require__) => {


// EXPORTS
__nccwpck_require__.d(__webpack_exports__, {
  Yt: () => (/* binding */ ACTION_VERSION),
  w5: () => (/* binding */ PROJECT_URL),
  _O: () => (/* binding */ USER_AGENT)
});

;// CONCATENATED MODULE: ./package.json
const package_namespaceObject = /*#__PURE__*/JSON.parse('{"UU":"discord-place-bot-stats","rE":"1.0.0"}');
;// CONCATENATED MODULE: ./src/version.ts

/**
 * The action's name and version, as sent in the User-Agent: package.json's, read when the bundle is
 * built.
 */
const ACTION_VERSION = package_namespaceObject.rE;
const USER_AGENT = `${package_namespaceObject.UU}/${ACTION_VERSION}`;
/** Where the action is published; Discord asks bots' HTTP clients to name theirs. */
const PROJECT_URL = 'https://github.com/marketplace/actions/discord-place-bot-stats';


/***/ }),

/***/ 2613:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("assert");

/***/ }),

/***/ 181:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("buffer");

/***/ }),

/***/ 4434:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("events");

/***/ }),

/***/ 9896:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("fs");

/***/ }),

/***/ 8611:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("http");

/***/ }),

/***/ 5692:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("https");

/***/ }),

/***/ 9278:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("net");

/***/ }),

/***/ 4589:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:assert");

/***/ }),

/***/ 6698:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:async_hooks");

/***/ }),

/***/ 4573:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:buffer");

/***/ }),

/***/ 7540:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:console");

/***/ }),

/***/ 7598:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:crypto");

/***/ }),

/***/ 3053:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:diagnostics_channel");

/***/ }),

/***/ 610:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:dns");

/***/ }),

/***/ 8474:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:events");

/***/ }),

/***/ 3024:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:fs");

/***/ }),

/***/ 1455:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:fs/promises");

/***/ }),

/***/ 7067:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:http");

/***/ }),

/***/ 2467:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:http2");

/***/ }),

/***/ 7030:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:net");

/***/ }),

/***/ 6760:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:path");

/***/ }),

/***/ 643:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:perf_hooks");

/***/ }),

/***/ 1792:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:querystring");

/***/ }),

/***/ 7075:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:stream");

/***/ }),

/***/ 1692:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:tls");

/***/ }),

/***/ 3136:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:url");

/***/ }),

/***/ 7975:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:util");

/***/ }),

/***/ 3429:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:util/types");

/***/ }),

/***/ 5919:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:worker_threads");

/***/ }),

/***/ 8522:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:zlib");

/***/ }),

/***/ 857:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("os");

/***/ }),

/***/ 932:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("process");

/***/ }),

/***/ 3193:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("string_decoder");

/***/ }),

/***/ 4756:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("tls");

/***/ }),

/***/ 9023:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("util");

/***/ }),

/***/ 5049:
/***/ ((__unused_webpack___webpack_module__, __webpack_exports__, __nccwpck_require__) => {


// EXPORTS
__nccwpck_require__.d(__webpack_exports__, {
  Yz: () => (/* binding */ debug),
  V4: () => (/* binding */ getInput),
  pq: () => (/* binding */ info),
  lm: () => (/* binding */ notice),
  C1: () => (/* binding */ setFailed),
  uH: () => (/* binding */ setOutput),
  Pq: () => (/* binding */ setSecret),
  $e: () => (/* binding */ warning)
});

// UNUSED EXPORTS: ExitCode, addPath, endGroup, error, exportVariable, getBooleanInput, getIDToken, getMultilineInput, getState, group, isDebug, markdownSummary, platform, saveState, setCommandEcho, startGroup, summary, toPlatformPath, toPosixPath, toWin32Path

// EXTERNAL MODULE: external "os"
var external_os_ = __nccwpck_require__(857);
;// CONCATENATED MODULE: ./node_modules/@actions/core/lib/utils.js
// We use any as a valid input type
/* eslint-disable @typescript-eslint/no-explicit-any */
/**
 * Sanitizes an input into a string so it can be passed into issueCommand safely
 * @param input input to sanitize into a string
 */
function utils_toCommandValue(input) {
    if (input === null || input === undefined) {
        return '';
    }
    else if (typeof input === 'string' || input instanceof String) {
        return input;
    }
    return JSON.stringify(input);
}
/**
 *
 * @param annotationProperties
 * @returns The command properties to send with the actual annotation command
 * See IssueCommandProperties: https://github.com/actions/runner/blob/main/src/Runner.Worker/ActionCommandManager.cs#L646
 */
function toCommandProperties(annotationProperties) {
    if (!Object.keys(annotationProperties).length) {
        return {};
    }
    return {
        title: annotationProperties.title,
        file: annotationProperties.file,
        line: annotationProperties.startLine,
        endLine: annotationProperties.endLine,
        col: annotationProperties.startColumn,
        endColumn: annotationProperties.endColumn
    };
}
//# sourceMappingURL=utils.js.map
;// CONCATENATED MODULE: ./node_modules/@actions/core/lib/command.js


/**
 * Issues a command to the GitHub Actions runner
 *
 * @param command - The command name to issue
 * @param properties - Additional properties for the command (key-value pairs)
 * @param message - The message to include with the command
 * @remarks
 * This function outputs a specially formatted string to stdout that the Actions
 * runner interprets as a command. These commands can control workflow behavior,
 * set outputs, create annotations, mask values, and more.
 *
 * Command Format:
 *   ::name key=value,key=value::message
 *
 * @example
 * ```typescript
 * // Issue a warning annotation
 * issueCommand('warning', {}, 'This is a warning message');
 * // Output: ::warning::This is a warning message
 *
 * // Set an environment variable
 * issueCommand('set-env', { name: 'MY_VAR' }, 'some value');
 * // Output: ::set-env name=MY_VAR::some value
 *
 * // Add a secret mask
 * issueCommand('add-mask', {}, 'secretValue123');
 * // Output: ::add-mask::secretValue123
 * ```
 *
 * @internal
 * This is an internal utility function that powers the public API functions
 * such as setSecret, warning, error, and exportVariable.
 */
function command_issueCommand(command, properties, message) {
    const cmd = new Command(command, properties, message);
    process.stdout.write(cmd.toString() + external_os_.EOL);
}
function command_issue(name, message = '') {
    command_issueCommand(name, {}, message);
}
const CMD_STRING = '::';
class Command {
    constructor(command, properties, message) {
        if (!command) {
            command = 'missing.command';
        }
        this.command = command;
        this.properties = properties;
        this.message = message;
    }
    toString() {
        let cmdStr = CMD_STRING + this.command;
        if (this.properties && Object.keys(this.properties).length > 0) {
            cmdStr += ' ';
            let first = true;
            for (const key in this.properties) {
                if (this.properties.hasOwnProperty(key)) {
                    const val = this.properties[key];
                    if (val) {
                        if (first) {
                            first = false;
                        }
                        else {
                            cmdStr += ',';
                        }
                        cmdStr += `${key}=${escapeProperty(val)}`;
                    }
                }
            }
        }
        cmdStr += `${CMD_STRING}${escapeData(this.message)}`;
        return cmdStr;
    }
}
function escapeData(s) {
    return utils_toCommandValue(s)
        .replace(/%/g, '%25')
        .replace(/\r/g, '%0D')
        .replace(/\n/g, '%0A');
}
function escapeProperty(s) {
    return utils_toCommandValue(s)
        .replace(/%/g, '%25')
        .replace(/\r/g, '%0D')
        .replace(/\n/g, '%0A')
        .replace(/:/g, '%3A')
        .replace(/,/g, '%2C');
}
//# sourceMappingURL=command.js.map
;// CONCATENATED MODULE: external "crypto"
const external_crypto_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("crypto");
// EXTERNAL MODULE: external "fs"
var external_fs_ = __nccwpck_require__(9896);
;// CONCATENATED MODULE: ./node_modules/@actions/core/lib/file-command.js
// For internal use, subject to change.
// We use any as a valid input type
/* eslint-disable @typescript-eslint/no-explicit-any */




function file_command_issueFileCommand(command, message) {
    const filePath = process.env[`GITHUB_${command}`];
    if (!filePath) {
        throw new Error(`Unable to find environment variable for file command ${command}`);
    }
    if (!external_fs_.existsSync(filePath)) {
        throw new Error(`Missing file at path: ${filePath}`);
    }
    external_fs_.appendFileSync(filePath, `${utils_toCommandValue(message)}${external_os_.EOL}`, {
        encoding: 'utf8'
    });
}
function file_command_prepareKeyValueMessage(key, value) {
    const delimiter = `ghadelimiter_${external_crypto_namespaceObject.randomUUID()}`;
    const convertedValue = utils_toCommandValue(value);
    // These should realistically never happen, but just in case someone finds a
    // way to exploit uuid generation let's not allow keys or values that contain
    // the delimiter.
    if (key.includes(delimiter)) {
        throw new Error(`Unexpected input: name should not contain the delimiter "${delimiter}"`);
    }
    if (convertedValue.includes(delimiter)) {
        throw new Error(`Unexpected input: value should not contain the delimiter "${delimiter}"`);
    }
    return `${key}<<${delimiter}${external_os_.EOL}${convertedValue}${external_os_.EOL}${delimiter}`;
}
//# sourceMappingURL=file-command.js.map
;// CONCATENATED MODULE: external "path"
const external_path_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("path");
;// CONCATENATED MODULE: ./node_modules/@actions/core/lib/core.js
var __awaiter = (undefined && undefined.__awaiter) || function (thisArg, _arguments, P, generator) {
    function adopt(value) { return value instanceof P ? value : new P(function (resolve) { resolve(value); }); }
    return new (P || (P = Promise))(function (resolve, reject) {
        function fulfilled(value) { try { step(generator.next(value)); } catch (e) { reject(e); } }
        function rejected(value) { try { step(generator["throw"](value)); } catch (e) { reject(e); } }
        function step(result) { result.done ? resolve(result.value) : adopt(result.value).then(fulfilled, rejected); }
        step((generator = generator.apply(thisArg, _arguments || [])).next());
    });
};






/**
 * The code to exit an action
 */
var ExitCode;
(function (ExitCode) {
    /**
     * A code indicating that the action was successful
     */
    ExitCode[ExitCode["Success"] = 0] = "Success";
    /**
     * A code indicating that the action was a failure
     */
    ExitCode[ExitCode["Failure"] = 1] = "Failure";
})(ExitCode || (ExitCode = {}));
//-----------------------------------------------------------------------
// Variables
//-----------------------------------------------------------------------
/**
 * Sets env variable for this action and future actions in the job
 * @param name the name of the variable to set
 * @param val the value of the variable. Non-string values will be converted to a string via JSON.stringify
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function exportVariable(name, val) {
    const convertedVal = toCommandValue(val);
    process.env[name] = convertedVal;
    const filePath = process.env['GITHUB_ENV'] || '';
    if (filePath) {
        return issueFileCommand('ENV', prepareKeyValueMessage(name, val));
    }
    issueCommand('set-env', { name }, convertedVal);
}
/**
 * Registers a secret which will get masked from logs
 *
 * @param secret - Value of the secret to be masked
 * @remarks
 * This function instructs the Actions runner to mask the specified value in any
 * logs produced during the workflow run. Once registered, the secret value will
 * be replaced with asterisks (***) whenever it appears in console output, logs,
 * or error messages.
 *
 * This is useful for protecting sensitive information such as:
 * - API keys
 * - Access tokens
 * - Authentication credentials
 * - URL parameters containing signatures (SAS tokens)
 *
 * Note that masking only affects future logs; any previous appearances of the
 * secret in logs before calling this function will remain unmasked.
 *
 * @example
 * ```typescript
 * // Register an API token as a secret
 * const apiToken = "abc123xyz456";
 * setSecret(apiToken);
 *
 * // Now any logs containing this value will show *** instead
 * console.log(`Using token: ${apiToken}`); // Outputs: "Using token: ***"
 * ```
 */
function setSecret(secret) {
    command_issueCommand('add-mask', {}, secret);
}
/**
 * Prepends inputPath to the PATH (for this action and future actions)
 * @param inputPath
 */
function addPath(inputPath) {
    const filePath = process.env['GITHUB_PATH'] || '';
    if (filePath) {
        issueFileCommand('PATH', inputPath);
    }
    else {
        issueCommand('add-path', {}, inputPath);
    }
    process.env['PATH'] = `${inputPath}${path.delimiter}${process.env['PATH']}`;
}
/**
 * Gets the value of an input.
 * Unless trimWhitespace is set to false in InputOptions, the value is also trimmed.
 * Returns an empty string if the value is not defined.
 *
 * @param     name     name of the input to get
 * @param     options  optional. See InputOptions.
 * @returns   string
 */
function getInput(name, options) {
    const val = process.env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] || '';
    if (options && options.required && !val) {
        throw new Error(`Input required and not supplied: ${name}`);
    }
    if (options && options.trimWhitespace === false) {
        return val;
    }
    return val.trim();
}
/**
 * Gets the values of an multiline input.  Each value is also trimmed.
 *
 * @param     name     name of the input to get
 * @param     options  optional. See InputOptions.
 * @returns   string[]
 *
 */
function getMultilineInput(name, options) {
    const inputs = getInput(name, options)
        .split('\n')
        .filter(x => x !== '');
    if (options && options.trimWhitespace === false) {
        return inputs;
    }
    return inputs.map(input => input.trim());
}
/**
 * Gets the input value of the boolean type in the YAML 1.2 "core schema" specification.
 * Support boolean input list: `true | True | TRUE | false | False | FALSE` .
 * The return value is also in boolean type.
 * ref: https://yaml.org/spec/1.2/spec.html#id2804923
 *
 * @param     name     name of the input to get
 * @param     options  optional. See InputOptions.
 * @returns   boolean
 */
function getBooleanInput(name, options) {
    const trueValue = ['true', 'True', 'TRUE'];
    const falseValue = ['false', 'False', 'FALSE'];
    const val = getInput(name, options);
    if (trueValue.includes(val))
        return true;
    if (falseValue.includes(val))
        return false;
    throw new TypeError(`Input does not meet YAML 1.2 "Core Schema" specification: ${name}\n` +
        `Support boolean input list: \`true | True | TRUE | false | False | FALSE\``);
}
/**
 * Sets the value of an output.
 *
 * @param     name     name of the output to set
 * @param     value    value to store. Non-string values will be converted to a string via JSON.stringify
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function setOutput(name, value) {
    const filePath = process.env['GITHUB_OUTPUT'] || '';
    if (filePath) {
        return file_command_issueFileCommand('OUTPUT', file_command_prepareKeyValueMessage(name, value));
    }
    process.stdout.write(external_os_.EOL);
    command_issueCommand('set-output', { name }, utils_toCommandValue(value));
}
/**
 * Enables or disables the echoing of commands into stdout for the rest of the step.
 * Echoing is disabled by default if ACTIONS_STEP_DEBUG is not set.
 *
 */
function setCommandEcho(enabled) {
    issue('echo', enabled ? 'on' : 'off');
}
//-----------------------------------------------------------------------
// Results
//-----------------------------------------------------------------------
/**
 * Sets the action status to failed.
 * When the action exits it will be with an exit code of 1
 * @param message add error issue message
 */
function setFailed(message) {
    process.exitCode = ExitCode.Failure;
    error(message);
}
//-----------------------------------------------------------------------
// Logging Commands
//-----------------------------------------------------------------------
/**
 * Gets whether Actions Step Debug is on or not
 */
function isDebug() {
    return process.env['RUNNER_DEBUG'] === '1';
}
/**
 * Writes debug message to user log
 * @param message debug message
 */
function debug(message) {
    command_issueCommand('debug', {}, message);
}
/**
 * Adds an error issue
 * @param message error issue message. Errors will be converted to string via toString()
 * @param properties optional properties to add to the annotation.
 */
function error(message, properties = {}) {
    command_issueCommand('error', toCommandProperties(properties), message instanceof Error ? message.toString() : message);
}
/**
 * Adds a warning issue
 * @param message warning issue message. Errors will be converted to string via toString()
 * @param properties optional properties to add to the annotation.
 */
function warning(message, properties = {}) {
    command_issueCommand('warning', toCommandProperties(properties), message instanceof Error ? message.toString() : message);
}
/**
 * Adds a notice issue
 * @param message notice issue message. Errors will be converted to string via toString()
 * @param properties optional properties to add to the annotation.
 */
function notice(message, properties = {}) {
    command_issueCommand('notice', toCommandProperties(properties), message instanceof Error ? message.toString() : message);
}
/**
 * Writes info to log with console.log.
 * @param message info message
 */
function info(message) {
    process.stdout.write(message + external_os_.EOL);
}
/**
 * Begin an output group.
 *
 * Output until the next `groupEnd` will be foldable in this group
 *
 * @param name The name of the output group
 */
function startGroup(name) {
    issue('group', name);
}
/**
 * End an output group.
 */
function endGroup() {
    issue('endgroup');
}
/**
 * Wrap an asynchronous function call in a group.
 *
 * Returns the same type as the function itself.
 *
 * @param name The name of the group
 * @param fn The function to wrap in the group
 */
function group(name, fn) {
    return __awaiter(this, void 0, void 0, function* () {
        startGroup(name);
        let result;
        try {
            result = yield fn();
        }
        finally {
            endGroup();
        }
        return result;
    });
}
//-----------------------------------------------------------------------
// Wrapper action state
//-----------------------------------------------------------------------
/**
 * Saves state for current action, the state can only be retrieved by this action's post job execution.
 *
 * @param     name     name of the state to store
 * @param     value    value to store. Non-string values will be converted to a string via JSON.stringify
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function saveState(name, value) {
    const filePath = process.env['GITHUB_STATE'] || '';
    if (filePath) {
        return issueFileCommand('STATE', prepareKeyValueMessage(name, value));
    }
    issueCommand('save-state', { name }, toCommandValue(value));
}
/**
 * Gets the value of an state set by this action's main execution.
 *
 * @param     name     name of the state to get
 * @returns   string
 */
function getState(name) {
    return process.env[`STATE_${name}`] || '';
}
function getIDToken(aud) {
    return __awaiter(this, void 0, void 0, function* () {
        return yield OidcClient.getIDToken(aud);
    });
}
/**
 * Summary exports
 */

/**
 * @deprecated use core.summary
 */

/**
 * Path exports
 */

/**
 * Platform utilities exports
 */

//# sourceMappingURL=core.js.map

/***/ })

/******/ });
/************************************************************************/
/******/ // The module cache
/******/ var __webpack_module_cache__ = {};
/******/ 
/******/ // The require function
/******/ function __nccwpck_require__(moduleId) {
/******/ 	// Check if module is in cache
/******/ 	var cachedModule = __webpack_module_cache__[moduleId];
/******/ 	if (cachedModule !== undefined) {
/******/ 		return cachedModule.exports;
/******/ 	}
/******/ 	// Create a new module (and put it into the cache)
/******/ 	var module = __webpack_module_cache__[moduleId] = {
/******/ 		// no module.id needed
/******/ 		// no module.loaded needed
/******/ 		exports: {}
/******/ 	};
/******/ 
/******/ 	// Execute the module function
/******/ 	var threw = true;
/******/ 	try {
/******/ 		__webpack_modules__[moduleId].call(module.exports, module, module.exports, __nccwpck_require__);
/******/ 		threw = false;
/******/ 	} finally {
/******/ 		if(threw) delete __webpack_module_cache__[moduleId];
/******/ 	}
/******/ 
/******/ 	// Return the exports of the module
/******/ 	return module.exports;
/******/ }
/******/ 
/******/ // expose the modules object (__webpack_modules__)
/******/ __nccwpck_require__.m = __webpack_modules__;
/******/ 
/************************************************************************/
/******/ /* webpack/runtime/asset-relocator-loader */
/******/ if (typeof __nccwpck_require__ !== 'undefined') __nccwpck_require__.ab = decodeURIComponent(new URL('.', import.meta.url).pathname).slice(import.meta.url.match(/^file:\/\/\/\w:/) ? 1 : 0, -1) + "/";
/******/ 
/******/ /* webpack/runtime/async module */
/******/ (() => {
/******/ 	var webpackQueues = typeof Symbol === "function" ? Symbol("webpack queues") : "__webpack_queues__";
/******/ 	var webpackExports = typeof Symbol === "function" ? Symbol("webpack exports") : "__webpack_exports__";
/******/ 	var webpackError = typeof Symbol === "function" ? Symbol("webpack error") : "__webpack_error__";
/******/ 	var resolveQueue = (queue) => {
/******/ 		if(queue && queue.d < 1) {
/******/ 			queue.d = 1;
/******/ 			queue.forEach((fn) => (fn.r--));
/******/ 			queue.forEach((fn) => (fn.r-- ? fn.r++ : fn()));
/******/ 		}
/******/ 	}
/******/ 	var wrapDeps = (deps) => (deps.map((dep) => {
/******/ 		if(dep !== null && typeof dep === "object") {
/******/ 			if(dep[webpackQueues]) return dep;
/******/ 			if(dep.then) {
/******/ 				var queue = [];
/******/ 				queue.d = 0;
/******/ 				dep.then((r) => {
/******/ 					obj[webpackExports] = r;
/******/ 					resolveQueue(queue);
/******/ 				}, (e) => {
/******/ 					obj[webpackError] = e;
/******/ 					resolveQueue(queue);
/******/ 				});
/******/ 				var obj = {};
/******/ 				obj[webpackQueues] = (fn) => (fn(queue));
/******/ 				return obj;
/******/ 			}
/******/ 		}
/******/ 		var ret = {};
/******/ 		ret[webpackQueues] = x => {};
/******/ 		ret[webpackExports] = dep;
/******/ 		return ret;
/******/ 	}));
/******/ 	__nccwpck_require__.a = (module, body, hasAwait) => {
/******/ 		var queue;
/******/ 		hasAwait && ((queue = []).d = -1);
/******/ 		var depQueues = new Set();
/******/ 		var exports = module.exports;
/******/ 		var currentDeps;
/******/ 		var outerResolve;
/******/ 		var reject;
/******/ 		var promise = new Promise((resolve, rej) => {
/******/ 			reject = rej;
/******/ 			outerResolve = resolve;
/******/ 		});
/******/ 		promise[webpackExports] = exports;
/******/ 		promise[webpackQueues] = (fn) => (queue && fn(queue), depQueues.forEach(fn), promise["catch"](x => {}));
/******/ 		module.exports = promise;
/******/ 		body((deps) => {
/******/ 			currentDeps = wrapDeps(deps);
/******/ 			var fn;
/******/ 			var getResult = () => (currentDeps.map((d) => {
/******/ 				if(d[webpackError]) throw d[webpackError];
/******/ 				return d[webpackExports];
/******/ 			}))
/******/ 			var promise = new Promise((resolve) => {
/******/ 				fn = () => (resolve(getResult));
/******/ 				fn.r = 0;
/******/ 				var fnQueue = (q) => (q !== queue && !depQueues.has(q) && (depQueues.add(q), q && !q.d && (fn.r++, q.push(fn))));
/******/ 				currentDeps.map((dep) => (dep[webpackQueues](fnQueue)));
/******/ 			});
/******/ 			return fn.r ? promise : getResult();
/******/ 		}, (err) => ((err ? reject(promise[webpackError] = err) : outerResolve(exports)), resolveQueue(queue)));
/******/ 		queue && queue.d < 0 && (queue.d = 0);
/******/ 	};
/******/ })();
/******/ 
/******/ /* webpack/runtime/compat get default export */
/******/ (() => {
/******/ 	// getDefaultExport function for compatibility with non-harmony modules
/******/ 	__nccwpck_require__.n = (module) => {
/******/ 		var getter = module && module.__esModule ?
/******/ 			() => (module['default']) :
/******/ 			() => (module);
/******/ 		__nccwpck_require__.d(getter, { a: getter });
/******/ 		return getter;
/******/ 	};
/******/ })();
/******/ 
/******/ /* webpack/runtime/create fake namespace object */
/******/ (() => {
/******/ 	var getProto = Object.getPrototypeOf ? (obj) => (Object.getPrototypeOf(obj)) : (obj) => (obj.__proto__);
/******/ 	var leafPrototypes;
/******/ 	// create a fake namespace object
/******/ 	// mode & 1: value is a module id, require it
/******/ 	// mode & 2: merge all properties of value into the ns
/******/ 	// mode & 4: return value when already ns object
/******/ 	// mode & 16: return value when it's Promise-like
/******/ 	// mode & 8|1: behave like require
/******/ 	__nccwpck_require__.t = function(value, mode) {
/******/ 		if(mode & 1) value = this(value);
/******/ 		if(mode & 8) return value;
/******/ 		if(typeof value === 'object' && value) {
/******/ 			if((mode & 4) && value.__esModule) return value;
/******/ 			if((mode & 16) && typeof value.then === 'function') return value;
/******/ 		}
/******/ 		var ns = Object.create(null);
/******/ 		__nccwpck_require__.r(ns);
/******/ 		var def = {};
/******/ 		leafPrototypes = leafPrototypes || [null, getProto({}), getProto([]), getProto(getProto)];
/******/ 		for(var current = mode & 2 && value; typeof current == 'object' && !~leafPrototypes.indexOf(current); current = getProto(current)) {
/******/ 			Object.getOwnPropertyNames(current).forEach((key) => (def[key] = () => (value[key])));
/******/ 		}
/******/ 		def['default'] = () => (value);
/******/ 		__nccwpck_require__.d(ns, def);
/******/ 		return ns;
/******/ 	};
/******/ })();
/******/ 
/******/ /* webpack/runtime/define property getters */
/******/ (() => {
/******/ 	// define getter functions for harmony exports
/******/ 	__nccwpck_require__.d = (exports, definition) => {
/******/ 		for(var key in definition) {
/******/ 			if(__nccwpck_require__.o(definition, key) && !__nccwpck_require__.o(exports, key)) {
/******/ 				Object.defineProperty(exports, key, { enumerable: true, get: definition[key] });
/******/ 			}
/******/ 		}
/******/ 	};
/******/ })();
/******/ 
/******/ /* webpack/runtime/ensure chunk */
/******/ (() => {
/******/ 	__nccwpck_require__.f = {};
/******/ 	// This file contains only the entry chunk.
/******/ 	// The chunk loading function for additional chunks
/******/ 	__nccwpck_require__.e = (chunkId) => {
/******/ 		return Promise.all(Object.keys(__nccwpck_require__.f).reduce((promises, key) => {
/******/ 			__nccwpck_require__.f[key](chunkId, promises);
/******/ 			return promises;
/******/ 		}, []));
/******/ 	};
/******/ })();
/******/ 
/******/ /* webpack/runtime/get javascript chunk filename */
/******/ (() => {
/******/ 	// This function allow to reference async chunks
/******/ 	__nccwpck_require__.u = (chunkId) => {
/******/ 		// return url for filenames based on template
/******/ 		return "" + chunkId + ".index.js";
/******/ 	};
/******/ })();
/******/ 
/******/ /* webpack/runtime/hasOwnProperty shorthand */
/******/ (() => {
/******/ 	__nccwpck_require__.o = (obj, prop) => (Object.prototype.hasOwnProperty.call(obj, prop))
/******/ })();
/******/ 
/******/ /* webpack/runtime/make namespace object */
/******/ (() => {
/******/ 	// define __esModule on exports
/******/ 	__nccwpck_require__.r = (exports) => {
/******/ 		if(typeof Symbol !== 'undefined' && Symbol.toStringTag) {
/******/ 			Object.defineProperty(exports, Symbol.toStringTag, { value: 'Module' });
/******/ 		}
/******/ 		Object.defineProperty(exports, '__esModule', { value: true });
/******/ 	};
/******/ })();
/******/ 
/******/ /* webpack/runtime/import chunk loading */
/******/ (() => {
/******/ 	// no baseURI
/******/ 	
/******/ 	// object to store loaded and loading chunks
/******/ 	// undefined = chunk not loaded, null = chunk preloaded/prefetched
/******/ 	// [resolve, Promise] = chunk loading, 0 = chunk loaded
/******/ 	var installedChunks = {
/******/ 		792: 0
/******/ 	};
/******/ 	
/******/ 	var installChunk = (data) => {
/******/ 		var {ids, modules, runtime} = data;
/******/ 		// add "modules" to the modules object,
/******/ 		// then flag all "ids" as loaded and fire callback
/******/ 		var moduleId, chunkId, i = 0;
/******/ 		for(moduleId in modules) {
/******/ 			if(__nccwpck_require__.o(modules, moduleId)) {
/******/ 				__nccwpck_require__.m[moduleId] = modules[moduleId];
/******/ 			}
/******/ 		}
/******/ 		if(runtime) runtime(__nccwpck_require__);
/******/ 		for(;i < ids.length; i++) {
/******/ 			chunkId = ids[i];
/******/ 			if(__nccwpck_require__.o(installedChunks, chunkId) && installedChunks[chunkId]) {
/******/ 				installedChunks[chunkId][0]();
/******/ 			}
/******/ 			installedChunks[ids[i]] = 0;
/******/ 		}
/******/ 	
/******/ 	}
/******/ 	
/******/ 	__nccwpck_require__.f.j = (chunkId, promises) => {
/******/ 			// import() chunk loading for javascript
/******/ 			var installedChunkData = __nccwpck_require__.o(installedChunks, chunkId) ? installedChunks[chunkId] : undefined;
/******/ 			if(installedChunkData !== 0) { // 0 means "already installed".
/******/ 	
/******/ 				// a Promise means "currently loading".
/******/ 				if(installedChunkData) {
/******/ 					promises.push(installedChunkData[1]);
/******/ 				} else {
/******/ 					if(true) { // all chunks have JS
/******/ 						// setup Promise in chunk cache
/******/ 						var promise = import("./" + __nccwpck_require__.u(chunkId)).then(installChunk, (e) => {
/******/ 							if(installedChunks[chunkId] !== 0) installedChunks[chunkId] = undefined;
/******/ 							throw e;
/******/ 						});
/******/ 						var promise = Promise.race([promise, new Promise((resolve) => (installedChunkData = installedChunks[chunkId] = [resolve]))])
/******/ 						promises.push(installedChunkData[1] = promise);
/******/ 					}
/******/ 				}
/******/ 			}
/******/ 	};
/******/ 	
/******/ 	// no prefetching
/******/ 	
/******/ 	// no preloaded
/******/ 	
/******/ 	// no external install chunk
/******/ 	
/******/ 	// no on chunks loaded
/******/ })();
/******/ 
/************************************************************************/
/******/ 
/******/ // startup
/******/ // Load entry module and return exports
/******/ // This entry module used 'module' so it can't be inlined
/******/ var __webpack_exports__ = __nccwpck_require__(9407);
/******/ __webpack_exports__ = await __webpack_exports__;
/******/ 
