export const id = 4;
export const ids = [4,614,847];
export const modules = {

/***/ 7847:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

__webpack_require__.r(__webpack_exports__);
/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   KEY_CHECK_POLICY: () => (/* binding */ KEY_CHECK_POLICY),
/* harmony export */   checkKey: () => (/* binding */ checkKey),
/* harmony export */   keyAdvice: () => (/* binding */ keyAdvice),
/* harmony export */   keyHeadline: () => (/* binding */ keyHeadline)
/* harmony export */ });
/* harmony import */ var _errors_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(3916);
/* harmony import */ var _http_client_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(3329);
/* harmony import */ var _http_transport_js__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(1517);
/* harmony import */ var _service_js__WEBPACK_IMPORTED_MODULE_3__ = __webpack_require__(448);




/**
 * The key and the bot, in both modes: the advice for an answer about them (401, 404, 410: one
 * home for each), the headline's words for it, and the key check that spends no update. Loaded
 * only by a run that needs one of them (a refusal, a run that sends nothing, vote mode).
 */
/** The live service's text at the fifth strike: `Your API key has been revoked due to spamming the stats API. ...` */
const FIFTH_STRIKE = /revoked due to spamming/i;
/**
 * What to do after an answer about the key or the bot, or undefined for any other status.
 *
 * The service's route code revokes a key only at the fifth update refused as early within 6
 * hours: it answers that update "Your API key has been revoked due to spamming…", and every
 * later use of the key, on this run or a later one, "This API key has been revoked.". So a 410
 * always means strikes, whatever its text, and the bot then has no key at all. A key the owner
 * regenerated or deleted on the manage page is not revoked: it is answered 401, like a
 * mistyped key or another bot's key.
 */
function keyAdvice(status, serviceText, botId) {
    switch (status) {
        case 401:
            return ("The API key was refused: the api-key secret does not hold this bot's current key. It may be mistyped, " +
                "regenerated or deleted on the bot's manage page since (the old key then stops working), or another bot's " +
                "key (each bot has its own). Copy the current key from this bot's manage page on discord.place into the secret.");
        case 404:
            return `The service lists no bot with ID ${botId}. Check bot-id, and that the bot is listed on discord.place.`;
        case 410: {
            const when = serviceText !== undefined && FIFTH_STRIKE.test(serviceText)
                ? 'This update was the fifth refused as early within 6 hours (strikes), so the service revoked the key.'
                : 'The service revoked the key after five updates were refused as early within 6 hours (strikes), on this run or an earlier one; a revoked key stays revoked.';
            return (`${when} The bot has no key now: generate a new key on the bot's manage page on discord.place and store it in the ` +
                'api-key secret. Then keep updates 6 hours apart: keep cooldown-check: true, schedule at most once every 6 hours, ' +
                `and put every stats job for this bot in one concurrency group (discord-place-stats-${botId}).`);
        }
        default:
            return undefined;
    }
}
/** The headline's few words for an answer about the key or the bot (401, 404, 410), else undefined. */
function keyHeadline(status) {
    if (status === 401)
        return 'API key refused';
    if (status === 404)
        return 'bot not listed on discord.place';
    if (status === 410)
        return 'API key revoked (strikes)';
    return undefined;
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
        answer = await deps.requests.send({ method: 'GET', url: `${plan.baseUrl}/bots/${plan.botId}/voters/${plan.botId}`, headers: (0,_service_js__WEBPACK_IMPORTED_MODULE_3__/* .keyedHeaders */ .hk)(plan.apiKey) }, KEY_CHECK_POLICY);
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
        return { state: 'unchecked', reason: "a 200 that is not the service's answer (no JSON with a voted field: a portal or proxy page?)" };
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

/***/ 1623:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   afterRefusal: () => (/* binding */ afterRefusal),
/* harmony export */   answerFromStatusLine: () => (/* binding */ answerFromStatusLine),
/* harmony export */   explainFailure: () => (/* binding */ explainFailure),
/* harmony export */   failureHeadline: () => (/* binding */ failureHeadline),
/* harmony export */   kindOf429: () => (/* binding */ kindOf429),
/* harmony export */   strikeMessage: () => (/* binding */ strikeMessage),
/* harmony export */   whatWasSent: () => (/* binding */ whatWasSent)
/* harmony export */ });
/* harmony import */ var _errors_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(3916);
/* harmony import */ var _http_client_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(3329);
/* harmony import */ var _keys_js__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(7847);
/* harmony import */ var _summary_js__WEBPACK_IMPORTED_MODULE_3__ = __webpack_require__(1577);
/* harmony import */ var _record_js__WEBPACK_IMPORTED_MODULE_4__ = __webpack_require__(8614);
/* harmony import */ var _window_js__WEBPACK_IMPORTED_MODULE_5__ = __webpack_require__(7743);






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
    return typeof body?.error === 'string' && /too many requests/i.test(body.error) ? 'limiter' : 'six-hours';
}
/**
 * A failure after the status line and headers arrived (the body cut off, or too slow) is an
 * answer: the service received the update and decided. Its status decides the outcome; the
 * body is not there to read.
 */
