// The editgate review page's script: keys, decisions, the person's own version, paging and expanding,
// and live updates. The server renders every piece of HTML (escaped there); this script only inserts what
// the server sent, or sets textContent. Hand-written, no dependencies, no build step.

// The session's nonce, kept by sign-in.js when the sign-in link was opened: this origin's storage, which
// pages of other ports cannot read (the cookie, which every port of 127.0.0.1 receives, cannot decide).
const nonce = localStorage.getItem('editgate-review-nonce') ?? '';
const nonceHeaders = { 'X-Editgate-Nonce': nonce };
const body = document.body;
const changeId = body.dataset.change;
const layout = body.dataset.layout === 'split' ? 'split' : 'unified';
const proposedHash = body.dataset.hash;
/** The hash the next decision quotes: the proposed diff's, or that of the person's version. */
let hash = proposedHash;
/** The person's versions, by path, once they asked to see the diff of them. */
let edited = null;
let fileIndex = 0;

function byId(id) {
  return document.getElementById(id);
}

async function post(path, data) {
  const response = await fetch(path, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'Content-Type': 'application/json', ...nonceHeaders },
    body: JSON.stringify(data),
  });
  const json = await response.json().catch(() => ({}));
  return { ok: response.ok, status: response.status, json };
}

async function getText(path) {
  const response = await fetch(path, { credentials: 'same-origin', headers: nonceHeaders });
  if (!response.ok)
    throw new Error((await response.json().catch(() => ({}))).error ?? `HTTP ${response.status}`);
  return response.text();
}

function setStatus(text, kind) {
  const status = byId('status');
  if (!status) return;
  status.textContent = text;
  status.hidden = !text;
  status.className = `status s-${kind}`;
}

/** Once answered (here or elsewhere) or withdrawn, nothing more can be decided on this page. */
function closeDecisions() {
  byId('decide')?.remove();
  for (const button of document.querySelectorAll('button.edit')) button.remove();
  for (const editor of document.querySelectorAll('.editor')) editor.remove();
}

function setAllowEnabled(enabled) {
  for (const button of document.querySelectorAll('#decide button.allow')) button.disabled = !enabled;
}

let deciding = false;
async function decide(decision, reason) {
  if (!changeId || !byId('decide') || deciding) return;
  const data = { hash, decision };
  if (reason) data.reason = reason;
  if (edited && decision !== 'deny') data.edited = edited;
  deciding = true;
  try {
    const answer = await post(`/api/changes/${encodeURIComponent(changeId)}/decision`, data);
    if (answer.ok) {
      body.dataset.status = 'answered';
      setStatus(answer.json.text ?? 'Answered.', 'answered');
      closeDecisions();
    } else setStatus(answer.json.error ?? `Refused (HTTP ${answer.status}).`, 'refused');
  } catch (error) {
    setStatus(`Could not reach editgate: ${error.message}`, 'refused');
  } finally {
    deciding = false;
  }
}

function showReason() {
  const box = document.querySelector('#decide .reason');
  if (!box) return;
  box.hidden = false;
  byId('reason').focus();
}

function hideReason() {
  const box = document.querySelector('#decide .reason');
  if (box) box.hidden = true;
}

function sendReason() {
  const text = byId('reason')?.value.trim() ?? '';
  decide('deny', text || undefined);
}

/** The same note with an approval: allowed once, and the agent reads the note ({ allow, reason }). */
function sendNote() {
  const text = byId('reason')?.value.trim() ?? '';
  decide('once', text || undefined);
}

// --- files: moving between them, the person's own version ----------------------------------------------------

function sections() {
  return [...document.querySelectorAll('section.file')];
}

function focusFile(index, scroll = true) {
  const all = sections();
  if (all.length === 0) return;
  fileIndex = Math.max(0, Math.min(all.length - 1, index));
  all.forEach((section, i) => {
    section.classList.toggle('current', i === fileIndex);
  });
  if (scroll) all[fileIndex].scrollIntoView({ block: 'start' });
}

async function openEditor(section) {
  const editor = section?.querySelector('.editor');
  if (!editor) return;
  const textarea = editor.querySelector('textarea');
  const path = section.dataset.path;
  if (!editor.dataset.loaded) {
    if (edited && Object.hasOwn(edited, path)) textarea.value = edited[path];
    else {
      const response = await fetch(
        `/api/changes/${encodeURIComponent(changeId)}/files/${encodeURIComponent(section.dataset.file)}`,
        { credentials: 'same-origin', headers: nonceHeaders },
      );
      const file = await response.json();
      if (!response.ok) {
        setStatus(file.error ?? 'This file cannot be edited.', 'refused');
        return;
      }
      textarea.value = file.after;
    }
    editor.dataset.loaded = 'true';
  }
  editor.hidden = false;
  textarea.focus();
}

