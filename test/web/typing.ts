/**
 * A person typing on the review page, for the tests of its typing guard (review.js: keys less than PAUSE_MS
 * apart are one run; a run that began before the change was on screen never answers it). The guard reads
 * each key's `event.timeStamp`, so what it sees is when the browser says the key was pressed, not when the
 * test meant to press it: on a loaded machine the test's timers and the browser's input queue can spread keys
 * typed 90 ms apart into gaps longer than the pause, and the page then rightly takes a later key as an
 * answer. So the keys here are sent over CDP with their own timestamps (which become `event.timeStamp`),
 * and the test reads back, from a listener of its own in the page, the times the page saw, to know that the
 * page saw one unbroken run and that it went on after the change was on screen.
 */
import type { Page } from 'playwright-core';

/** review.js's PAUSE_MS: keys at least this far apart are two runs. */
export const TYPING_PAUSE_MS = 500;
/** review.js's MAX_LOAD_MS: a page that comes up later than this after the last one left starts afresh. */
const MAX_LOAD_MS = 10_000;
/**
 * The most a key's stamp runs after the one before when the test's timer fired late: under the pause, so the
 * harness's delay never reads as the person's. The stamps catch up with the clock by that much a key and
 * never run ahead of it.
 */
const MAX_STEP_MS = 400;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** What the page saw, from the test's listener: keys with their event times, loads, leaving, the change shown. */
type Seen =
  | { kind: 'load'; at: number }
  | { kind: 'key'; key: string; at: number }
  | { kind: 'left'; at: number }
  | { kind: 'shown'; at: number };

const LOG = 'editgate-test-typing-log';

/** Runs in the page (every document of it): records what the typing guard reads, in the tab's session storage. */
function recordTyping(log: string): void {
  const clock = () => performance.timeOrigin + performance.now();
  const put = (entry: Record<string, unknown>) => {
    const list = JSON.parse(sessionStorage.getItem(log) ?? '[]') as unknown[];
    list.push(entry);
    sessionStorage.setItem(log, JSON.stringify(list));
  };
  put({ kind: 'load', at: clock() });
  addEventListener(
    'keydown',
    (event) => put({ kind: 'key', key: event.key, at: performance.timeOrigin + event.timeStamp }),
    true,
  );
  addEventListener('pagehide', () => put({ kind: 'left', at: clock() }));
  // data-ready is set after the page's shownAt (and #decide comes with a change): a key after this time came
  // after the change was on screen.
  const shown = () => document.documentElement?.dataset.ready === 'true' && document.getElementById('decide');
  if (!shown()) {
    const watch = new MutationObserver(() => {
      if (!shown()) return;
      watch.disconnect();
      put({ kind: 'shown', at: clock() });
    });
    watch.observe(document, { subtree: true, childList: true, attributes: true });
  }
}

export interface Typist {
  /** Types `keys`, `gapMs` apart, each stamped with when it was pressed. */
  type(keys: string, gapMs: number): Promise<void>;
  /**
   * Types `text` through at least once (from its start again when it runs out), and on until `after` keys
   * were typed once `shown` (a selector: the change on screen) is on the page, however long it takes to come.
   */
  typeUntilShown(text: string, gapMs: number, shown: string, after: number): Promise<void>;
  /** What the page saw, in order. */
  seen(): Promise<Seen[]>;
}

