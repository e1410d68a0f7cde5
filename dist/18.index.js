export const id = 18;
export const ids = [18];
export const modules = {

/***/ 6018:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   describeFindings: () => (/* binding */ describeFindings),
/* harmony export */   inspectWorkflow: () => (/* binding */ inspectWorkflow)
/* harmony export */ });
/* unused harmony export shortestGapMinutes */
/* harmony import */ var yaml__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(8815);

/**
 * Reads the workflow's text for the job that ran the step. Undefined when the text cannot be
 * parsed or holds no such job. A job that calls a reusable workflow (`uses:`) is not the job that
 * ran the step, whatever its name.
 */
function inspectWorkflow(text, job, cooldownCheck) {
    const workflow = readYaml(text);
    if (!isObject(workflow))
        return undefined;
    const found = isObject(workflow['jobs']) ? workflow['jobs'][job] : undefined;
    if (!isObject(found) || found['uses'] !== undefined)
        return undefined;
    const noGroup = !hasGroup(workflow['concurrency']) && !hasGroup(found['concurrency']);
    return { noGroup, tooOften: cooldownCheck ? undefined : frequentSchedule(workflow['on']) };
}
/**
 * The YAML text as plain values, or undefined when it is not one valid document. Bounded by
 * construction, so that no file under the size limit holds the run (a stop is acted on once it
 * returns): linear in the file's nodes, with none of the parser's own slow paths. As GitHub's own
 * parser: no duplicate-key check (quadratic in a mapping's size; the last key wins). Errors are not
 * made pretty (that quotes the line for each error, quadratic in a line of carriage returns), and
 * warnings are never printed (they quote the file, and the runner reads commands from stderr too).
 */
function readYaml(text) {
    // The parser makes an Error for each fault it finds, one for each character of a file of `]`:
    // their stack traces, which no one reads, were half of that file's time.
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
        // logLevel 'error' keeps a second document an error, as it is for GitHub.
        const document = (0,yaml__WEBPACK_IMPORTED_MODULE_0__/* .parseDocument */ .Tp)(text, {
            uniqueKeys: false,
            prettyErrors: false,
            logLevel: 'error'
        });
        if (document.errors.length > 0)
            return undefined;
        return plainValues(document.contents, anchorsOf(document));
    }
    catch {
        // Nesting deep enough to exhaust the stack.
        return undefined;
    }
    finally {
        Error.stackTraceLimit = stackTraceLimit;
    }
}
/**
 * The node each alias names: the last node before it that carries its anchor, found in one pass in
 * document order. The parser's own lookup walks the document again for each alias (quadratic: a
 * file of thousands of anchors, each used once, took seconds).
 */
function anchorsOf(document) {
    const named = new Map();
    const targets = new Map();
    (0,yaml__WEBPACK_IMPORTED_MODULE_0__/* .visit */ .YR)(document, {
        Node: (_, node) => {
            if ((0,yaml__WEBPACK_IMPORTED_MODULE_0__/* .isAlias */ .Vj)(node)) {
                const target = named.get(node.source);
                if (target !== undefined)
                    targets.set(node, target);
            }
            else if (node.anchor !== undefined)
                named.set(node.anchor, node);
        }
    });
    return targets;
}
/**
 * A node as plain values: each node made once, so an alias shares its target's value (no expansion,
 * and a node that holds an alias to itself holds itself); an alias to no anchor is undefined.
 * Mappings have no prototype, so that a `__proto__` key is a key like any other.
 */
function plainValues(root, targets) {
    const made = new Map();
    const plain = (node) => {
        if ((0,yaml__WEBPACK_IMPORTED_MODULE_0__/* .isAlias */ .Vj)(node))
            return targets.has(node) ? plain(targets.get(node)) : undefined;
        if (made.has(node))
            return made.get(node);
        if ((0,yaml__WEBPACK_IMPORTED_MODULE_0__/* .isScalar */ .jn)(node))
            return node.value;
        if ((0,yaml__WEBPACK_IMPORTED_MODULE_0__/* .isSeq */ .oP)(node)) {
            const list = [];
            made.set(node, list);
            for (const item of node.items)
                list.push(plain(item));
            return list;
        }
        if (!(0,yaml__WEBPACK_IMPORTED_MODULE_0__/* .isMap */ .jh)(node))
            return undefined;
        const mapping = Object.create(null);
        made.set(node, mapping);
        for (const pair of node.items)
            mapping[String(plain(pair.key))] = plain(pair.value);
        return mapping;
    };
    return plain(root);
}
/** A `concurrency:` that names a group: a string, or an object with a `group`. */
function hasGroup(value) {
    const group = isObject(value) ? value['group'] : value;
    return typeof group === 'string' && group.trim() !== '';
}
/**
 * The schedule entries looked at, in the order written. A real workflow has a few; each takes up to
 * 20 ms with a `timezone:` (its wall clock read day by day over four years), so a file of
 * thousands, under the size limit, would hold the run for half a minute, and no stop or deadline
 * can cut a loop that never waits.
 */