async function previewEdits() {
  const versions = { ...(edited ?? {}) };
  for (const section of sections()) {
    const editor = section.querySelector('.editor');
    if (editor?.dataset.loaded) versions[section.dataset.path] = editor.querySelector('textarea').value;
  }
  const answer = await post(`/api/changes/${encodeURIComponent(changeId)}/edit-preview?view=${layout}`, {
    edited: versions,
  });
  if (!answer.ok) {
    setStatus(answer.json.error ?? `Refused (HTTP ${answer.status}).`, 'refused');
    return;
  }
  edited = versions;
  hash = answer.json.hash;
  byId('files').innerHTML = answer.json.html;
  observePages();
  body.dataset.edited = 'true';
  setStatus(
    'Your version: the diff below is what is written if you allow it. "Discard my edits" goes back to the proposed change.',
    'edited',
  );
  focusFile(fileIndex, false);
}

function discardEdits() {
  edited = null;
  hash = proposedHash;
  location.reload();
}

// --- the diff: next pages, unchanged regions -----------------------------------------------------------------

function fragmentQuery(params) {
  const query = new URLSearchParams({ change: changeId, view: layout, ...params });
  if (edited) query.set('variant', hash);
  return query.toString();
}

async function loadPage(button) {
  const row = button.closest('tr');
  button.disabled = true;
  const html = await getText(
    `/fragments/page?${fragmentQuery({ file: button.dataset.file, page: button.dataset.page })}`,
  );
  row.insertAdjacentHTML('beforebegin', html);
  row.remove();
  observePages();
}

async function expand(button) {
  const row = button.closest('tr');
  button.disabled = true;
  const { file, old, count } = button.dataset;
  const html = await getText(
    `/fragments/expand?${fragmentQuery({ file, old, new: button.dataset.new, count })}`,
  );
  row.insertAdjacentHTML('beforebegin', html);
  row.remove();
}

/** The next page of a diff loads as its button scrolls into view (it can be clicked too). */
const pager = new IntersectionObserver(
  (entries) => {
    for (const entry of entries) {
      if (!entry.isIntersecting || entry.target.disabled) continue;
      pager.unobserve(entry.target);
      loadPage(entry.target).catch((error) => setStatus(error.message, 'refused'));
    }
  },
  { rootMargin: '600px' },
);

function observePages() {
  for (const button of document.querySelectorAll('button.page')) pager.observe(button);
}

// --- keys typed before the change was on screen ---------------------------------------------------------------
// The terminal card's rule: a key that arrives before this change was on screen never answers it, and while
// the person is still typing (keys less than PAUSE_MS apart, in a run that began before the change appeared)
// the keys are typing, not answers; the first key after a pause answers. A run goes on across a page load
// (a new change opens as a new page): the previous page leaves the run in this tab's session storage, and a
// page that shows another change than the one before carries it on (the same change in another layout does
// not: it was on screen already).

const PAUSE_MS = 500;
/** A page that comes up longer than this after the last one left does not continue its run. */
const MAX_LOAD_MS = 10_000;
const TYPING_KEY = 'editgate-review-typing';
const clock = () => performance.timeOrigin + performance.now();
/** When this change was on screen: once its fragment is in the page (until then, no key answers). */
let shownAt = Number.POSITIVE_INFINITY;

/** The current run of keys: when it began and when its last key came (ms since the epoch). */
let run = carriedRun(clock());

function carriedRun(now) {
  try {
    const stored = JSON.parse(sessionStorage.getItem(TYPING_KEY) ?? 'null');
    if (!stored || ![stored.start, stored.last, stored.leftAt].every(Number.isFinite)) return undefined;
    if (stored.change === (changeId ?? null)) return undefined;
    // Typing when the last page was left, and this one came up soon after: the keys typed while it loaded
    // went nowhere, but the run goes on.
    if (stored.leftAt - stored.last < PAUSE_MS && now - stored.leftAt < MAX_LOAD_MS)
      return { start: stored.start, last: now };
  } catch {
    // No storage, or not ours: no run to carry.
  }
  return undefined;
}

function keepRun(leftAt) {
  try {
    sessionStorage.setItem(TYPING_KEY, JSON.stringify({ ...run, leftAt, change: changeId ?? null }));
  } catch {
    // Storage full or refused: the next page starts without a run.
  }
}

// Every key counts for the run, wherever it is typed (capture: before any handler below).
document.addEventListener(
  'keydown',
  (event) => {
    const at = performance.timeOrigin + event.timeStamp;
    if (!run || at - run.last >= PAUSE_MS) run = { start: at, last: at };
    else run.last = Math.max(run.last, at);
  },
  true,
);
window.addEventListener('pagehide', () => keepRun(clock()));

/** Whether the key being handled may act on this change: its run began once the change was on screen. */
function keyAnswers() {
  return run !== undefined && run.start >= shownAt;
}

function showTypingHint(show) {
  let hint = byId('typing');
  if (!hint && show) {
    hint = document.createElement('p');
    hint.id = 'typing';
    hint.className = 'typing';
    hint.setAttribute('role', 'status');
    hint.textContent =
      'Keys typed as this change appeared are not taken as answers: pause, then press the key you mean.';
    byId('decide')?.prepend(hint);
  }
  if (hint) hint.hidden = !show;
}