function answerFromStatusLine(error) {
    if (error.answered === undefined)
        return undefined;
    return { status: error.answered.status, headers: error.answered.headers, text: '', truncated: true, json: undefined };
}
/** The headline's few words for an update the service answered with a failure. */
function failureHeadline(status) {
    const key = (0,_keys_js__WEBPACK_IMPORTED_MODULE_2__.keyHeadline)(status);
    if (key !== undefined)
        return key;
    if (status === 400)
        return 'count refused by discord.place';
    if (status >= 300 && status < 400)
        return 'redirect not followed';
    if (status >= 500)
        return 'discord.place failed on its side';
    return `unexpected answer (${status})`;
}
/** One line for a refused update: what the service said, and what to do about it. */
function explainFailure(answer, serviceText, plan) {
    const said = `the service answered ${answer.status}${serviceText === undefined ? '' : ` with "${serviceText}"`}`;
    const advice = adviceFor(answer.status, serviceText, plan);
    return `Stats update failed: ${said}. ${advice}`;
}
function adviceFor(status, serviceText, plan) {
    switch (status) {
        case 400:
            if (plan.body.server_count !== undefined && !/command/i.test(serviceText ?? '')) {
                return ('The service accepts a server count only within max(50, 10%) of the count Discord reports for the bot, and ' +
                    `refuses the whole update: nothing was stored${plan.body.command_count === undefined ? '' : ', the command count neither'}. ` +
                    'Send the count your bot sees (its guild cache), or leave server-count out and set discord-token to read it from Discord.');
            }
            return 'Check command-count (0 to 1000) and server-count (0 to 10000000).';
        case 401:
        case 404:
        case 410:
            return (0,_keys_js__WEBPACK_IMPORTED_MODULE_2__.keyAdvice)(status, serviceText, plan.botId);
        default:
            if (status >= 300 && status < 400) {
                return ('A redirect is not followed: a request carrying the API key never goes to another address. ' +
                    "Set base-url to the service's own address.");
            }
            if (status >= 500) {
                return ('The service failed on its side; nothing in the workflow needs to change. The update was not repeated ' +
                    '(a second update could count as an early one); the next run will try again.');
            }
            return 'This answer was not expected; the update was not repeated. Check base-url and the service status.';
    }
}
/**
 * The error of an update the service refused as too early: a strike was counted, five within
 * 6 hours revoke the key, and the likely cause with what to change. `stopped` says that a stop
 * cut the re-read short (the strike stands all the same).
 */