const MAX_SCHEDULES = 20;
/**
 * The first cron of `on.schedule` whose runs can come 6 hours apart or less, with its shortest
 * gap: scheduled runs start late by minutes, unevenly, so a 6-hour schedule counts too.
 */
function frequentSchedule(on) {
    const schedule = isObject(on) ? on['schedule'] : undefined;
    if (!Array.isArray(schedule))
        return undefined;
    for (const entry of schedule.slice(0, MAX_SCHEDULES)) {
        if (!isObject(entry) || typeof entry['cron'] !== 'string')
            continue;
        const zone = typeof entry['timezone'] === 'string' ? entry['timezone'] : undefined;
        const gap = shortestGapMinutes(entry['cron'], zone);
        if (gap !== undefined && gap <= 6 * 60)
            return { cron: entry['cron'], gapMinutes: gap };
    }
    return undefined;
}
/**
 * The days a schedule is tried over: four years from the 1st of January of a leap year, so that
 * every month, every length of month (29 February included) and every weekday of every date
 * comes up, in every order.
 */
const SPAN_START = Date.UTC(2028, 0, 1);
const SPAN_DAYS = 4 * 365 + 1;
const DAY_MINUTES = 24 * 60;
/**
 * Whether a day matches the two day fields: a `*` field leaves the day to the other one; when both
 * are restricted, a day matching either fires (cron's rule).
 */
function firesOnDay(day, weekday, anyDay, anyWeekday) {
    if (anyDay && anyWeekday)
        return true;
    if (anyDay)
        return weekday;
    if (anyWeekday)
        return day;
    return day || weekday;
}
/**
 * The shortest gap, in minutes, between two firings of a five-field cron expression (as GitHub
 * reads it: `*`, lists, ranges and steps), over four years; undefined for an expression it cannot
 * read or that fires fewer than twice in that time. A day it fires on fires at the same minutes
 * (hours × minutes), so the day fields are read day by day, and the minutes once. With a
 * `timezone:` (an IANA name), the minutes are that zone's wall clock, and the gaps are measured
 * in real time, across its daylight-saving changes; a zone Intl does not know gives undefined.
 */
function shortestGapMinutes(cron, timeZone) {
    const fields = cron.trim().split(/\s+/);
    if (fields.length !== 5)
        return undefined;
    // Each field's range: minute, hour, day of month, month, day of week (7 is Sunday too).
    const low = [0, 0, 1, 1, 0];
    const high = [59, 23, 31, 12, 7];
    const sets = fields.map((field, i) => cronField(field, low[i], high[i]));
    if (sets.some(set => set === undefined))
        return undefined;
    const [minutes, hours, days, months, weekdays] = sets;
    if (weekdays.has(7))
        weekdays.add(0);
    const ascending = (set) => [...set].sort((a, b) => a - b);
    const times = ascending(hours).flatMap(hour => ascending(minutes).map(minute => hour * 60 + minute));
    const clock = timeZone === undefined ? utcClock : zoneClock(timeZone);
    if (clock === undefined)
        return undefined;
    let shortest = Infinity;
    for (let i = 1; i < times.length; i++)
        shortest = Math.min(shortest, times[i] - times[i - 1]);
    // cron's rule: when both day fields are restricted, a day matching either fires.
    const anyDay = fields[2] === '*';
    const anyWeekday = fields[4] === '*';
    let lastFiring;
    for (let d = 0; d < SPAN_DAYS; d++) {
        const at = new Date(SPAN_START + d * DAY_MINUTES * 60_000);
        if (!months.has(at.getUTCMonth() + 1))
            continue;
        const day = days.has(at.getUTCDate());
        const weekday = weekdays.has(at.getUTCDay());
        if (!firesOnDay(day, weekday, anyDay, anyWeekday))
            continue;
        const first = clock(at.getTime(), times[0]);
        const last = clock(at.getTime(), times[times.length - 1]);
        // A daylight-saving change between the day's first and last firing moves the gaps around
        // it: that day's firings are measured one by one.
        if (last - first !== times[times.length - 1] - times[0])
            shortest = Math.min(shortest, shortestOnTheDay(at.getTime(), times, clock));
        // From the last firing of the previous day it fired on to the first of this one.
        if (lastFiring !== undefined)
            shortest = Math.min(shortest, first - lastFiring);
        lastFiring = last;
    }
    // Never fires (31 February), so no gap between the minutes of its day either.
    return lastFiring === undefined || shortest === Infinity ? undefined : shortest;
}
const utcClock = (day, minute) => day / 60_000 + minute;
/** The shortest gap between the firings of one day, each measured in real time. */
function shortestOnTheDay(day, times, clock) {
    const instants = [...new Set(times.map(minute => clock(day, minute)))].sort((a, b) => a - b);
    let shortest = Infinity;
    for (let i = 1; i < instants.length; i++)
        shortest = Math.min(shortest, instants[i] - instants[i - 1]);
    return shortest;
}
/**
 * The wall clock of an IANA time zone, as GitHub's scheduler keeps it: a time that the change to
 * summer time skips runs at the change itself ("a 2:30 AM schedule advances to 3:00 AM", GitHub's
 * documentation), and a time that the change back repeats runs once, at its first occurrence (as
 * cron does; GitHub does not say). Undefined for a zone Intl does not know.
 */
