'use strict';
// Opens the ringbus-server dashboard in a real headless browser (Debian's chromium, driven by
// playwright-core) and checks that it shows live numbers, lays out without overflow at common
// widths, draws both chart series visibly and names the server once. Run by DashboardBrowserTest
// (and JetStreamDashboardBrowserTest).
// Usage: node dashboard-test.js <dashboard url> <screenshot path> [option | card text]...
//   --expect=<selector>=<text>  the element must come to contain the text (e.g. #storage-body=orders_all)
//   --history=<seconds>         before the screenshot, wait until the chart holds this many seconds
//   anything else               text the extensions' cards must show
// Protocol with the Java side, one line each on stdout:
//   "READY <in msgs>"   the page loaded and shows its first numbers; the Java side starts traffic
//   "check ...", "card ...", "layout ..."   what was seen, for the Java side's assertions and logs
//   "RESULT ok before=<n> after=<n> rate=<n>"   all checks passed; screenshot written; exit 0
//   "RESULT fail <reason>"   exit 1
const fs = require('fs');
const os = require('os');
const path = require('path');
const { chromium } = require('playwright-core');

const TIMEOUT_MS = 20000;
const WIDTHS = [1280, 1920];
const SCREENSHOT_WIDTH = 1280;
const [url, screenshot, ...rest] = process.argv.slice(2);
const expectations = rest.filter(a => a.startsWith('--expect=')).map(a => {
    const spec = a.slice('--expect='.length);
    const at = spec.indexOf('=');
    return { selector: spec.slice(0, at), text: spec.slice(at + 1) };
});
const historyArg = rest.find(a => a.startsWith('--history='));
const history = historyArg ? Number(historyArg.slice('--history='.length)) : 0;
const cardTexts = rest.filter(a => !a.startsWith('--'));
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--disable-quic'];

/** The number a dashboard field shows ("1,234" -> 1234), NaN while it shows "–". */
async function shown(page, id) {
    const text = await page.textContent('#' + id);
    return Number(String(text).replace(/,/g, ''));
}

/** Waits until the page has rendered fresh data at least once more. */
async function nextRefresh(page) {
    const now = Number(await page.getAttribute('body', 'data-refreshes'));
    await page.waitForFunction(n => Number(document.body.dataset.refreshes) > n, now,
        { timeout: TIMEOUT_MS, polling: 100 });
}

/**
 * Every visible card, and every scrolling table wrapper in it, is at least as wide as its
 * content (nothing cut off, nothing to scroll), and the page has no horizontal scroll bar.
 * @return the offenders, as text
 */
function overflows() {
    const bad = [];
    for (const el of document.querySelectorAll('.card, .card .scroll')) {
        if (el.offsetParent === null) continue; // hidden
        if (el.scrollWidth > el.clientWidth) {
            const card = el.closest('.card');
            const title = card.querySelector('h2') ? card.querySelector('h2').textContent : card.className;
            bad.push(`${el.classList.contains('card') ? 'card' : 'table in card'} '${title}': content`
                + ` ${el.scrollWidth} px wide, box ${el.clientWidth} px`);
        }
    }
    if (document.documentElement.scrollWidth > window.innerWidth) {
        bad.push(`page: ${document.documentElement.scrollWidth} px wide in a ${window.innerWidth} px window`);
    }
    return bad;
}

/** The chart's two series: drawn, and styled apart so that equal values leave both visible. */
function chartSeries() {
    const lines = Array.from(document.querySelectorAll('#chart polyline'));
    return lines.map(l => {
        const style = getComputedStyle(l);
        return { series: l.dataset.series, width: parseFloat(style.strokeWidth), dash: style.strokeDasharray,
            opacity: Number(style.strokeOpacity), stroke: style.stroke, points: l.points.length };
    });
}

async function checkLayout(page, width) {
    await page.setViewportSize({ width, height: 1000 });
    await nextRefresh(page);
    const bad = await page.evaluate(overflows);
    if (bad.length > 0) {
        throw new Error(`overflow at ${width} px: ${bad.join('; ')}`);
    }
    console.log(`layout ok at ${width} px`);
}

async function checkChart(page) {
    const series = await page.evaluate(chartSeries);
    console.log(`check chart ${JSON.stringify(series)}`);
    const names = series.map(s => s.series);
    if (names.join(',') !== 'out,in') {
        throw new Error(`chart series drawn: ${names.join(',')} (want out, then in on top)`);
    }
    const [out, inSeries] = series;
    if (!(out.width > inSeries.width) || inSeries.dash === 'none' || out.stroke === inSeries.stroke
        || out.opacity <= 0 || inSeries.opacity <= 0 || out.points < 2 || inSeries.points < 2) {
        throw new Error('equal in and out rates would hide one series: ' + JSON.stringify(series));
    }
}

