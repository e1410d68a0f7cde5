export const id = 985;
export const ids = [985];
export const modules = {

/***/ 8985:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

__webpack_require__.r(__webpack_exports__);
/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   VOTE_POLICY: () => (/* binding */ VOTE_POLICY),
/* harmony export */   readVote: () => (/* binding */ readVote),
/* harmony export */   runVotes: () => (/* binding */ runVotes)
/* harmony export */ });
/* harmony import */ var _errors_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(3916);
/* harmony import */ var _http_transport_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(1517);
/* harmony import */ var _http_client_js__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(3329);
/* harmony import */ var _keys_js__WEBPACK_IMPORTED_MODULE_3__ = __webpack_require__(7847);
/* harmony import */ var _service_js__WEBPACK_IMPORTED_MODULE_4__ = __webpack_require__(448);





/** Vote checks wait out 429s through their pacer, bounded by rate-limit-wait; 5xx and lost connections are retried. */
const VOTE_POLICY = { ..._http_client_js__WEBPACK_IMPORTED_MODULE_2__/* .READ_DEFAULTS */ .qW, name: 'a vote check', attempts: 3, retryStatuses: [429, ..._http_client_js__WEBPACK_IMPORTED_MODULE_2__/* .SERVER_ERRORS */ .Qx] };
const MIN_429_WAIT_MS = 1_000;
/** How long a spent window without a `RateLimit-Reset` is given before the next try. */
const UNKNOWN_RESET_WAIT_MS = 1_000;
/** The largest time a Date holds (ECMAScript: 8.64e15 ms from 1970). */
const MAX_DATE_MS = 8.64e15;
/**
 * The vote-check mode: checks each user's vote, one check at a time on one kept-alive
 * connection, paced by the service's rate limit (the live service allows 100 checks per 5
 * minutes per bot). Checks in a row are enough: a round trip (tens of milliseconds) is nothing
 * against a window of 5 minutes, so checking in parallel would only reach the limit sooner and
 * then wait as long; and with one check at a time each answer's `RateLimit-Remaining` is
 * exact, so the pacing needs no counting of checks in flight. When an answer says the window
 * is spent the next check waits for its `RateLimit-Reset`; a 429 is waited out (`Retry-After`
 * or `retry_after`, at least a second) and the same user checked again. Waiting is bounded by
 * `rateLimitWaitMs` in all; what is not checked by then is reported, not guessed. The first
 * failure, or a stop, ends the run: nothing more is sent, and the users not checked are listed.
 * A dry run checks nobody, but checks the key when it has one.
 */
async function runVotes(plan, deps) {
    const none = {
        votes: new Map(),
        status: undefined,
        rateLimited: 0,
        unchecked: [],
        keyCheck: undefined,
        error: undefined,
        at: new Date(deps.requests.clock.now())
    };
    if (plan.dryRun || plan.apiKey === undefined) {
        deps.log(`Dry run: nothing sent. A real run would check the votes of ${plan.userIds.join(', ')}.`);
        if (plan.apiKey === undefined)
            return { ...none, result: 'dry-run' };
        try {
            const keyCheck = await (0,_keys_js__WEBPACK_IMPORTED_MODULE_3__/* .checkKey */ .yR)({ ...plan, apiKey: plan.apiKey }, deps);
            return { ...none, result: 'dry-run', keyCheck };
        }
        catch (error) {
            if (error instanceof _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .ActionError */ .lZ)
                return { ...none, result: 'failed', error };
            throw error;
        }
    }
    const pacer = new HeaderPacer(deps.requests, plan.rateLimitWaitMs);
    const votes = new Map();
    let failure;
    for (const userId of plan.userIds) {
        try {
            const answer = await checkOne({ ...plan, apiKey: plan.apiKey }, userId, pacer, deps.requests);
            votes.set(userId, readVote(answer, userId, plan));
        }
        catch (error) {
            if (error instanceof _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .StoppedError */ .Ko) {
                const cut = error.inFlight ? `, and the check of user ${userId} was sent but cut off before its answer` : '';
                failure = new _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .ActionError */ .lZ(`${error.message} ${votes.size} vote check(s) had been answered${cut}; no result is reported for an unfinished check.`);
            }
            else if (error instanceof _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .ActionError */ .lZ)
                failure = error;
            // Anything else is a bug: reported as one by main.ts, as in stats mode.
            else
                throw error;
            break;
        }
    }
    const unchecked = plan.userIds.filter(id => !votes.has(id));
    if (failure !== undefined && unchecked.length > 0)
        deps.log(`Not checked: ${unchecked.join(', ')}`);
    const missing = [...votes].filter(([, vote]) => !vote.voted).map(([id]) => id);
    // `voted` and `not-voted` need every user's answer; fail-if-not-voted keeps `not-voted`.
    const result = failure !== undefined ? 'failed' : missing.length > 0 ? 'not-voted' : 'voted';
    if (result === 'not-voted' && plan.failIfNotVoted) {
        failure = new _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .ActionError */ .lZ(`Not voted in the last 24 hours: ${missing.join(', ')} (fail-if-not-voted is true).`);
    }
    // The last answer's status, a 429 or a 5xx that was retried included.
    return {
        result,
        votes,
        status: pacer.lastStatus,
        rateLimited: pacer.rateLimited,
        unchecked,
        keyCheck: undefined,
        error: failure,
        at: new Date(deps.requests.clock.now())
    };
}
/** One user's check, under the vote policy (retries for 5xx and network errors) and the pacer. */
async function checkOne(plan, userId, pacer, requests) {
    try {
        return await requests.send({ method: 'GET', url: `${plan.baseUrl}/bots/${plan.botId}/voters/${userId}`, headers: (0,_service_js__WEBPACK_IMPORTED_MODULE_4__/* .keyedHeaders */ .hk)(plan.apiKey) }, VOTE_POLICY, { gate: pacer });
    }
    catch (error) {
        if (!(error instanceof _http_transport_js__WEBPACK_IMPORTED_MODULE_1__/* .NetworkError */ .Dr))
            throw error;
        throw new _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .ActionError */ .lZ(`Vote check for user ${userId} failed: ${error.message} (${VOTE_POLICY.attempts} tries).`);
    }
}
/** Reads one answer: 204 is "voted" (the original description), 200 JSON says it in `voted`. */
function readVote(answer, userId, plan) {
    if (answer.status === 204)
        return { voted: true, votes: null, lastVote: null };
    // The one reading of the vote route's answer, shared with the key check (service.ts).
    const body = answer.json;
    if (answer.status === 200 && (0,_service_js__WEBPACK_IMPORTED_MODULE_4__/* .isVoteAnswer */ .ZV)(body)) {
        const votes = typeof body.vote === 'number' && Number.isInteger(body.vote) && body.vote >= 0 ? body.vote : null;
        const lastVote = typeof body.lastVote === 'number' && Math.abs(body.lastVote) <= MAX_DATE_MS ? new Date(body.lastVote) : null;
        return { voted: body.voted, votes, lastVote };
    }
    const text = (0,_service_js__WEBPACK_IMPORTED_MODULE_4__/* .serviceError */ .cg)(answer);
    const said = text === undefined ? '' : ` with "${text}"`;
    const prefix = `Vote check for user ${userId} failed: the service answered ${answer.status}${said}.`;
    if (answer.status === 200)
        throw new _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .ActionError */ .lZ(`${prefix.slice(0, -1)} without a "voted" field. Check base-url.`);
    const advice = (0,_keys_js__WEBPACK_IMPORTED_MODULE_3__/* .keyAdvice */ .YH)(answer.status, text, plan.botId);
    if (advice !== undefined)
        throw new _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .ActionError */ .lZ(`${prefix} ${advice}`, { headline: (0,_keys_js__WEBPACK_IMPORTED_MODULE_3__/* .keyHeadline */ .Ku)(answer.status) });
    throw new _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .ActionError */ .lZ(`${prefix} This is not a vote answer, so the user's vote is unknown (not taken as "not voted").`);
}
/** A rate-limit header as a number of seconds or checks; NaN when absent or not a number. */
function headerNumber(answer, name) {
    const value = answer.headers[name];
    return typeof value === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : Number.NaN;
}
/**
 * Paces checks sent one at a time by the rate-limit headers of their answers: every attempt
 * (retries included) is admitted by acquire() and its answer read by settle(). After an
 * answer that leaves nothing in the window (`RateLimit-Remaining: 0`, or a 429) the next
 * attempt waits until the window ends; waits add up against `maxWaitMs`, end at the step's
 * deadline, and end at once when the run is stopped.
 */