function zoneClock(timeZone) {
    let format;
    try {
        format = new Intl.DateTimeFormat('en-US', {
            timeZone,
            hourCycle: 'h23',
            year: 'numeric',
            month: 'numeric',
            day: 'numeric',
            hour: 'numeric',
            minute: 'numeric'
        });
    }
    catch {
        return undefined;
    }
    /** The zone's offset from UTC at an instant, in minutes (both in minutes since 1970). */
    const offset = (at) => {
        const part = {};
        for (const { type, value } of format.formatToParts(at * 60_000))
            part[type] = Number(value);
        const wall = Date.UTC(part['year'], part['month'] - 1, part['day'], part['hour'], part['minute']);
        return wall / 60_000 - at;
    };
    return (day, minute) => {
        const wall = day / 60_000 + minute;
        // The offsets a day either side: daylight-saving changes are months apart, so at most one
        // lies between them, and when they agree the wall time is neither skipped nor repeated.
        const before = offset(wall - DAY_MINUTES);
        const after = offset(wall + DAY_MINUTES);
        if (before === after)
            return wall - before;
        // The wall time read with the offset before the change, and with the one after it: each
        // reading is real when the zone has that offset at the instant it gives.
        const withBefore = wall - before;
        const withAfter = wall - after;
        const realBefore = offset(withBefore) === before;
        const realAfter = offset(withAfter) === after;
        if (realBefore && realAfter)
            return Math.min(withBefore, withAfter);
        if (realBefore)
            return withBefore;
        if (realAfter)
            return withAfter;
        // Skipped: the change came between the two readings; find its minute.
        let [from, to] = [Math.min(withBefore, withAfter), Math.max(withBefore, withAfter)];
        while (to - from > 1) {
            const middle = Math.floor((from + to) / 2);
            if (offset(middle) === before)
                from = middle;
            else
                to = middle;
        }
        return to;
    };
}
/** One cron field as the set of values it allows, or undefined when it cannot be read. */
function cronField(field, min, max) {
    const values = new Set();
    for (const part of field.split(',')) {
        const match = /^(\*|(\d+)(?:-(\d+))?)(?:\/(\d+))?$/.exec(part);
        if (match === null)
            return undefined;
        const step = match[4] === undefined ? 1 : Number(match[4]);
        const from = match[1] === '*' ? min : Number(match[2]);
        const to = match[1] === '*' || (match[3] === undefined && match[4] !== undefined)
            ? max
            : Number(match[3] ?? match[2]);
        if (step < 1 || from < min || to > max || from > to)
            return undefined;
        for (let value = from; value <= to; value += step)
            values.add(value);
    }
    return values;
}
/**
 * The finding in words, for the strike's message (why it came) or a dry run's warning (what could
 * cost a strike later); undefined when the file shows nothing.
 */
function describeFindings(findings, where, botId, when = 'strike') {
    const said = [];
    if (findings.noGroup) {
        said.push(`its job has no concurrency group, so its runs can overlap with each other and with other workflows for this bot: add ` +
            `concurrency: { group: discord-place-stats-${botId}, cancel-in-progress: false } to the job, and the same group to ` +
            'every job that updates this bot');
    }
    if (findings.tooOften !== undefined) {
        const { cron, gapMinutes } = findings.tooOften;
        said.push(`it runs on the schedule "${cron}", whose runs can come ${duration(gapMinutes)} apart (scheduled runs start late by ` +
            'minutes, unevenly), with cooldown-check: false, so a run less than 6 hours after the last update is a strike: keep ' +
            'cooldown-check: true, or leave more than 6 hours between runs (for example "0 */8 * * *")');
    }
    const lead = when === 'strike' ? 'shows why' : 'could cost a strike later';
    return said.length === 0
        ? undefined
        : `The workflow that ran this step (${where}) ${lead}: ${said.join('; and ')}.`;
}
function duration(minutes) {
    const [hours, rest] = [Math.floor(minutes / 60), minutes % 60];
    return [hours > 0 ? `${hours} h` : '', rest > 0 ? `${rest} min` : ''].filter(Boolean).join(' ');
}
function isObject(value) {
    return typeof value === 'object' && value !== null && !Array.isArray(value);
}


/***/ })

};