function strikeMessage(refusal, botId, stopped, workflow) {
    const said = refusal.answer === undefined ? '' : `: "${refusal.answer}"`;
    const next = refusal.nextUpdateAt === undefined
        ? 'When the next update is accepted is unknown.'
        : `The next update is accepted from ${(0,_summary_js__WEBPACK_IMPORTED_MODULE_3__/* .when */ .z7)(refusal.nextUpdateAt, refusal.at)}.`;
    const stop = stopped === undefined ? '' : ` ${stopped} It came while the bot's record was read again, after the refusal.`;
    return (`Stats update refused as too early (429${said}): the service counted a strike against the API key, and 5 strikes ` +
        `within 6 hours revoke it. ${strikeCause(refusal, botId)}${workflow === undefined ? '' : ` ${workflow}`} ${next} ` +
        `The update was not retried.${stop}`);
}
/** The likely cause of a strike, and what to change. */
function strikeCause(refusal, botId) {
    const group = `concurrency: group: discord-place-stats-${botId}, cancel-in-progress: false`;
    switch (refusal.strikeCause) {
        case 'overlap':
            return (`Likely cause: overlapping runs. Another run updated the counts at ${(0,_summary_js__WEBPACK_IMPORTED_MODULE_3__/* .utc */ .n$)(refusal.overlap, refusal.at)}, after this run ` +
                "read the bot's record: runs that overlap (a deploy and the schedule at once) both pass the check. Put the stats job " +
                `of every workflow for this bot in one concurrency group (${group}) so that they queue.`);
        case 'unverified':
            return ('Likely cause: discord.place has not verified the bot yet, and its submission counts as an update, so any update ' +
                'within 6 hours of submitting it is refused. Keep cooldown-check: true, which holds updates until the bot is verified.');
        case 'unchecked':
            return ('Likely cause: it was sent without reading the record first (cooldown-check: false), less than 6 hours after the ' +
                'last update (or after the bot was submitted, if it is not verified yet). Keep cooldown-check: true.');
        case 'unknown':
            return ('Likely cause: overlapping runs, or an update from elsewhere (the bot itself, another workflow) after this run read ' +
                `the record. Schedule this at most once every 6 hours, keep cooldown-check: true, and put every stats job for this bot in one concurrency group (${group}).`);
    }
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
        fresh = await (0,_record_js__WEBPACK_IMPORTED_MODULE_4__.readPublicRecord)(settings, deps);
    }
    catch (error) {
        if (error instanceof _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .StoppedError */ .Ko)
            stopped = error.message;
        else if (!(error instanceof _http_client_js__WEBPACK_IMPORTED_MODULE_1__/* .DeadlineError */ .j3))
            throw error;
    }
    const future = (read) => {
        const from = read?.ok ? (0,_window_js__WEBPACK_IMPORTED_MODULE_5__/* .acceptsFrom */ .g8)(read) : undefined;
        return from !== undefined && from.getTime() > deps.requests.clock.now() ? from : undefined;
    };
    const before = first?.ok ? (0,_window_js__WEBPACK_IMPORTED_MODULE_5__/* .lastUpdate */ .q8)(first.record) : undefined;
    const after = fresh?.ok ? (0,_window_js__WEBPACK_IMPORTED_MODULE_5__/* .lastUpdate */ .q8)(fresh.record) : undefined;
    const overlap = first?.ok && after !== undefined && (before === undefined || after > before) ? after : undefined;
    const strikeCause = overlap !== undefined
        ? 'overlap'
        : fresh?.ok === false && fresh.problem === 'unverified'
            ? 'unverified'
            : first === undefined
                ? 'unchecked'
                : 'unknown';
    return { found: { nextUpdateAt: future(fresh) ?? future(first), overlap, strikeCause }, stopped };
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


/***/ }),

/***/ 8614:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   holdBack: () => (/* binding */ holdBack),
/* harmony export */   readPublicRecord: () => (/* binding */ readPublicRecord)
/* harmony export */ });
/* unused harmony exports RECORD_POLICY, interpretRecord */
/* harmony import */ var _errors_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(3916);
/* harmony import */ var _http_transport_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(1517);
/* harmony import */ var _http_client_js__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(3329);
/* harmony import */ var _service_js__WEBPACK_IMPORTED_MODULE_3__ = __webpack_require__(448);
/* harmony import */ var _version_js__WEBPACK_IMPORTED_MODULE_4__ = __webpack_require__(1013);
/* harmony import */ var _window_js__WEBPACK_IMPORTED_MODULE_5__ = __webpack_require__(7743);






/**
 * The record keeps the key safe, so it is read patiently: 5xx and network failures are retried
 * here, and the read limiter's 429 is waited out by readPublicRecord, which knows how much of
 * the step's time the update still needs. A record is kept up to a megabyte.
 */