class HeaderPacer {
    requests;
    maxWaitMs;
    /** 429 answers met. */
    rateLimited = 0;
    /** The status of the last answer, a 429 included. */
    lastStatus;
    /** No attempt goes out before this time. */
    holdUntil = 0;
    /**
     * When the current window ends: the earliest end any of its answers gave. A reset in whole
     * seconds is rounded up, never early, so each answer's end is at or after the real one and
     * the earliest is the closest; unknown (infinite) until an answer tells.
     */
    windowEndsAt = Number.POSITIVE_INFINITY;
    lastRemaining = Number.NaN;
    /** Time spent waiting for the rate limit. */
    waited = 0;
    constructor(requests, maxWaitMs) {
        this.requests = requests;
        this.maxWaitMs = maxWaitMs;
    }
    now() {
        return this.requests.clock.now();
    }
    /** Waits until the window allows the next attempt. */
    async acquire() {
        const wait = this.holdUntil - this.now();
        if (wait <= 0)
            return;
        if (this.waited + wait > this.maxWaitMs) {
            throw new _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .ActionError */ .lZ(`The service's rate limit would need a wait of ${Math.ceil(wait / 1000)} s more, beyond the ` +
                `rate-limit-wait of ${Math.round(this.maxWaitMs / 1000)} s.`);
        }
        this.waited += wait;
        await this.requests.sleep(wait, VOTE_POLICY);
    }
    /** Reads an attempt's answer, if one came: how much of the window is left, and when it ends. */
    settle(_ticket, answer) {
        if (answer === undefined)
            return;
        this.lastStatus = answer.status;
        const now = this.now();
        const [remaining, reset] = [headerNumber(answer, 'ratelimit-remaining'), headerNumber(answer, 'ratelimit-reset')];
        // A new window began: the one known has ended, or more checks are left than the last answer said.
        if (now >= this.windowEndsAt || remaining > this.lastRemaining)
            this.windowEndsAt = Number.POSITIVE_INFINITY;
        this.lastRemaining = remaining;
        if (Number.isFinite(reset))
            this.windowEndsAt = Math.min(this.windowEndsAt, now + reset * 1000);
        const refused = answer.status === 429;
        if (!refused && remaining !== 0)
            return;
        // Spent. Without a reset time, look again in a second.
        let until = Number.isFinite(this.windowEndsAt) ? this.windowEndsAt : now + UNKNOWN_RESET_WAIT_MS;
        if (refused) {
            this.rateLimited += 1;
            // At least a second, whatever the answer asks: a 429 must never be answered at once.
            until = Math.max(until, now + Math.max(MIN_429_WAIT_MS, (0,_http_transport_js__WEBPACK_IMPORTED_MODULE_1__/* .retryAfterMs */ .Vs)(answer) ?? 0));
        }
        this.holdUntil = Math.max(this.holdUntil, until);
    }
}


/***/ })

};