/** A typist for `page` (already open): its listener goes into this document and every one the tab loads. */
export async function typist(page: Page): Promise<Typist> {
  await page.addInitScript(recordTyping, LOG);
  await page.evaluate(recordTyping, LOG);
  const cdp = await page.context().newCDPSession(page);
  let last = 0;
  async function type(keys: string, gapMs: number): Promise<void> {
    for (const key of keys) {
      if (last !== 0) await sleep(last + gapMs - Date.now());
      last = last === 0 ? Date.now() : Math.min(Date.now(), last + Math.max(gapMs, MAX_STEP_MS));
      const timestamp = last / 1000;
      await cdp.send('Input.dispatchKeyEvent', { type: 'keyDown', key, text: key, timestamp });
      await cdp.send('Input.dispatchKeyEvent', { type: 'keyUp', key, timestamp });
    }
  }
  return {
    type,
    async typeUntilShown(text, gapMs, shown, after) {
      let onScreen = false;
      const showing = page.waitForSelector(shown, { timeout: 0 }).then(() => {
        onScreen = true;
      });
      let typedAfter = 0;
      for (let i = 0; i < text.length || typedAfter < after; i++) {
        await type(text[i % text.length]!, gapMs);
        if (onScreen) typedAfter++;
      }
      await showing;
    },
    async seen() {
      return JSON.parse((await page.evaluate((log) => sessionStorage.getItem(log), LOG)) ?? '[]') as Seen[];
    },
  };
}

/**
 * Whether the page saw the typing as one run, as the guard reckons it: every key under the pause after the
 * one before, the page left under the pause after the last key, and the next page's first key under the
 * pause after it came up (the guard carries a run across a page load so). Undefined: it did; else what broke
 * it (the harness, not the person: the test's run proves nothing then).
 */
function brokenRun(seen: Seen[]): string | undefined {
  let last: number | undefined;
  let left: number | undefined;
  for (const entry of seen) {
    if (entry.kind === 'key') {
      if (last !== undefined && entry.at - last >= TYPING_PAUSE_MS)
        return `the page saw ${Math.round(entry.at - last)} ms between two keys`;
      last = Math.max(last ?? entry.at, entry.at);
    } else if (entry.kind === 'left' && last !== undefined) {
      if (entry.at - last >= TYPING_PAUSE_MS)
        return `the page was left ${Math.round(entry.at - last)} ms after the last key it saw`;
      left = entry.at;
    } else if (entry.kind === 'load' && last !== undefined) {
      if (left !== undefined && entry.at - left >= MAX_LOAD_MS)
        return `the next page came up ${Math.round(entry.at - left)} ms after the last one left`;
      last = entry.at;
    }
  }
  return last === undefined ? 'the page saw no key' : undefined;
}

/** The keys the page saw after the change was on screen. */
function keysAfterShown(seen: Seen[]): string[] {
  const shown = seen.find((entry) => entry.kind === 'shown')?.at;
  if (shown === undefined) return [];
  return seen.flatMap((entry) => (entry.kind === 'key' && entry.at > shown ? [entry.key] : []));
}

/** How many times a scenario is typed when the harness broke the run (a loaded machine), before it fails. */
const ATTEMPTS = 3;
/** A test's limit for typedAcrossTheChange: each attempt opens two pages in a browser on a loaded machine. */
export const TYPED_ACROSS_MS = ATTEMPTS * 40_000;

/**
 * Types a scenario (`attempt`: a page, a change that appears while `person` types) until the page saw what the
 * scenario is about: one run of typing, some of `keys` (the page's keys) in it after the change was on
 * screen. An attempt the harness broke proves nothing and is made again; after ATTEMPTS, the test fails
 * saying why. Returns the attempt that did, for the test's own checks.
 */
export async function typedAcrossTheChange<T extends { person: Typist }>(
  keys: string,
  attempt: () => Promise<T>,
): Promise<T> {
  for (let made = 1; ; made++) {
    const typed = await attempt();
    const seen = await typed.person.seen();
    const why =
      brokenRun(seen) ??
      (keysAfterShown(seen).some((key) => keys.includes(key))
        ? undefined
        : `none of ${keys} reached the page after the change was on screen`);
    if (why === undefined) return typed;
    if (made === ATTEMPTS)
      throw new Error(`${ATTEMPTS} attempts, and the page never saw the typing the test is about: ${why}`);
    console.warn(`attempt ${made}: ${why}; typing again`);
  }
}