/** The header names the server (its server_name, as /dashz gives it) once: "ringbus-server ringbus" was twice. */
async function checkHeader(page) {
    const name = await page.evaluate(async () => (await (await fetch('dashz')).json()).server.name);
    const header = (await page.textContent('header')).replace(/\s+/g, ' ').trim();
    const times = header.split(name).length - 1;
    console.log(`check header '${header}'`);
    if (times !== 1 || (await page.textContent('header h1')).trim() !== name) {
        throw new Error(`the header names the server '${name}' ${times} times: '${header}'`);
    }
    const title = await page.title();
    if (title !== name + ' · ringbus-server') {
        throw new Error(`title is '${title}'`);
    }
}

async function main() {
    if (!url || !screenshot) {
        throw new Error('usage: node dashboard-test.js <url> <screenshot path> [--expect=SEL=TEXT] [--history=S]');
    }
    const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'ringbus-chromium-'));
    const browser = await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM, headless: true, args: ARGS, viewport: { width: SCREENSHOT_WIDTH, height: 1000 },
    });
    try {
        const page = browser.pages()[0] || await browser.newPage();
        const errors = [];
        page.on('pageerror', e => errors.push(String(e)));
        await page.goto(url, { timeout: TIMEOUT_MS });
        await page.waitForSelector('body[data-refreshes]', { timeout: TIMEOUT_MS });
        const before = await shown(page, 'in-msgs');
        if (Number.isNaN(before)) {
            throw new Error('no number in #in-msgs after the first refresh');
        }
        console.log(`READY ${before}`);
        // Live: the totals, the rate and the connection count change without a reload.
        await page.waitForFunction(
            b => Number(document.getElementById('in-msgs').textContent.replace(/,/g, '')) > b
                && Number(document.getElementById('in-rate').textContent.replace(/,/g, '')) > 0
                && Number(document.getElementById('connections').textContent.replace(/,/g, '')) > 0
                && document.querySelectorAll('#chart polyline').length === 2,
            before, { timeout: TIMEOUT_MS, polling: 200 });
        const after = await shown(page, 'in-msgs');
        const rate = await shown(page, 'in-rate');
        const refreshes = Number(await page.getAttribute('body', 'data-refreshes'));
        const subscriptionRows = await page.locator('#subs-body tr').count();
        const outbox = await page.textContent('#outbox-body');
        console.log(`check refreshes ${refreshes} subscription rows ${subscriptionRows} outbox '${outbox.trim()}'`);
        for (const { selector, text } of expectations) {
            await page.waitForFunction(([s, t]) => document.querySelector(s)
                && document.querySelector(s).textContent.includes(t), [selector, text],
                { timeout: TIMEOUT_MS, polling: 200 }).catch(() => {
                throw new Error(`${selector} never showed '${text}'`);
            });
            console.log(`check ${selector} shows '${text}'`);
        }
        if (cardTexts.length > 0) {
            // The extensions' cards (JetStream's streams and consumers) show what the Java side created.
            await page.waitForFunction(texts => texts.every(t => document.getElementById('cards').textContent
                .includes(t)), cardTexts, { timeout: TIMEOUT_MS, polling: 200 });
            const cards = await page.$$eval('#cards .card', divs => divs.map(d => [d.querySelector('h2').textContent,
                ...Array.from(d.querySelectorAll('tr')).map(tr => Array.from(tr.children).map(c => c.textContent)
                    .join('|'))].join(' / ')));
            for (const card of cards) {
                console.log(`card ${card}`);
            }
        }
        await checkHeader(page);
        await checkChart(page);
        for (const width of WIDTHS) {
            await checkLayout(page, width);
        }
        await page.setViewportSize({ width: SCREENSHOT_WIDTH, height: 1000 });
        if (history > 0) {
            await page.waitForFunction(s => document.querySelector('#chart polyline')
                && document.querySelector('#chart polyline').points.length >= s, history,
                { timeout: (history + 30) * 1000, polling: 500 });
        }
        await nextRefresh(page);
        if (errors.length > 0) {
            throw new Error('page errors: ' + errors.join('; '));
        }
        await page.screenshot({ path: screenshot, fullPage: true });
        console.log(`RESULT ok before=${before} after=${after} rate=${rate}`);
    } finally {
        await browser.close();
        fs.rmSync(profile, { recursive: true, force: true });
    }
}

main().then(() => process.exit(0), e => {
    console.log(`RESULT fail ${e && e.stack ? e.stack : e}`);
    process.exit(1);
});
