export const id = 83;
export const ids = [83];
export const modules = {

/***/ 4083:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

__webpack_require__.r(__webpack_exports__);
/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   VOTE_OUTCOMES: () => (/* binding */ VOTE_OUTCOMES),
/* harmony export */   announce: () => (/* binding */ announce),
/* harmony export */   renderSummary: () => (/* binding */ renderSummary),
/* harmony export */   reportVotes: () => (/* binding */ reportVotes),
/* harmony export */   writeOutputs: () => (/* binding */ writeOutputs)
/* harmony export */ });
/* harmony import */ var _actions_core__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(5049);
/* harmony import */ var _summary_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(1577);
/* harmony import */ var _text_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(8992);



/**
 * The vote-check mode's report: its outputs (the only writer of them), log lines and summary
 * section.
 */
const info = (line) => _actions_core__WEBPACK_IMPORTED_MODULE_2__/* .info */ .pq((0,_text_js__WEBPACK_IMPORTED_MODULE_1__/* .logText */ .kc)(line));
/** Writes the outputs, the log lines and the summary section; returns the failure, if any. */
async function reportVotes(settings, outcome) {
    const outputsFailure = (0,_summary_js__WEBPACK_IMPORTED_MODULE_0__/* .writeOutputsSafely */ .mu)(() => writeOutputs(outcome));
    announce(outcome);
    if (outputsFailure !== undefined && outcome.error !== undefined)
        _actions_core__WEBPACK_IMPORTED_MODULE_2__/* .warning */ .$e((0,_text_js__WEBPACK_IMPORTED_MODULE_1__/* .annotationText */ .xr)(outputsFailure));
    await (0,_summary_js__WEBPACK_IMPORTED_MODULE_0__/* .writeSection */ .Zn)(summary => summary.addRaw(renderSummary(settings, outcome, outputsFailure), true));
    return outcome.error?.message ?? outputsFailure;
}
/**
 * `result` and `voted` speak for every user only when every user was checked; otherwise the
 * result is `failed` and `votes` holds the users that were.
 */
function writeOutputs(outcome) {
    _actions_core__WEBPACK_IMPORTED_MODULE_2__/* .setOutput */ .uH('result', outcome.result);
    if (outcome.status !== undefined)
        _actions_core__WEBPACK_IMPORTED_MODULE_2__/* .setOutput */ .uH('status', outcome.status);
    if (outcome.result === 'dry-run')
        return;
    const all = [...outcome.votes.values()];
    if (outcome.result === 'voted' || outcome.result === 'not-voted')
        _actions_core__WEBPACK_IMPORTED_MODULE_2__/* .setOutput */ .uH('voted', outcome.result === 'voted');
    _actions_core__WEBPACK_IMPORTED_MODULE_2__/* .setOutput */ .uH('votes', JSON.stringify(Object.fromEntries([...outcome.votes].map(([id, vote]) => [id, voteJson(vote)]))));
    const only = all.length === 1 && outcome.unchecked.length === 0 ? all[0] : undefined;
    if (only?.lastVote)
        _actions_core__WEBPACK_IMPORTED_MODULE_2__/* .setOutput */ .uH('last-vote', only.lastVote.toISOString());
}
function voteJson(vote) {
    return { voted: vote.voted, votes: vote.votes, last_vote: vote.lastVote?.toISOString() ?? null };
}
/** One log line per user checked. */
function announce(outcome) {
    const { at } = outcome;
    for (const [id, vote] of outcome.votes) {
        const details = [
            vote.votes === null ? '' : `${vote.votes} votes`,
            vote.lastVote ? `last ${(0,_summary_js__WEBPACK_IMPORTED_MODULE_0__/* .when */ .z7)(vote.lastVote, at)}` : ''
        ]
            .filter(Boolean)
            .join(', ');
        info(`User ${id}: ${vote.voted ? 'voted' : 'has not voted'} in the last 24 hours${details ? ` (${details})` : ''}.`);
    }
    if (outcome.keyCheck?.state === 'unchecked') {
        _actions_core__WEBPACK_IMPORTED_MODULE_2__/* .warning */ .$e((0,_text_js__WEBPACK_IMPORTED_MODULE_1__/* .annotationText */ .xr)(`The API key could not be checked (${outcome.keyCheck.reason}); the next run will check it.`), {
            title: 'Key not checked'
        });
    }
    if (outcome.rateLimited > 0)
        info(`The service's rate limit answered ${outcome.rateLimited} time(s); those checks were retried.`);
}
/**
 * The vote check's outcomes: for each `result`, the summary headline's mark and words, by how
 * many users were checked and how many had not voted. `npm run docs` writes them into
 * docs/troubleshooting.md; a failure's error says what to do.
 */
