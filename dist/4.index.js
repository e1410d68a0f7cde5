export const id = 4;
export const ids = [4,847];
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
 * later use of the key, on this run or a later one, "This API key has been revoked.", even once
 * the owner has generated a new key the secret does not hold yet. So a 410 always means
 * strikes, whatever its text. A key the owner regenerated or deleted on the manage page is not
 * revoked: it is answered 401, like a mistyped key or another bot's key.
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
            return (`${when} Generate a new key on the bot's manage page on discord.place (if not done yet) and store it in the ` +
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
/* harmony import */ var _window_js__WEBPACK_IMPORTED_MODULE_4__ = __webpack_require__(7743);





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
 * 6 hours revoke the key, and the likely cause with what to change. `stopped` says what a stop
 * (or the deadline) cut short after the refusal: the strike stands all the same.
 */
function strikeMessage(refusal, botId, stopped, workflow) {
    const said = refusal.answer === undefined ? '' : `: "${refusal.answer}"`;
    const next = refusal.nextUpdateAt === undefined
        ? 'When the next update is accepted is unknown.'
        : `The next update is accepted from ${(0,_summary_js__WEBPACK_IMPORTED_MODULE_3__/* .when */ .z7)(refusal.nextUpdateAt, refusal.at)}.`;
    const stop = stopped === undefined ? '' : ` ${stopped}`;
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
        // The record reader is a chunk of its own, shared with the cooldown check and the delivery check.
        const { readPublicRecord } = await __webpack_require__.e(/* import() */ 614).then(__webpack_require__.bind(__webpack_require__, 8614));
        fresh = await readPublicRecord(settings, deps);
    }
    catch (error) {
        if (error instanceof _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .StoppedError */ .Ko)
            stopped = `${error.message} It came while the bot's record was read after the refusal.`;
        else if (!(error instanceof _http_client_js__WEBPACK_IMPORTED_MODULE_1__/* .DeadlineError */ .j3))
            throw error;
    }
    const future = (read) => {
        const from = read?.ok ? (0,_window_js__WEBPACK_IMPORTED_MODULE_4__/* .acceptsFrom */ .g8)(read) : undefined;
        return from !== undefined && from.getTime() > deps.requests.clock.now() ? from : undefined;
    };
    const before = first?.ok ? (0,_window_js__WEBPACK_IMPORTED_MODULE_4__/* .lastUpdate */ .q8)(first.record) : undefined;
    const after = fresh?.ok ? (0,_window_js__WEBPACK_IMPORTED_MODULE_4__/* .lastUpdate */ .q8)(fresh.record) : undefined;
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


/***/ })

};