const RECORD_POLICY = {
    ..._http_client_js__WEBPACK_IMPORTED_MODULE_2__/* .READ_DEFAULTS */ .qW,
    name: "the bot's public record",
    attempts: 3,
    retryStatuses: _http_client_js__WEBPACK_IMPORTED_MODULE_2__/* .SERVER_ERRORS */ .Qx,
    maxBodyBytes: 1024 * 1024
};
/** Read-limiter waits one read may sit out (the live limiter asks for 60 s each). */
const MAX_LIMITER_WAITS = 3;
/** How far an update time may lie ahead of the runner's clock: clocks differ, by seconds, not hours. */
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
            answer = await deps.requests.send({ method: 'GET', url, headers: { Accept: 'application/json', 'Cache-Control': 'no-cache', 'User-Agent': _version_js__WEBPACK_IMPORTED_MODULE_4__/* .USER_AGENT */ ._O } }, RECORD_POLICY);
        }
        catch (error) {
            if (!(error instanceof _http_transport_js__WEBPACK_IMPORTED_MODULE_1__/* .NetworkError */ .Dr))
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
            return { ...read, cached: Number(answer.headers['age']) > 0, lagMs: lagMs(answer, receivedAt) };
        if (answer.status !== 429)
            return read.problem === 'unreadable' ? unreadable(deps, read) : read;
        // The read limiter: wait as long as it asks (at least a second), if the step has room.
        const wait = Math.max(1_000, (0,_http_transport_js__WEBPACK_IMPORTED_MODULE_1__/* .retryAfterMs */ .Vs)(answer) ?? 60_000);
        const room = deps.requests.remainingMs() - 2 * deps.requests.limits.attemptTimeoutMs;
        if (waits >= MAX_LIMITER_WAITS || wait > room) {
            const why = `the service's read limit asks for a wait of ${Math.ceil(wait / 1000)} s, more than the step's timeout leaves`;
            return unreadable(deps, { ...read, reason: waits >= MAX_LIMITER_WAITS ? `${read.reason}, ${waits + 1} times` : why });
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
    const noCheck = '(cooldown-check: false sends without the check.)';
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
                        `is a strike whenever the last one was less than 6 hours ago, so nothing was sent; the next run will try again. ${noCheck}`
                };
            case 'unreachable':
                throw new _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .ActionError */ .lZ(`Could not read the bot's public record: ${read.reason}. Nothing was sent. Check base-url and the runner's network; the next run will try again.`, { headline: 'discord.place unreachable' });
            case 'absent':
                // The stats route answers 404 for the same bot: fail before spending a request on it.
                throw new _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .ActionError */ .lZ(`The service lists no bot with ID ${botId} (its public record answered 404), so nothing was sent. ` +
                    "Check bot-id: it is the bot's Discord application ID, and the bot must be listed on discord.place.", { headline: 'bot not listed on discord.place' });
        }
    }
    const from = (0,_window_js__WEBPACK_IMPORTED_MODULE_5__/* .acceptsFrom */ .g8)(read);
    if (from !== undefined && from > now)
        return { skip: 'recent', nextUpdateAt: from };
    // A copy from a cache (Age > 0) may predate the last update: it can hold an update back,
    // never clear one.
    if (read.cached === true) {
        return {
            skip: 'unchecked',
            warning: "Stats not sent: the bot's public record came from a cache (Age header above 0), so it may not show the latest " +
                `update, and an update within 6 hours of it would be a strike. The next run will try again. ${noCheck}`
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
    // Only the service's own answer means "not verified": a proxy's or a firewall's 403 (an HTML
    // page, a gateway's {"message":"Forbidden"}) says nothing about the bot, and taking it for the
    // service's would send the update without the check.
    if (status === 403 && isServiceAnswer(answer)) {
        return { ok: false, status, problem: 'unverified', reason: 'the bot is not verified yet, so its record is not public (403)' };
    }
    if (status === 403) {
        return {
            ok: false,
            status,
            problem: 'unreadable',
            reason: "a 403 that is not the service's own answer (a proxy or firewall in the way?)"
        };
    }
    if (status === 404)
        return { ok: false, status, problem: 'absent', reason: 'the service has no record for this bot (404)' };
    if (status === 429)
        return { ok: false, status, problem: 'unreadable', reason: 'the service is limiting reads (429)' };
    if (status !== 200)
        return { ok: false, status, problem: 'unreadable', reason: `the service answered ${status}` };
    const json = answer.json;
    if (typeof json !== 'object' || json === null || Array.isArray(json)) {
        return { ok: false, status, problem: 'unreadable', reason: 'the answer was not a JSON object' };
    }
    const fields = json;
    const record = {
        username: typeof fields['username'] === 'string' && fields['username'].trim() !== '' ? fields['username'].trim() : undefined,
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
/** The service's own error answer: JSON (by its content type), `success: false` and an `error` text. */
function isServiceAnswer(answer) {
    const json = answer.json;
    const type = String(answer.headers['content-type'] ?? '');
    return /^application\/json\b/i.test(type) && json?.success === false && (0,_service_js__WEBPACK_IMPORTED_MODULE_3__/* .serviceError */ .cg)(answer) !== undefined;
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


/***/ })

};