// --- events --------------------------------------------------------------------------------------------------

document.addEventListener('click', (event) => {
  const button = event.target.closest('button');
  if (!button || button.disabled) return;
  const run = (promise) => promise.catch((error) => setStatus(error.message, 'refused'));
  if (button.dataset.decision === 'reason') showReason();
  else if (button.dataset.decision === 'send-reason') sendReason();
  else if (button.dataset.decision === 'send-note') sendNote();
  else if (button.dataset.decision) decide(button.dataset.decision);
  else if (button.classList.contains('edit')) run(openEditor(button.closest('section.file')));
  else if (button.classList.contains('preview')) run(previewEdits());
  else if (button.classList.contains('discard')) discardEdits();
  else if (button.classList.contains('page')) run(loadPage(button));
  else if (button.classList.contains('expand')) run(expand(button));
});

const SHORTCUTS = new Set(['j', 'k', 'y', 'a', 'A', 'n', 'r', 'e', 's']);

document.addEventListener('keydown', (event) => {
  const target = event.target;
  if (target?.id === 'reason') {
    if (event.key === 'Enter' && !event.shiftKey) {
      event.preventDefault();
      sendReason();
    } else if (event.key === 'Escape') hideReason();
    return;
  }
  if (target && (target.tagName === 'TEXTAREA' || target.tagName === 'INPUT' || target.isContentEditable))
    return;
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (!SHORTCUTS.has(event.key)) return;
  if (!keyAnswers()) {
    event.preventDefault();
    showTypingHint(true);
    return;
  }
  showTypingHint(false);
  const allowed = !document.querySelector('#decide button.allow[disabled]');
  switch (event.key) {
    case 'j':
      focusFile(fileIndex + 1);
      break;
    case 'k':
      focusFile(fileIndex - 1);
      break;
    case 'y':
      if (allowed) decide('once');
      break;
    case 'a':
      if (allowed) decide('file');
      break;
    case 'A':
      if (allowed) decide('all');
      break;
    case 'n':
      decide('deny');
      break;
    case 'r':
      if (byId('decide')) {
        event.preventDefault();
        showReason();
      }
      break;
    case 'e':
      event.preventDefault();
      openEditor(sections()[fileIndex]).catch((error) => setStatus(error.message, 'refused'));
      break;
    case 's': {
      const query = new URLSearchParams(location.search);
      query.set('view', layout === 'split' ? 'unified' : 'split');
      location.search = query.toString();
      break;
    }
    default:
      return;
  }
});

function onChangeEvent(event) {
  const change = JSON.parse(event.data);
  getText(`/fragments/queue?current=${encodeURIComponent(changeId ?? '')}`)
    .then((html) => {
      byId('queue').innerHTML = html;
    })
    .catch(() => undefined);
  if (!changeId) {
    if (change.type === 'added') location.assign(`/?change=${encodeURIComponent(change.id)}&view=${layout}`);
    return;
  }
  if (change.id !== changeId) return;
  body.dataset.status = change.status;
  if (change.status === 'stale') {
    setStatus(change.text, 'stale');
    setAllowEnabled(false);
  } else if (change.status === 'answered' || change.status === 'withdrawn') {
    setStatus(change.text, change.status);
    closeDecisions();
  }
}

/** Live updates: EventSource sends no header, so the nonce goes in the query (this origin's own request). */
function listen() {
  const live = byId('live');
  const events = new EventSource(`/events?${new URLSearchParams({ nonce })}`);
  events.addEventListener('open', () => {
    live.textContent = 'live';
    live.className = 'live on';
  });
  events.addEventListener('error', () => {
    live.textContent = 'disconnected: the editgate process may have ended';
    live.className = 'live off';
  });
  events.addEventListener('change', onChangeEvent);
}

/**
 * The changes come with the session's nonce: the frame the server sent holds none of them (the cookie that
 * fetched it reaches every port of 127.0.0.1).
 */
async function loadChanges() {
  const [queue, change] = await Promise.all([
    getText(`/fragments/queue?current=${encodeURIComponent(changeId ?? '')}`),
    changeId ? getText(`/fragments/change?${new URLSearchParams({ change: changeId, view: layout })}`) : '',
  ]);
  byId('queue').innerHTML = queue;
  if (changeId) byId('change').innerHTML = change;
}

loadChanges()
  .then(() => {
    shownAt = clock();
    focusFile(0, false);
    observePages();
    listen();
  })
  .catch((error) => {
    const main = byId('change');
    main.textContent = '';
    const message = document.createElement('p');
    message.className = 'status s-refused';
    message.textContent = nonce
      ? `The changes could not be loaded: ${error.message}`
      : 'This browser has no session nonce for this page (it is kept when a sign-in link is opened): open a new sign-in link (editgate review --link, or the one editgate printed).';
    main.append(message);
  })
  .finally(() => {
    document.documentElement.dataset.ready = 'true';
  });