const VOTE_OUTCOMES = {
    voted: {
        mark: '✅',
        headline: (checked) => (checked === 1 ? 'voted' : `all ${checked} users voted`)
    },
    'not-voted': {
        mark: '⭕',
        headline: (checked, missing) => checked === 1
            ? 'not voted in the last 24 hours'
            : `${missing} of ${checked} users have not voted in the last 24 hours`
    },
    'dry-run': { mark: '🧪', headline: () => 'dry run: nobody checked' },
    failed: {
        mark: '❌',
        headline: (_checked, _missing, unchecked, why) => `failed${why === undefined ? '' : `: ${why}`}${unchecked === 0 ? '' : `${why === undefined ? ':' : ';'} ${unchecked} user(s) not checked`}`
    }
};
function headline(outcome) {
    const { mark, headline } = VOTE_OUTCOMES[outcome.result];
    const missing = [...outcome.votes.values()].filter(vote => !vote.voted).length;
    return [
        mark,
        headline(outcome.votes.size, missing, outcome.unchecked.length, outcome.error?.headline)
    ];
}
/** The summary section, as HTML. */
function renderSummary(settings, outcome, outputsFailure) {
    const { at } = outcome;
    const [mark, words] = (0,_summary_js__WEBPACK_IMPORTED_MODULE_0__/* .headlineWith */ .LB)(outputsFailure, headline(outcome));
    const parts = [
        `<h3>${mark} Vote check for ${(0,_summary_js__WEBPACK_IMPORTED_MODULE_0__/* .botTitle */ .Oi)(settings.botId, undefined, settings.baseUrl)}: ${(0,_text_js__WEBPACK_IMPORTED_MODULE_1__/* .html */ .qy)(words)}</h3>\n`
    ];
    if (outcome.votes.size > 0 || outcome.unchecked.length > 0) {
        const rows = [...outcome.votes].map(([id, vote]) => `<tr><td><code>${id}</code></td><td>${vote.voted ? 'yes' : 'no'}</td><td>${vote.votes === null ? '' : (0,_summary_js__WEBPACK_IMPORTED_MODULE_0__/* .number */ .ai)(vote.votes)}</td><td>${vote.lastVote ? (0,_text_js__WEBPACK_IMPORTED_MODULE_1__/* .html */ .qy)((0,_summary_js__WEBPACK_IMPORTED_MODULE_0__/* .when */ .z7)(vote.lastVote, at)) : ''}</td></tr>`);
        if (outcome.result === 'failed')
            for (const id of outcome.unchecked)
                rows.push(`<tr><td><code>${id}</code></td><td>not checked</td><td></td><td></td></tr>`);
        parts.push(`<table>\n<tr><th>User</th><th>Voted in the last 24 hours</th><th>Votes</th><th>Last vote</th></tr>\n${rows.join('\n')}\n</table>\n`);
    }
    else if (outcome.result === 'dry-run') {
        parts.push(`<p>A real run would check ${settings.userIds.length} user(s): ${settings.userIds.map(id => `<code>${id}</code>`).join(', ')}.</p>\n`);
    }
    if (outcome.error !== undefined)
        parts.push((0,_summary_js__WEBPACK_IMPORTED_MODULE_0__/* .markedParagraph */ .V4)('❌', 'Error:', outcome.error.message));
    if (outputsFailure !== undefined)
        parts.push((0,_summary_js__WEBPACK_IMPORTED_MODULE_0__/* .markedParagraph */ .V4)('❌', 'Error:', outputsFailure));
    return parts.join('');
}


/***/ })

};
