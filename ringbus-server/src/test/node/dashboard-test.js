'use strict';
// Opens the ringbus-server dashboard in a real headless browser (Debian's chromium, driven by
// playwright-core) and checks that it shows live numbers. Run by DashboardBrowserTest.
// Usage: node dashboard-test.js <dashboard url> <screenshot path> [text the extensions' cards must show]...
// Protocol with the Java side, one line each on stdout:
//   "READY <in msgs>"   the page loaded and shows its first numbers; the Java side starts traffic
//   "RESULT ok before=<n> after=<n> rate=<n>"   the numbers went up; screenshot written; exit 0
//   "RESULT fail <reason>"   exit 1
const fs = require('fs');
const os = require('os');
const path = require('path');
const { chromium } = require('playwright-core');

const TIMEOUT_MS = 20000;
const [url, screenshot, ...cardTexts] = process.argv.slice(2);
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--disable-quic'];

/** The number a dashboard field shows ("1,234" -> 1234), NaN while it shows "–". */
async function shown(page, id) {
    const text = await page.textContent('#' + id);
    return Number(String(text).replace(/,/g, ''));
}

async function main() {
    if (!url || !screenshot) {
        throw new Error('usage: node dashboard-test.js <url> <screenshot path>');
    }
    const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'ringbus-chromium-'));
    const browser = await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM, headless: true, args: ARGS, viewport: { width: 1400, height: 1000 },
    });
    try {
        const page = browser.pages()[0] || await browser.newPage();
        const errors = [];
        page.on('pageerror', e => errors.push(String(e)));
        await page.goto(url, { timeout: TIMEOUT_MS });
        await page.waitForSelector('body[data-refreshes]', { timeout: TIMEOUT_MS });
        const title = await page.title();
        if (title !== 'ringbus-server') {
            throw new Error(`title is '${title}'`);
        }
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
